import Naming
import FileIO
import Protobuf
import ModelFormat
import ONNXSchema

extension ONNXConverter {
    /// The model at `path` as the file states it, read without converting
    /// it, with every obstacle `convert` meets: an opset out of range, a
    /// name that is not UTF-8, each unsupported op type (count, first node),
    /// each refused attribute (nodes alike counted, first named), each input
    /// whose sizes are open (with the `--input-shape` that gives them), and, when
    /// none of those is what stopped the conversion, `failure` itself.
    /// - Parameter failure: the error `convert(model:)` threw on the file.
    /// - Throws: `ONNXError` or `FileError` when the file does not parse.
    public static func outline(model path: String, failure: (any Error)? = nil) throws -> SourceOutline {
        let graph = try ONNXGraph(path: path, checkingNames: false)
        var obstacles: [SourceOutline.Obstacle] = []
        if !ONNXGraph.supportedOpsets.contains(graph.opset) {
            obstacles.append(.init(kind: .other, message: "opset \(graph.opset) is not supported "
                                   + "(opsets \(ONNXGraph.supportedOpsets.lowerBound) to \(ONNXGraph.supportedOpsets.upperBound))"))
        }
        let root = graph.decoded.root.pointee.graph!.pointee
        if let problem = ONNXGraph.nonUTF8Name(root) { obstacles.append(.init(kind: .other, message: problem)) }
        var walk = ONNXWalk(graph: graph, path: path, inputShapes: [:])
        var tally = SourceOutline.Tally()
        tally.unsupported = walk.findUnsupported()
        // Refused attributes, nodes alike (same op, same reason) on one line.
        for node in graph.nodes where ONNXWalk.isKnown(node) {
            guard let clause = ONNXLedgers.refusalClause(for: node) else { continue }
            tally.refused(node.op, clause, node: node.name)
        }
        obstacles += tally.obstacles(opNoun: "op", nodeNoun: "node")
        for input in graph.inputs {
            do {
                _ = try walk.checkedShape(input)
            } catch {
                obstacles.append(inputObstacle(input, error, path: path))
            }
        }
        if obstacles.isEmpty, let failure {
            let text = String(mentioning: failure)
            obstacles.append(.init(kind: .other, message: text.hasPrefix("\(path): ") ? String(text.dropFirst(path.count + 2)) : text))
        }
        var parameters = 0
        for tensor in graph.initializers.values {
            let count = CArrays.array(tensor.pointee.dims, tensor.pointee.n_dims).reduce(1) { product, dim in
                let (value, overflow) = product.multipliedReportingOverflow(by: Int(clamping: max(dim, 0)))
                return overflow ? Int.max : value
            }
            parameters = parameters > Int.max - count ? Int.max : parameters + count
        }
        var metadata = graph.metadata + [("onnx.opset", String(graph.opset))]
        if !graph.producer.isEmpty { metadata.append(("onnx.producer", graph.producer)) }
        let declared = CArrays.buffer(root.input, root.n_input).compactMap { $0 }
            .filter { graph.initializers[CArrays.string($0.pointee.name)] == nil }
        return SourceOutline(inputs: declared.map(tensor), outputs: CArrays.buffer(root.output, root.n_output).compactMap { $0.map(tensor) },
                             nodes: graph.nodes.map { SourceOutline.Node(name: $0.name, op: ONNXWalk.opName($0), inputs: $0.inputs, outputs: $0.outputs) },
                             weightTensors: graph.initializers.count, parameters: parameters, metadata: metadata, obstacles: obstacles)
    }

    /// An input the converter cannot take: open sizes get a short line
    /// with the `--input-shape` that gives them; anything else, the converter's words.
    private static func inputObstacle(_ input: ONNXInput, _ error: any Error, path: String) -> SourceOutline.Obstacle {
        let dims = input.dims
        let open = dims.indices.filter { dims[$0] == nil && $0 > 0 }
        if (2...5).contains(dims.count), !open.isEmpty, dims.compactMap({ $0 }).allSatisfy({ $0 > 0 && $0 <= 1 << 20 }),
           dims.first.map({ $0 == nil || $0 == 1 }) ?? false, input.elementType == 1 || input.elementType == 0 {
            let value = "\(input.name)=" + dims.enumerated().map { index, size in index == 0 ? "1" : size.map(String.init) ?? "?" }
                .joined(separator: ",")
            let option = "\(option: .inputShape) \(value)"
            let axes = open.map(String.init).joined(separator: ", ")
            return .init(kind: .inputShape, message: "input '\(short(input.name))': size\(open.count == 1 ? " at axis" : "s at axes") \(axes) "
                         + "open: give \(open.count == 1 ? "it" : "them") with \(option: .inputShape) \(short(value, 34))", input: input.name, option: option)
        }
        let text = String(mentioning: error)
        return .init(kind: .inputShape, message: text.hasPrefix("\(path): ") ? String(text.dropFirst(path.count + 2)) : text, input: input.name)
    }

    /// A graph input or output as declared: sizes as numbers, symbolic names or `?`.
    private static func tensor(_ info: UnsafeMutablePointer<OnnxValueInfo>) -> SourceOutline.Tensor {
        let name = CArrays.string(info.pointee.name)
        guard let type = info.pointee.type, type.pointee.value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE,
              let tensor = type.pointee.tensor_type else { return SourceOutline.Tensor(name: name, shape: nil, type: "") }
        let shape: [String]? = tensor.pointee.shape.map { shape in
            CArrays.buffer(shape.pointee.dim, shape.pointee.n_dim).map { dim in
                guard let dim else { return "?" }
                if dim.pointee.value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE { return String(dim.pointee.dim_value) }
                if dim.pointee.value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM {
                    let symbol = CArrays.string(dim.pointee.dim_param)
                    return symbol.isEmpty ? "?" : short(symbol, 24)
                }
                return "?"
            }
        }
        return SourceOutline.Tensor(name: name, shape: shape, type: elementTypes[Int(tensor.pointee.elem_type)] ?? "type \(tensor.pointee.elem_type)")
    }

    /// ONNX's `TensorProto.DataType` names, as the summary shows them.
    private static let elementTypes = [0: "", 1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
                                       8: "string", 9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64", 16: "bfloat16"]

    /// A name shortened for a one-line message (JSON keeps it whole in its own field).
    static func short(_ name: String, _ limit: Int = 32) -> String { SourceOutline.short(name, limit) }
}

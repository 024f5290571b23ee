#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FileIO
import Naming
import ModelFormat
import ONNXSchema
import Protobuf

typealias OnnxModel = Onnx__ModelProto
typealias OnnxTensor = Onnx__TensorProto
typealias OnnxAttribute = Onnx__AttributeProto
typealias OnnxValueInfo = Onnx__ValueInfoProto

/// A problem with an ONNX file or one of its nodes: one line.
public typealias ONNXError = MessageError<ONNXErrorKind>
public enum ONNXErrorKind {}

/// One node: op type, inputs and outputs by name ("" for an absent
/// optional input), attributes by name.
struct ONNXNode {
    var name: String
    var op: String
    var domain: String
    var inputs: [String]
    var outputs: [String]
    var attributes: UnsafeBufferPointer<UnsafeMutablePointer<OnnxAttribute>?>

    func fail(_ message: String) -> ONNXError {
        ONNXError("node '\(name)' (\(op)): \(message)")
    }

    private func attribute(_ key: String) -> OnnxAttribute? {
        key.withCString { wanted in
            for case let entry? in attributes.reversed() where entry.pointee.name.map({ strcmp($0, wanted) == 0 }) ?? false {
                return entry.pointee
            }
            return nil
        }
    }

    func has(_ key: String) -> Bool { attribute(key) != nil }

    func int(_ key: String) -> Int? {
        attribute(key).map { Int(clamping: $0.i) }
    }

    func float(_ key: String) -> Float? {
        attribute(key).map(\.f)
    }

    func ints(_ key: String) -> [Int]? {
        attribute(key).map { CArrays.array($0.ints, $0.n_ints).map { Int(clamping: $0) } }
    }

    func floats(_ key: String) -> [Float]? {
        attribute(key).map { CArrays.array($0.floats, $0.n_floats) }
    }

    func string(_ key: String) -> String? {
        guard let s = attribute(key)?.s else { return nil }
        guard s.len > 0, let data = s.data else { return "" }
        return String(decoding: UnsafeBufferPointer(start: data, count: s.len), as: UTF8.self)
    }

    func tensor(_ key: String) -> UnsafeMutablePointer<OnnxTensor>? {
        attribute(key)?.t
    }
}

/// A graph input: its name and declared dimensions (nil: symbolic or unknown).
struct ONNXInput {
    var name: String
    var dims: [Int?]
    var elementType: Int32
}

/// A decoded ONNX model: the main graph's nodes, initializers, inputs and
/// outputs, and the opset version of the default domain.
struct ONNXGraph {
    let decoded: Decoded<OnnxModel>
    let file: MappedFile
    /// The model file's folder: external data files are named relative to it.
    let folder: String
    var nodes: [ONNXNode] = []
    var initializers: [String: UnsafeMutablePointer<OnnxTensor>] = [:]
    var inputs: [ONNXInput] = []
    var outputs: [String] = []
    /// The version of the ONNX operator set (`ai.onnx`, the default domain).
    var opset = 0
    var producer = ""
    var documentation = ""
    var metadata: [(key: String, value: String)] = []

    /// The opsets whose semantics the converter knows.
    static let supportedOpsets = 9...21

    /// - Parameter checkingNames: refuse a name that is not UTF-8 (`nonUTF8Name`);
    ///   an outline reads on, showing such names with U+FFFD.
    init(path: String, checkingNames: Bool = true) throws {
        file = try MappedFile(path: path)
        folder = FileSystem.folder(of: path)
        decoded = try Self.decode(file, path)
        let model = decoded.root.pointee
        guard let graph = model.graph else { throw ONNXError("\(path): the model has no graph (not an ONNX model?)") }
        for case let set? in CArrays.buffer(model.opset_import, model.n_opset_import) {
            let domain = CArrays.string(set.pointee.domain)
            if domain.isEmpty || domain == "ai.onnx" { opset = Int(clamping: set.pointee.version) }
        }
        guard opset > 0 else { throw ONNXError("\(path): the model imports no ONNX operator set (opset_import)") }
        producer = [CArrays.string(model.producer_name), CArrays.string(model.producer_version)].filter { !$0.isEmpty }.joined(separator: " ")
        documentation = CArrays.string(model.doc_string)
        metadata = CArrays.buffer(model.metadata_props, model.n_metadata_props).compactMap { entry in
            entry.map { (CArrays.string($0.pointee.key), CArrays.string($0.pointee.value)) }
        }
        if checkingNames, let problem = Self.nonUTF8Name(graph.pointee) { throw ONNXError("\(path): \(problem)") }
        for case let tensor? in CArrays.buffer(graph.pointee.initializer, graph.pointee.n_initializer) {
            initializers[CArrays.string(tensor.pointee.name)] = tensor
        }
        for case let node? in CArrays.buffer(graph.pointee.node, graph.pointee.n_node) {
            let n = node.pointee
            nodes.append(ONNXNode(name: CArrays.string(n.name), op: CArrays.string(n.op_type), domain: CArrays.string(n.domain),
                                  inputs: CArrays.strings(n.input, n.n_input), outputs: CArrays.strings(n.output, n.n_output),
                                  attributes: CArrays.buffer(n.attribute, n.n_attribute)))
            if nodes[nodes.count - 1].name.isEmpty { nodes[nodes.count - 1].name = nodes[nodes.count - 1].outputs.first ?? "#\(nodes.count - 1)" }
        }
        for case let info? in CArrays.buffer(graph.pointee.input, graph.pointee.n_input) {
            let name = CArrays.string(info.pointee.name)
            if initializers[name] != nil { continue }  // an initializer listed as an input (IR < 4): a constant
            inputs.append(Self.input(name, info))
        }
        outputs = CArrays.buffer(graph.pointee.output, graph.pointee.n_output).compactMap { $0.map { CArrays.string($0.pointee.name) } }
    }

    /// Every name the graph connects by (initializers, nodes, their inputs
    /// and outputs, the graph's inputs and outputs) must be UTF-8: ONNX
    /// compares names as bytes, and a Core ML feature name is UTF-8 text.
    /// Returns why the first one that is not is refused, or nil.
    static func nonUTF8Name(_ graph: Onnx__GraphProto) -> String? {
        func check(_ name: UnsafePointer<CChar>?, _ what: String, node: String? = nil) -> String? {
            guard !CArrays.isUTF8(name), let name else { return nil }
            let shown = PathBytes.escapingRawBytes(PathBytes.string(cString: name))
            let place = node.map { "node '\($0)': " } ?? ""
            return "\(place)\(what) '\(shown)' is not valid UTF-8 (names are compared as bytes; a Core ML name is UTF-8)"
        }
        for case let tensor? in CArrays.buffer(graph.initializer, graph.n_initializer) {
            if let problem = check(tensor.pointee.name, "initializer name") { return problem }
        }
        for case let info? in CArrays.buffer(graph.input, graph.n_input) { if let problem = check(info.pointee.name, "graph input name") { return problem } }
        for case let info? in CArrays.buffer(graph.output, graph.n_output) { if let problem = check(info.pointee.name, "graph output name") { return problem } }
        for case let node? in CArrays.buffer(graph.node, graph.n_node) {
            let n = node.pointee
            if let problem = check(n.name, "node name") { return problem }
            let label = CArrays.string(n.name)
            for input in CArrays.buffer(n.input, n.n_input) { if let problem = check(input, "input name", node: label) { return problem } }
            for output in CArrays.buffer(n.output, n.n_output) { if let problem = check(output, "output name", node: label) { return problem } }
        }
        return nil
    }

    private static func decode(_ file: MappedFile, _ path: String) throws -> Decoded<OnnxModel> {
        do {
            return try BinaryDecoder.decode(OnnxModel.self, descriptor: proto_onnx_model_descriptor(), bytes: file.bytes, owner: file)
        } catch {
            throw ONNXError("\(path): \(String(mentioning: error))")
        }
    }

    static func input(_ name: String, _ info: UnsafeMutablePointer<OnnxValueInfo>) -> ONNXInput {
        guard let type = info.pointee.type, type.pointee.value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE,
              let tensor = type.pointee.tensor_type else { return ONNXInput(name: name, dims: [], elementType: 0) }
        let dims: [Int?] = tensor.pointee.shape.map { shape in
            CArrays.buffer(shape.pointee.dim, shape.pointee.n_dim).map { dim in
                guard let dim, dim.pointee.value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE,
                      dim.pointee.dim_value > 0, dim.pointee.dim_value <= 1 << 31 else { return nil }
                return Int(dim.pointee.dim_value)
            }
        } ?? []
        return ONNXInput(name: name, dims: dims, elementType: tensor.pointee.elem_type)
    }
}

import Naming
import ModelFormat

extension TFLiteConverter {
    /// The model at `path` as the file states it (first subgraph), read
    /// without converting it, with every obstacle `convert` meets: each
    /// unsupported operator (count, first output), each refused option
    /// (operators alike counted, first named), each tensor of a type not
    /// converted, and, when none of those is what stopped the conversion,
    /// `failure` itself.
    /// - Parameter failure: the error `convert(model:)` threw on the file.
    /// - Throws: `TFLiteError` or `FileError` when the file does not parse.
    public static func outline(model path: String, failure: (any Error)? = nil) throws -> SourceOutline {
        let file = try TFLiteModel(path: path)
        guard let graph = file.subgraphs.first else { throw TFLiteError("\(path): the model has no subgraph") }
        func name(_ index: Int32) -> String {
            index >= 0 && Int(index) < graph.tensors.count ? graph.tensors[Int(index)].name : "?"
        }
        func tensor(_ index: Int32) -> SourceOutline.Tensor {
            guard index >= 0, Int(index) < graph.tensors.count else { return SourceOutline.Tensor(name: "?", shape: nil, type: "") }
            let tensor = graph.tensors[Int(index)]
            return SourceOutline.Tensor(name: tensor.name, shape: tensor.shape.map { String($0) }, type: TFLiteModel.typeName(tensor.type).lowercased())
        }
        var tally = SourceOutline.Tally()
        var nodes: [SourceOutline.Node] = []
        var types: [String] = []
        let needed = TFLiteWalk.neededOperators(graph, codes: file.operatorCodes)
        for op in graph.operators {
            let code = op.opcodeIndex < file.operatorCodes.count ? file.operatorCodes[op.opcodeIndex] : nil
            let opName = code.map(TFLiteOperators.name) ?? "?"
            let output = op.outputs.first.map(name) ?? "?"
            nodes.append(SourceOutline.Node(name: output, op: opName, inputs: op.inputs.filter { $0 >= 0 }.map(name), outputs: op.outputs.map(name)))
            guard needed.contains(op.index) else { continue }
            guard TFLiteOpTable.mappings[opName] != nil else { tally.unsupported(opName, node: output); continue }
            let present = (try? TFLiteOptions.present(op.options, type: op.optionsType)) ?? []
            if let clause = op.extras.first.map({ "\($0) is not supported" }) ?? TFLiteOptions.ledgers.refusal(op: opName, present: present) {
                tally.refused(opName, clause, node: output)
            }
        }
        var obstacles = tally.obstacles(opNoun: "operator", nodeNoun: "operator")
        for tensor in graph.tensors where tensor.buffer == 0 || (try? file.data(of: tensor)) == nil {
            guard let refusal = TFLiteWalk.typeRefusal(tensor), !types.contains(TFLiteModel.typeName(tensor.type)) else { continue }
            types.append(TFLiteModel.typeName(tensor.type))
            obstacles.append(.init(kind: .other, message: refusal))
        }
        if obstacles.isEmpty, let failure {
            let text = String(mentioning: failure)
            obstacles.append(.init(kind: .other, message: text.hasPrefix("\(path): ") ? String(text.dropFirst(path.count + 2)) : text))
        }
        var parameters = 0, weightTensors = 0
        for tensor in graph.tensors {
            guard (try? file.data(of: tensor)) != nil else { continue }
            weightTensors += 1
            let count = tensor.shape.reduce(1) { product, size in
                let (value, overflow) = product.multipliedReportingOverflow(by: Int(max(size, 0)))
                return overflow ? Int.max : value
            }
            parameters = parameters > Int.max - count ? Int.max : parameters + count
        }
        var metadata: [(key: String, value: String)] = [("tflite.version", String(file.version))]
        if !file.description.isEmpty { metadata.append(("tflite.description", file.description)) }
        for entry in file.metadata { metadata.append(("tflite.metadata", entry.name)) }
        // A quantized graph input or output: the levels' meaning, which the tensor's type alone does not say.
        for (side, indices) in [("input", graph.inputs), ("output", graph.outputs)] {
            for index in indices where index >= 0 && Int(index) < graph.tensors.count && graph.tensors[Int(index)].isQuantized {
                let tensor = graph.tensors[Int(index)]
                metadata.append(("tflite.quantization", "\(side) '\(tensor.name)': \(TFLiteModel.typeName(tensor.type)) levels q stand for scale * (q - zero point), "
                                 + "scales \(tensor.scales), zero points \(tensor.zeroPoints)"))
            }
        }
        if let read = try? TFLiteMetadata.read(file) { metadata += read.outline }
        return SourceOutline(inputs: graph.inputs.map(tensor), outputs: graph.outputs.map(tensor), nodes: nodes,
                             weightTensors: weightTensors, parameters: parameters, metadata: metadata, obstacles: obstacles)
    }
}

import Naming
import ModelFormat

extension KerasConverter {
    /// The model at `path` as its `model_config` states it, read without
    /// converting it (no weight is read), with every obstacle `convert`
    /// meets: each layer class it does not take (count, first layer; a
    /// Lambda holds Python code, never run), each configuration a ledger
    /// refuses (layers alike counted), each input with open sizes (with the
    /// `--input-shape` that gives them), and, when none of those is what stopped
    /// the conversion, `failure` itself.
    /// - Parameter failure: the error `convert(model:)` threw on the file.
    /// - Throws: `KerasError`, `FileError` or HDF5's error when the file or its configuration does not parse.
    public static func outline(model path: String, failure: (any Error)? = nil) throws -> SourceOutline {
        let file = try KerasModelFile(path: path, readsKernels: false)
        let graph = try KerasGraph(config: file.config, path: path)
        var tally = SourceOutline.Tally()
        for layer in graph.layers {
            guard KerasLayerTable.mappings[layer.className] != nil else {
                tally.unsupported(layer.className, node: layer.name)
                continue
            }
            guard let clause = KerasLayerLedgers.refusal(layer) else { continue }
            tally.refused(layer.className, clause, node: layer.name)
        }
        var obstacles = tally.obstacles(opNoun: "layer", nodeNoun: "layer") { op in op == "Lambda" ? " (it holds Python code, never run)" : "" }
        var inputs: [SourceOutline.Tensor] = []
        for name in graph.inputNames {
            let shape = graph.inputShapes[name]
            inputs.append(SourceOutline.Tensor(name: name, shape: shape.map { ["?"] + $0.map { $0 < 0 ? "?" : String($0) } }, type: ""))
            let open = (shape ?? []).indices.filter { shape![$0] < 0 }
            guard let shape, !open.isEmpty, shape.count == 3 || shape.count == 1 else { continue }
            let value = "\(name)=1," + shape.map { $0 < 0 ? "?" : String($0) }.joined(separator: ",")
            let option = "\(option: .inputShape) \(value)"
            let axes = open.map { String($0 + 1) }.joined(separator: ", ")
            obstacles.append(.init(kind: .inputShape, message: "input '\(short(name))': size\(open.count == 1 ? " at axis" : "s at axes") \(axes) "
                                   + "open: give \(open.count == 1 ? "it" : "them") with \(option: .inputShape) \(short(value, 34))", input: name, option: option))
        }
        if obstacles.isEmpty, let failure {
            let text = String(mentioning: failure)
            obstacles.append(.init(kind: .other, message: text.hasPrefix("\(path): ") ? String(text.dropFirst(path.count + 2)) : text))
        }
        return SourceOutline(inputs: inputs, outputs: graph.outputNames.map { SourceOutline.Tensor(name: $0, shape: nil, type: "") },
                             nodes: graph.layers.map { SourceOutline.Node(name: $0.name, op: $0.className, inputs: $0.inputs, outputs: [$0.name]) },
                             metadata: [("keras.version", file.kerasVersion)].filter { !$0.1.isEmpty }, obstacles: obstacles)
    }

    /// A name shortened for a one-line message (JSON keeps it whole in its own field).
    static func short(_ name: String, _ limit: Int = 32) -> String { SourceOutline.short(name, limit) }
}

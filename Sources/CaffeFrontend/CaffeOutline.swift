import ModelFormat
import Protobuf

extension CaffeInspection {
    /// The deploy definition at `path` as it states itself, read without
    /// converting it (no weights), with the obstacles found layer by layer:
    /// each layer type convert does not take (count, first layer), each
    /// parameter a ledger refuses and each field BVLC Caffe does not know
    /// (layers alike counted, first named). Layers only for training are
    /// left out, as convert leaves them.
    /// - Throws: `CaffeError` or `FileError` when the file does not parse.
    public static func outline(deploy path: String) throws -> SourceOutline {
        let net = try CaffeConverter.readDeploy(path)
        var tally = SourceOutline.Tally()
        let layers = net.layers.filter { !$0.isTrainingOnly }
        for layer in layers {
            guard CaffeLayerTable.takes(layer.type) else {
                tally.unsupported(layer.type, node: layer.name)
                continue
            }
            var clause = CaffeLedgers.refusal(layer)
            if clause == nil, let field = CaffeLedgers.unknownField(layer) {
                clause = "unknown field \(field.name) (not BVLC Caffe's)"
            }
            guard let clause else { continue }
            tally.refused(layer.type, clause, node: layer.name)
        }
        let obstacles = tally.obstacles(opNoun: "layer type", nodeNoun: "layer")
        var inputs = net.inputs.map { SourceOutline.Tensor(name: $0.name, shape: $0.shape.map(String.init), type: "") }
        for layer in layers where layer.type == "Input" {
            let declared = layer.params.input.map { Array(CArrays.buffer($0.pointee.shape, $0.pointee.n_shape)) } ?? []
            for (index, top) in layer.tops.enumerated() {
                let shape = declared.isEmpty ? nil : declared[min(index, declared.count - 1)]
                inputs.append(SourceOutline.Tensor(name: top, shape: shape.map { CArrays.array($0.pointee.dim, $0.pointee.n_dim).map(String.init) }, type: ""))
            }
        }
        // The tops no layer reads: what convert makes the outputs.
        let read = Set(layers.flatMap(\.bottoms))
        let outputs = layers.flatMap { layer in layer.tops.filter { !read.contains($0) && !layer.bottoms.contains($0) } }
        var outline = SourceOutline(inputs: inputs, outputs: outputs.map { SourceOutline.Tensor(name: $0, shape: nil, type: "") },
                                    nodes: layers.map { SourceOutline.Node(name: $0.name, op: $0.type, inputs: $0.bottoms, outputs: $0.tops) },
                                    obstacles: obstacles)
        outline.format = net.format.rawValue
        return outline
    }

    /// A name shortened for a one-line message (JSON keeps it whole in its own field).
    static func short(_ name: String, _ limit: Int = 32) -> String { SourceOutline.short(name, limit) }
}

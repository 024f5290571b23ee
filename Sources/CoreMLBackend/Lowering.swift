import ModelFormat

/// Which Core ML specification version a model is written at, and the
/// rewriting that lets it be written lower.
///
/// | version | iOS / macOS / tvOS / watchOS | what needs it here |
/// |---|---|---|
/// | 1 | 11 / 10.13 / 11 / 4 | every layer this toolkit writes, clip and a map's log-softmax lowered (`LayerCoding.lowered`) |
/// | 4 | 13 / 10.15 / 13 / 6 | the clip layer, written as one layer; log-softmax as two; the rank-N layers (`LayerCoding`); tensor inputs |
///
/// A network holding a layer added in version 4 runs on Core ML's
/// rank-N path: its array inputs must use `EXACT_ARRAY_MAPPING` and take a
/// rank-4 shape for its convolutions (the validator refuses the RANK5
/// mapping then). A model of [C, H, W] arrays and images gets a leading
/// batch axis on every array feature ([1, C, H, W]; a vector [C] is
/// [1, C, 1, 1]) and image inputs `RANK4_IMAGE_MAPPING`
/// (`ArrayMapping.batchAxis`); a model of tensor inputs is written as
/// shaped (`ArrayMapping.exact`).
public enum SpecificationVersion {
    /// The version `model` is written at, given the lowest the caller
    /// accepts: a layer with a lowering (clip) stays itself only at its
    /// own version and above; the rank-N layers and tensor inputs need version 4.
    public static func chosen(for model: Model, minimum: Int32 = 1) -> Int32 {
        max(minimum, requiredVersion(model))
    }

    /// The lowest version that can hold `model` at all (some layers can be lowered).
    static func requiredVersion(_ model: Model) -> Int32 {
        let layers = mapLayers(model).nodes.compactMap { ($0.operation.definition as? any LayerCoding)?.lowestSpecificationVersion }
        // A detector is a pipeline with non-maximum suppression: specification 3.
        return (layers + (model.hasTensorInputs ? [4] : []) + (model.detector != nil ? [3] : [])).max() ?? 1
    }

    /// Whether `operation` is a layer of version 4 or later as written at
    /// `version` (Core ML then interprets every tensor as rank N, and its
    /// validator requires EXACT_ARRAY_MAPPING: upsampling's version-5
    /// modes count too).
    static func isVersion4Layer(_ operation: Op, at version: Int32) -> Bool {
        ((operation.definition as? any LayerCoding)?.writtenVersion(at: version) ?? 1) >= 4
    }

    /// The layers of `model` that need a specification version above 1 as
    /// written at `version`, in graph order, with what needs it (the Core ML
    /// layer type, or "float16 weights" or "quantized weights": stored
    /// so, they came with versions 2 and 3) and the version it was added in.
    /// A detector's pipeline counts as its model "nonMaximumSuppression"
    /// of type "non-maximum suppression model" (specification 3).
    public static func layersNeedingNewerVersions(_ model: Model, at version: Int32)
        -> [(layer: String, type: String, version: Int32)] {
        (model.detector == nil ? [] : [("nonMaximumSuppression", "non-maximum suppression model", 3)]) + mapLayers(model).nodes.flatMap { node -> [(layer: String, type: String, version: Int32)] in
            var needs: [(layer: String, type: String, version: Int32)] = []
            let precisions = node.operation.weightTensors.map(\.values.storedPrecision)
            if version >= 3, precisions.contains(where: \.isQuantized) {
                needs.append((node.name, "quantized weights", 3))
            } else if version >= 2, precisions.contains(.float16) {
                needs.append((node.name, "float16 weights", 2))
            }
            if isVersion4Layer(node.operation, at: version), let coding = node.operation.definition as? any LayerCoding {
                // The version the layer as written needs (5 for upsampling's newer grids).
                needs.append((node.name, coding.layerTypeName, Swift.max(coding.writtenVersion(at: version), 4)))
            }
            return needs
        }
    }

    /// How the network's array features map to Core ML's tensors.
    static func arrayMapping(_ model: Model, at version: Int32) -> ArrayMapping {
        if model.hasTensorInputs { return .exact }
        return model.nodes.contains { isVersion4Layer($0.operation, at: version) } ? .batchAxis : .rank5
    }

    /// Refuses what the backend cannot write: an operation without a
    /// Core ML layer, a rank-N operation on [C, H, W] maps (only tensor
    /// inputs give it the shapes the IR gave it), a slice no layer takes
    /// as it is (`checkSlice`), tensor inputs mixed
    /// with arrays or with images not taken as tensors, and on tensors a maximum, minimum or average
    /// of differently shaped inputs (those layers have no broadcasting
    /// form for rank N; add and multiply do); an image scale of 0
    /// (`checkImageScalers`).
    /// - Throws: `ModelError` naming the layer or input.
    static func checkWritable(_ model: Model, shapes: [String: TensorShape]) throws(ModelError) {
        try checkImageScalers(model)
        if model.hasTensorInputs, let other = model.inputs.first(where: { input in
            switch input.kind {
            case .tensor: false
            case .image(let image): !image.asTensor
            case .array: true
            }
        }) {
            throw ModelError("input '\(other.name)': a model with tensor inputs takes only tensor inputs")
        }
        for node in model.nodes {
            let definition = node.operation.definition
            switch node.operation {
            case .maximum, .minimum, .average:
                guard model.hasTensorInputs, Set(node.inputs.map { shapes[$0] }).count > 1 else { break }
                throw ModelError(node: node.name, "Core ML cannot broadcast a \(node.operation.kindName) of tensors: "
                                 + "its inputs must have one shape, not \(node.inputs.compactMap { shapes[$0]?.description })")
            case .defined(let op) where op.definition is Reduce && (op.definition as! Reduce).rankNLayerTypeName == nil:
                // Not made the classic layer by `mapLayers`: over other axes, or dropping them.
                let reduce = op.definition as! Reduce
                throw ModelError(node: node.name, "Core ML has no rank-N layer for a reduction of mode \(reduce.mode.rawValue): its reduce layer "
                                 + "takes one over C, H, W, HW or CHW of a [C, H, W] map or [1, C, H, W] tensor, keeping them, "
                                 + "not axes \(reduce.axes)\(reduce.keepDimensions ? "" : " dropped")")
            case .defined(let op) where op.definition is Slice:
                try checkSlice(op.definition as! Slice, node, input: node.inputs.first.flatMap { shapes[$0] }, tensorModel: model.hasTensorInputs)
            default:
                break
            }
            guard let coding = definition as? any LayerCoding else {
                throw ModelError(node: node.name, "Core ML has no layer for the operation '\(definition.kindName)'")
            }
            // A layer on a [1, C, H, W] tensor that Core ML takes as [batch, C, H, W].
            let onBatch = definition.takesBatchedMaps && node.inputs.first.flatMap { shapes[$0] }.map { $0.rank == 4 && $0.dimensions[0] == 1 } == true
            if model.hasTensorInputs, !definition.takesAnyRank, !onBatch {
                throw ModelError(node: node.name, "a \(definition.kindName) on tensor inputs is not written yet "
                                 + "(Core ML takes it on [1, C, H, W] tensors there, the model on [C, H, W])")
            }
            if case .defined = node.operation, !model.hasTensorInputs, !coding.keepsShape {
                throw ModelError(node: node.name, "\(coding.layerTypeName) needs a model with tensor (rank-N) inputs")
            }
        }
    }

    /// `model` with every layer that `version` cannot hold written with
    /// older layers (`LayerCoding.lowered`: clip and log-softmax below
    /// version 4); the last layer of each keeps the node's name and output
    /// tensor. Then, at every version, real zeros Core ML would read as
    /// unset are rewritten (`loweredUnsetZeros`: the lowered layers too).
    public static func lowered(_ model: Model, for version: Int32) -> Model {
        // As written: a model of maps gets its classic layers (`mapLayers`), which need no lowering.
        let written = mapLayers(model).nodes
        func needsLowering(_ node: Node) -> Bool {
            (node.operation.definition as? any LayerCoding).map { version < $0.specificationVersion } ?? false
        }
        guard written.contains(where: needsLowering) else { return loweredUnsetZeros(model) }
        var names = FreshNames(model)
        var result = model
        result.nodes = zip(model.nodes, written).flatMap { node, layer -> [Node] in
            guard needsLowering(layer), let coding = node.operation.definition as? any LayerCoding else { return [node] }
            return coding.lowered(node, at: version, names: &names)
        }
        return loweredUnsetZeros(result)
    }
}

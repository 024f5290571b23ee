import ModelFormat
import CoreMLSchema

// The classic layers of specification 1 that a model of maps (no tensor
// inputs) gets for operations Core ML otherwise writes as rank-N layers:
// a transpose as a permute, a [C, H, W] constant as a load-constant, a
// reduction over a map's axes as the reduce layer (`MapReduce`, which a
// model of tensors gets too for the modes no rank-N layer has), a reshape
// to [C, H, W] as the classic reshape (`SpecificationVersion.mapLayers`).
// Only the writer makes these; the reader reads those layers as the
// operations they are (`Transpose`, `Constant`, `Reduce`, `Reshape`).

/// A `Transpose` of a [C, H, W] map as the permute layer, whose axes
/// reorder [Seq, C, H, W] with Seq staying first.
struct MapPermute: LayerCoding, Equatable {
    let transpose: Transpose

    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_PERMUTE] }
    var kindName: String { "permute" }
    var keepsShape: Bool { true }

    func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        try transpose.outputShapes(inputs, outputCount: outputCount)
    }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.permute, core_ml__specification__permute_layer_params__init) { p in
            (p.n_axis, p.axis) = builder.uint64s([0] + transpose.axes.map { $0 + 1 })
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        try Transpose.decode(layer, name: name, reader)
    }
}

/// A [C, H, W] `Constant` as the load-constant layer.
struct MapConstant: LayerCoding, Equatable {
    let constant: Constant

    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LOAD_CONSTANT] }
    var kindName: String { "constant" }
    var keepsShape: Bool { true }
    var inputCounts: ClosedRange<Int> { 0...0 }

    func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        try constant.outputShapes(inputs, outputCount: outputCount)
    }

    var weightTensors: [NamedWeights] { constant.weightTensors }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.loadconstant, core_ml__specification__load_constant_layer_params__init) { p in
            p.data = builder.shaped(constant.shape, constant.data, "data", &p.n_shape, &p.shape)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        try Constant.decode(layer, name: name, reader)
    }
}

/// A `Reshape` of a map to [C, H, W] as the classic reshape layer, in
/// channel-first or channel-last order.
struct MapReshape: LayerCoding, Equatable {
    let reshape: Reshape

    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_RESHAPE] }
    var kindName: String { "reshape" }
    var keepsShape: Bool { true }

    func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        try reshape.outputShapes(inputs, outputCount: outputCount)
    }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.reshape, core_ml__specification__reshape_layer_params__init) { p in
            (p.n_targetshape, p.targetshape) = builder.int64s(reshape.targetShape)
            p.mode = reshape.order == .channelFirst
                ? CORE_ML__SPECIFICATION__RESHAPE_LAYER_PARAMS__RESHAPE_ORDER__CHANNEL_FIRST
                : CORE_ML__SPECIFICATION__RESHAPE_LAYER_PARAMS__RESHAPE_ORDER__CHANNEL_LAST
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        try Reshape.decode(layer, name: name, reader)
    }
}

extension SpecificationVersion {
    /// The layer cases of `MapPermute`, `MapConstant`, `MapReduce` and
    /// `MapReshape`: a network's layers of these are a map's.
    static let mapLayerCases: Set<UInt32> = [MapPermute.layerCases[0].rawValue, MapConstant.layerCases[0].rawValue,
                                             MapReduce.layerCases[0].rawValue, MapReshape.layerCases[0].rawValue]

    /// `model` with the classic layers of a model of maps (`MapPermute`,
    /// `MapConstant`, `MapReduce`, `MapReshape`); a model of tensor inputs
    /// with the reductions only the classic layer computes (`MapReduce.node`).
    static func mapLayers(_ model: Model) -> Model {
        var result = model
        result.nodes = model.nodes.map { MapReduce.node($0, mapModel: !model.hasTensorInputs) }
        guard !model.hasTensorInputs else { return result }
        for index in result.nodes.indices {
            guard case .defined(let op) = result.nodes[index].operation else { continue }
            if let transpose = op.definition as? Transpose, transpose.axes.count == 3 {
                result.nodes[index].operation = .defined(MapPermute(transpose: transpose))
            } else if let constant = op.definition as? Constant, constant.shape.count == 3 {
                result.nodes[index].operation = .defined(MapConstant(constant: constant))
            } else if let reshape = op.definition as? Reshape, reshape.targetShape.count == 3 {
                result.nodes[index].operation = .defined(MapReshape(reshape: reshape))
            }
        }
        return result
    }
}

import ModelFormat
import CoreMLSchema
import Protobuf

// The classic layers of specification 1 that a model of maps (no tensor
// inputs) gets for operations Core ML otherwise writes as rank-N layers:
// a transpose as a permute, a [C, H, W] constant as a load-constant, a
// reduction over a map's axes as the reduce layer (`MapReduce`, which a
// model of tensors gets too for the modes no rank-N layer has), a reshape
// to [C, H, W] as the classic reshape (`SpecificationVersion.mapLayers`).
// Only the writer makes these; each reads its layer back as the operation
// it is (`Transpose`, `Constant`, `Reduce`, `Reshape`): they join
// `layerCodings` before `allOperations` (`mapLayerCodings`).

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
        let p = layer.permute.pointee
        return .permute(axes: try reader.counts(p.axis, p.n_axis, name, allowZero: true))
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
        let p = layer.loadconstant.pointee
        let (shape, data) = try reader.shaped(p.shape, p.n_shape, p.data, "data", of: name)
        return .constant(shape: shape, data: data)
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

    /// [Seq, C, H, W] targets are read as [C, H, W].
    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.reshape.pointee
        let target = CArrays.array(p.targetshape, p.n_targetshape).map { Int($0) }
        guard target.count == 3 || target.count == 4, target.allSatisfy({ $0 > 0 && $0 <= 1 << 31 }) else {
            throw reader.fail("layer '\(name)': reshape target \(target) is not [C, H, W] or [Seq, C, H, W]", at: layer.reshape)
        }
        return .reshape(targetShape: Array(target.suffix(3)), order: try reader.order(p.mode.rawValue, name, at: layer.reshape))
    }
}

extension SpecificationVersion {
    /// The codings of the classic layers a model of maps gets.
    static let mapLayerCodings: [any LayerCoding.Type] = [MapPermute.self, MapConstant.self, MapReduce.self, MapReshape.self]

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

import ModelFormat
import CoreMLSchema
import Protobuf

/// The rank-N reductions of specification 4 (reduceSum, reduceMean,
/// reduceMax, reduceMin, reduceProd) over any axes; in a model of maps the
/// writer makes a reduction over a map's C, H, W, HW or CHW, kept, the
/// classic reduce layer (`MapReduce`).
/// The other modes (logSum, sumSquare, l1, l2, argmax) are written as
/// that classic layer only (`rankNLayerTypeName` nil).
extension Reduce: LayerCoding {
    /// The rank-N layers in the order of `rankNModes`.
    static var layerCases: [LayerCase] {
        [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_REDUCE_SUM, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_REDUCE_MEAN,
         CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_REDUCE_MAX, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_REDUCE_MIN,
         CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_REDUCE_PROD]
    }
    /// The modes a rank-N layer computes, with that layer's type.
    static let rankNModes: [(mode: Mode, layer: String)] = [
        (.sum, "reduceSum"), (.average, "reduceMean"), (.max, "reduceMax"), (.min, "reduceMin"), (.product, "reduceProd"),
    ]
    var specificationVersion: Int32 { 4 }
    var layerTypeName: String { rankNLayerTypeName ?? "reduce" }
    /// The rank-N layer's type, nil for a mode only the classic layer has.
    var rankNLayerTypeName: String? { Self.rankNModes.first { $0.mode == mode }?.layer }

    /// Written after `SpecificationVersion.checkWritable` refused the
    /// modes without a rank-N layer.
    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        func fill(_ p: inout some ReduceLayerParams) {
            (p.n_axes, p.axesArray) = builder.int64s(axes)
            p.keepdims = keepDimensions ? 1 : 0
        }
        let layerCase = Self.layerCases[Self.rankNModes.firstIndex { $0.mode == mode }!]
        switch mode {
        case .sum: builder.set(layer, layerCase, \.reducesum, core_ml__specification__reduce_sum_layer_params__init) { fill(&$0) }
        case .average: builder.set(layer, layerCase, \.reducemean, core_ml__specification__reduce_mean_layer_params__init) { fill(&$0) }
        case .max: builder.set(layer, layerCase, \.reducemax, core_ml__specification__reduce_max_layer_params__init) { fill(&$0) }
        case .min: builder.set(layer, layerCase, \.reducemin, core_ml__specification__reduce_min_layer_params__init) { fill(&$0) }
        case .product: builder.set(layer, layerCase, \.reduceprod, core_ml__specification__reduce_prod_layer_params__init) { fill(&$0) }
        case .logSum, .sumSquare, .l1, .l2, .argmax: preconditionFailure("\(mode) has no rank-N layer: refused before writing")
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let params: any ReduceLayerParams = switch layer.layer_case {
        case layerCases[0]: layer.reducesum.pointee
        case layerCases[1]: layer.reducemean.pointee
        case layerCases[2]: layer.reducemax.pointee
        case layerCases[3]: layer.reducemin.pointee
        default: layer.reduceprod.pointee
        }
        guard params.reduceall == 0 else { throw reader.fail("layer '\(name)': reduceAll is not supported: name the axes", at: nil) }
        let mode = rankNModes[layerCases.firstIndex(of: layer.layer_case)!].mode
        return .reduce(Reduce(mode: mode, axes: try reader.integers(params.axesArray, params.n_axes, "axes", name),
                              keepDimensions: params.keepdims != 0))
    }

    /// The classic layer's ReduceAxis (CHW = 0 ... W = 4) of a reduction
    /// of [C, H, W] maps, when it is one over a map's axes, kept; a
    /// non-negative axis counts from the front of [C, H, W] in a model of
    /// maps (`mapModel`), and is not a map's otherwise.
    func mapAxis(mapModel: Bool) -> Int? {
        guard keepDimensions, axes.allSatisfy({ mapModel ? (-3..<3).contains($0) : (-3 ..< 0).contains($0) }) else { return nil }
        let counted = axes.map { $0 < 0 ? $0 : $0 - 3 }.sorted()
        guard Set(counted).count == counted.count else { return nil }
        return Self.mapAxes.firstIndex { $0.axes == counted }
    }
}

/// A `Reduce` over a map's C, H, W, HW or CHW as the classic reduce layer
/// of specification 1 (ReduceLayerParams), which takes every mode; Core ML
/// applies it to the last three axes of a [1, C, H, W] tensor too.
struct MapReduce: LayerCoding, Equatable {
    var reduce: Reduce
    /// The layer's ReduceAxis: an index of `Reduce.mapAxes`.
    let axis: Int

    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_REDUCE] }
    var kindName: String { "reduce" }
    var keepsShape: Bool { true }
    // On tensors, only [1, C, H, W] ones (`SpecificationVersion.checkWritable`).
    var takesAnyRank: Bool { false }

    func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        try reduce.outputShapes(inputs, outputCount: outputCount)
    }

    /// ReduceOperation's cases are `Reduce.Mode`'s, in its order.
    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.reduce, core_ml__specification__reduce_layer_params__init) { p in
            p.mode = .init(UInt32(Reduce.Mode.allCases.firstIndex(of: reduce.mode)!))
            p.axis = .init(UInt32(axis))
            p.epsilon = reduce.epsilon  // Core ML reads 0 as 1e-6 (LOGSUM adds it): a real 0 was rewritten (`loweredUnsetZeros`)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let params = layer.reduce!
        let p = params.pointee
        let modes = Reduce.Mode.allCases
        guard Int(p.mode.rawValue) < modes.count, Int(p.axis.rawValue) < Reduce.mapAxes.count else {
            throw reader.fail("layer '\(name)' has the unknown reduction \(p.mode.rawValue) over axes \(p.axis.rawValue)", at: params)
        }
        let mode = modes[Int(p.mode.rawValue)]
        return .reduce(Reduce(mode: mode, axes: Reduce.mapAxes[Int(p.axis.rawValue)].axes,
                              epsilon: mode == .logSum ? UnsetZero.read(p.epsilon, default: 1e-6) : p.epsilon))
    }

    /// `node` with its reduction as this layer when it is one over a map's
    /// axes: in a model of maps (`mapModel`) any, in a model of tensors
    /// one that no rank-N layer computes (argmax of a [1, C, H, W] class
    /// map); otherwise `node` as it is.
    static func node(_ node: Node, mapModel: Bool) -> Node {
        guard case .defined(let op) = node.operation, let reduce = op.definition as? Reduce,
              mapModel || reduce.rankNLayerTypeName == nil, let axis = reduce.mapAxis(mapModel: mapModel) else { return node }
        var result = node
        result.operation = .defined(MapReduce(reduce: reduce, axis: axis))
        return result
    }
}

/// The five reduction messages share their fields.
protocol ReduceLayerParams {
    var n_axes: Int { get set }
    /// `axes` (which C imports with a type a protocol cannot state).
    var axesArray: UnsafeMutablePointer<Int64>? { get set }
    var keepdims: protobuf_c_boolean { get set }
    var reduceall: protobuf_c_boolean { get set }
}

extension CoreML__Specification__ReduceSumLayerParams: ReduceLayerParams {
    var axesArray: UnsafeMutablePointer<Int64>? { get { axes } set { axes = newValue } }
}
extension CoreML__Specification__ReduceMeanLayerParams: ReduceLayerParams {
    var axesArray: UnsafeMutablePointer<Int64>? { get { axes } set { axes = newValue } }
}
extension CoreML__Specification__ReduceMaxLayerParams: ReduceLayerParams {
    var axesArray: UnsafeMutablePointer<Int64>? { get { axes } set { axes = newValue } }
}
extension CoreML__Specification__ReduceMinLayerParams: ReduceLayerParams {
    var axesArray: UnsafeMutablePointer<Int64>? { get { axes } set { axes = newValue } }
}
extension CoreML__Specification__ReduceProdLayerParams: ReduceLayerParams {
    var axesArray: UnsafeMutablePointer<Int64>? { get { axes } set { axes = newValue } }
}

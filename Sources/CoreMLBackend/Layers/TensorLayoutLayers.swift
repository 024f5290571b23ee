import ModelFormat
import CoreMLSchema
import Protobuf

// The rank-N layout layers of specification 4: reshapeStatic, concatND,
// sliceStatic, and the reductions reduceSum, reduceMean, reduceMax,
// reduceMin and reduceProd.

/// reshapeStatic of specification 4; in a model of maps the writer makes a
/// reshape to [C, H, W] the classic reshape layer (`MapReshape`), read back
/// as the reshape it is ([Seq, C, H, W] targets as [C, H, W]).
extension Reshape: LayerCoding {
    static var layerCases: [LayerCase] {
        [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_RESHAPE_STATIC, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_RESHAPE]
    }
    var specificationVersion: Int32 { 4 }
    var layerTypeName: String { "reshapeND" }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.reshapestatic, core_ml__specification__reshape_static_layer_params__init) { p in
            (p.n_targetshape, p.targetshape) = builder.int64s(targetShape)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        if layer.layer_case == layerCases[1] {
            let p = layer.reshape.pointee
            let target = CArrays.array(p.targetshape, p.n_targetshape).map { Int($0) }
            guard target.count == 3 || target.count == 4, target.allSatisfy({ $0 > 0 && $0 <= 1 << 31 }) else {
                throw reader.fail("layer '\(name)': reshape target \(target) is not [C, H, W] or [Seq, C, H, W]", at: layer.reshape)
            }
            return .reshape(targetShape: Array(target.suffix(3)), order: try reader.order(p.mode.rawValue, name, at: layer.reshape))
        }
        let p = layer.reshapestatic.pointee
        return .reshape(targetShape: try reader.integers(p.targetshape, p.n_targetshape, "targetShape", name))
    }
}

/// Along channels (axis -3), the classic concat layer of specification 1
/// (Core ML joins axis -3 of rank-N tensors with it too); along any other
/// axis, concatND.
extension Concat: AxisLayerCoding {
    static var layerCases: [LayerCase] {
        [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CONCAT, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CONCAT_ND]
    }
    static var layerTypeNames: (classic: String, rankN: String) { ("concat", "concatND") }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        if isClassic {
            builder.set(layer, Self.layerCases[0], \.concat, core_ml__specification__concat_layer_params__init)
        } else {
            builder.set(layer, Self.layerCases[1], \.concatnd, core_ml__specification__concat_ndlayer_params__init) { $0.axis = Int64(axis) }
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        if layer.layer_case == layerCases[0] {
            guard layer.concat.pointee.sequenceconcat == 0 else {
                throw reader.fail("layer '\(name)': sequence concatenation is not supported", at: layer.concat)
            }
            return .concat
        }
        let p = layer.concatnd.pointee
        guard p.interleave == 0 else { throw reader.fail("layer '\(name)': interleaved concatenation is not supported", at: layer.concatnd) }
        return .defined(Concat(axis: try reader.integers([p.axis], "axis", name)[0]))
    }
}

/// Written with explicit bounds on every axis: no masks, no squeezed axes.
extension SliceND: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SLICE_STATIC] }
    var specificationVersion: Int32 { 4 }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.slicestatic, core_ml__specification__slice_static_layer_params__init) { p in
            (p.n_beginids, p.beginids) = builder.int64s(begin)
            (p.n_endids, p.endids) = builder.int64s(end)
            (p.n_strides, p.strides) = builder.int64s(strides)
            let none = Array(repeating: false, count: begin.count)
            (p.n_beginmasks, p.beginmasks) = builder.bools(none)
            (p.n_endmasks, p.endmasks) = builder.bools(none)
            (p.n_squeezemasks, p.squeezemasks) = builder.bools(none)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let params = layer.slicestatic!
        let p = params.pointee
        let masks = CArrays.array(p.beginmasks, p.n_beginmasks) + CArrays.array(p.endmasks, p.n_endmasks)
            + CArrays.array(p.squeezemasks, p.n_squeezemasks)
        guard masks.allSatisfy({ $0 == 0 }) else {
            throw reader.fail("layer '\(name)': slices with begin, end or squeeze masks are not supported", at: params)
        }
        return .defined(SliceND(begin: try reader.integers(p.beginids, p.n_beginids, "beginIds", name),
                                end: try reader.integers(p.endids, p.n_endids, "endIds", name),
                                strides: try reader.integers(p.strides, p.n_strides, "strides", name)))
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

extension ReduceND: LayerCoding {
    /// In the order of `Mode.allCases`: sum, mean, max, min, product.
    static var layerCases: [LayerCase] {
        [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_REDUCE_SUM, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_REDUCE_MEAN,
         CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_REDUCE_MAX, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_REDUCE_MIN,
         CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_REDUCE_PROD]
    }
    var specificationVersion: Int32 { 4 }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        func fill(_ p: inout some ReduceLayerParams) {
            (p.n_axes, p.axesArray) = builder.int64s(axes)
            p.keepdims = keepDimensions ? 1 : 0
        }
        let layerCase = Self.layerCases[Mode.allCases.firstIndex(of: mode)!]
        switch mode {
        case .sum: builder.set(layer, layerCase, \.reducesum, core_ml__specification__reduce_sum_layer_params__init) { fill(&$0) }
        case .mean: builder.set(layer, layerCase, \.reducemean, core_ml__specification__reduce_mean_layer_params__init) { fill(&$0) }
        case .max: builder.set(layer, layerCase, \.reducemax, core_ml__specification__reduce_max_layer_params__init) { fill(&$0) }
        case .min: builder.set(layer, layerCase, \.reducemin, core_ml__specification__reduce_min_layer_params__init) { fill(&$0) }
        case .product: builder.set(layer, layerCase, \.reduceprod, core_ml__specification__reduce_prod_layer_params__init) { fill(&$0) }
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
        let mode = Mode.allCases[layerCases.firstIndex(of: layer.layer_case)!]
        return .defined(ReduceND(mode: mode, axes: try reader.integers(params.axesArray, params.n_axes, "axes", name),
                                 keepDimensions: params.keepdims != 0))
    }
}

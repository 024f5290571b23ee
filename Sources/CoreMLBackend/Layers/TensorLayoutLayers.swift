import ModelFormat
import CoreMLSchema
import Protobuf

// The rank-N layout layers of specification 4: reshapeStatic and
// concatND (sliceStatic: SliceLayer.swift).

/// reshapeStatic of specification 4; in a model of maps the writer makes a
/// reshape to [C, H, W] the classic reshape layer (`MapReshape`).
extension Reshape: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_RESHAPE_STATIC] }
    var specificationVersion: Int32 { 4 }
    var layerTypeName: String { "reshapeStatic" }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.reshapestatic, core_ml__specification__reshape_static_layer_params__init) { p in
            (p.n_targetshape, p.targetshape) = builder.int64s(targetShape)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.reshapestatic.pointee
        return .reshape(targetShape: try reader.integers(p.targetshape, p.n_targetshape, "targetShape", name))
    }
}

/// Along channels (axis -3), the classic concat layer of specification 1
/// (Core ML joins axis -3 of rank-N tensors with it too); along any other
/// axis, concatND.
extension Concat: AxisLayerCoding {
    static var layers: AxisLayers<CoreML__Specification__ConcatLayerParams, CoreML__Specification__ConcatNDLayerParams> {
        AxisLayers(classic: (CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CONCAT, "concat", \.concat,
                             core_ml__specification__concat_layer_params__init),
                   rankN: (CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CONCAT_ND, "concatND", \.concatnd,
                           core_ml__specification__concat_ndlayer_params__init, \.axis))
    }

    static func unsupported(classic: CoreML__Specification__ConcatLayerParams) -> String? {
        classic.sequenceconcat != 0 ? "sequence concatenation" : nil
    }
    static func unsupported(rankN: CoreML__Specification__ConcatNDLayerParams) -> String? {
        rankN.interleave != 0 ? "interleaved concatenation" : nil
    }
}

import ModelFormat
import CoreMLSchema
import Protobuf

// The rank-N layout layers of specification 4: reshapeStatic and
// concatND (sliceStatic: SliceLayer.swift).

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
        encode(into: layer, builder, classic: \.concat, core_ml__specification__concat_layer_params__init,
               rankN: \.concatnd, core_ml__specification__concat_ndlayer_params__init, axis: \.axis)
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

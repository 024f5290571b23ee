import ModelFormat
import CoreMLSchema

/// The running sum as the specification-4 `cumSum` layer (its axis as a
/// parameter, not a second input). On a [C, H, W] map, written with a
/// batch axis, an axis counted from the end is the same (`keepsShape`).
extension CumSum: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CUM_SUM] }
    var specificationVersion: Int32 { 4 }
    var keepsShape: Bool { axis < 0 }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.cumsum, core_ml__specification__cum_sum_layer_params__init) { p in
            p.axis = Int64(axis)
            p.excludefinalsum = exclusive ? 1 : 0
            p.reverse = reverse ? 1 : 0
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.cumsum.pointee
        guard p.axis.magnitude <= 1 << 16 else { throw reader.fail("layer '\(name)': cumulative sum axis \(p.axis) is out of range", at: layer.cumsum) }
        return .defined(CumSum(axis: Int(p.axis), exclusive: p.excludefinalsum != 0, reverse: p.reverse != 0))
    }
}

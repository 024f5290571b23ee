import ModelFormat
import CoreMLSchema

/// Comparisons and logic as Core ML's specification-4 layers, one case
/// per kind (`Comparison.Kind.allCases` in `layerCases`' order); they
/// broadcast from the last axis, so a map written with a batch axis
/// compares the same (`keepsShape`).
extension Comparison: LayerCoding {
    static var layerCases: [LayerCase] {
        [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_EQUAL, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_NOT_EQUAL,
         CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LESS_THAN, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LESS_EQUAL,
         CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_GREATER_THAN, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_GREATER_EQUAL,
         CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LOGICAL_AND, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LOGICAL_OR,
         CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LOGICAL_XOR, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LOGICAL_NOT]
    }
    var specificationVersion: Int32 { 4 }
    var keepsShape: Bool { true }
    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        let layerCase = Self.layerCases[Kind.allCases.firstIndex(of: kind)!]
        switch kind {
        case .equal: builder.set(layer, layerCase, \.equal, core_ml__specification__equal_layer_params__init) { $0.alpha = alpha }
        case .notEqual: builder.set(layer, layerCase, \.notequal, core_ml__specification__not_equal_layer_params__init) { $0.alpha = alpha }
        case .less: builder.set(layer, layerCase, \.lessthan, core_ml__specification__less_than_layer_params__init) { $0.alpha = alpha }
        case .lessOrEqual: builder.set(layer, layerCase, \.lessequal, core_ml__specification__less_equal_layer_params__init) { $0.alpha = alpha }
        case .greater: builder.set(layer, layerCase, \.greaterthan, core_ml__specification__greater_than_layer_params__init) { $0.alpha = alpha }
        case .greaterOrEqual:
            builder.set(layer, layerCase, \.greaterequal, core_ml__specification__greater_equal_layer_params__init) { $0.alpha = alpha }
        case .and: builder.set(layer, layerCase, \.logicaland, core_ml__specification__logical_and_layer_params__init)
        case .or: builder.set(layer, layerCase, \.logicalor, core_ml__specification__logical_or_layer_params__init)
        case .xor: builder.set(layer, layerCase, \.logicalxor, core_ml__specification__logical_xor_layer_params__init)
        case .not: builder.set(layer, layerCase, \.logicalnot, core_ml__specification__logical_not_layer_params__init)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let kind = Kind.allCases[layerCases.firstIndex(of: layer.layer_case)!]
        let alpha: Float = switch kind {
        case .equal: layer.equal.pointee.alpha
        case .notEqual: layer.notequal.pointee.alpha
        case .less: layer.lessthan.pointee.alpha
        case .lessOrEqual: layer.lessequal.pointee.alpha
        case .greater: layer.greaterthan.pointee.alpha
        case .greaterOrEqual: layer.greaterequal.pointee.alpha
        case .and, .or, .xor, .not: 0
        }
        return .defined(Comparison(kind, alpha: alpha))
    }
}

/// Where as the specification-4 whereBroadcastable layer.
extension Where: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_WHERE_BROADCASTABLE] }
    var specificationVersion: Int32 { 4 }
    var keepsShape: Bool { true }
    var layerTypeName: String { "whereBroadcastable" }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.wherebroadcastable, core_ml__specification__where_broadcastable_layer_params__init)
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        .defined(Where())
    }
}

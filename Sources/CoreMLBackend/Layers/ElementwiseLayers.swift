import ModelFormat
import CoreMLSchema

/// Add, multiply, max, min and average; on tensors (`ArrayMapping.exact`)
/// an add or multiply of several inputs is written as its broadcastable
/// layer, which broadcasts as numpy does.
extension Elementwise: LayerCoding {
    static var layerCases: [LayerCase] {
        [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_ADD, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_MULTIPLY,
         CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_MAX, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_MIN,
         CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_AVERAGE,
         CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_ADD_BROADCASTABLE,
         CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_MULTIPLY_BROADCASTABLE]
    }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        let broadcastable = builder.arrayMapping == .exact && node.inputs.count > 1
        switch kind {
        case .add where broadcastable:
            builder.set(layer, Self.layerCases[5], \.addbroadcastable, core_ml__specification__add_broadcastable_layer_params__init)
        case .multiply where broadcastable:
            builder.set(layer, Self.layerCases[6], \.multiplybroadcastable, core_ml__specification__multiply_broadcastable_layer_params__init)
        case .add:
            builder.set(layer, Self.layerCases[0], \.add, core_ml__specification__add_layer_params__init) { $0.alpha = constant }
        case .multiply:
            builder.set(layer, Self.layerCases[1], \.multiply, core_ml__specification__multiply_layer_params__init) { $0.alpha = constant }
        case .maximum:
            builder.set(layer, Self.layerCases[2], \.max, core_ml__specification__max_layer_params__init)
        case .minimum:
            builder.set(layer, Self.layerCases[3], \.min, core_ml__specification__min_layer_params__init)
        case .average:
            builder.set(layer, Self.layerCases[4], \.average, core_ml__specification__average_layer_params__init)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        switch layer.layer_case {
        case layerCases[0]: .add(constant: layer.add.pointee.alpha)
        case layerCases[1]: .multiply(constant: layer.multiply.pointee.alpha)
        case layerCases[2]: .maximum
        case layerCases[3]: .minimum
        case layerCases[4]: .average
        case layerCases[5]: .add(constant: 0)
        default: .multiply(constant: 1)
        }
    }
}

import ModelFormat
import ProtoSchemas

/// GELU as the specification-4 `gelu` layer.
extension GELU: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_GELU] }
    var specificationVersion: Int32 { 4 }
    static var keepsShape: Bool { true }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.gelu, core_ml__specification__gelu_layer_params__init) { p in
            p.mode = switch mode {
            case .exact: CORE_ML__SPECIFICATION__GELU_LAYER_PARAMS__GELU_MODE__EXACT
            case .tanhApproximation: CORE_ML__SPECIFICATION__GELU_LAYER_PARAMS__GELU_MODE__TANH_APPROXIMATION
            case .sigmoidApproximation: CORE_ML__SPECIFICATION__GELU_LAYER_PARAMS__GELU_MODE__SIGMOID_APPROXIMATION
            }
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        switch layer.gelu.pointee.mode {
        case CORE_ML__SPECIFICATION__GELU_LAYER_PARAMS__GELU_MODE__EXACT: .defined(GELU(mode: .exact))
        case CORE_ML__SPECIFICATION__GELU_LAYER_PARAMS__GELU_MODE__TANH_APPROXIMATION: .defined(GELU(mode: .tanhApproximation))
        case CORE_ML__SPECIFICATION__GELU_LAYER_PARAMS__GELU_MODE__SIGMOID_APPROXIMATION: .defined(GELU(mode: .sigmoidApproximation))
        default: throw reader.fail("layer '\(name)' has the unknown GELU mode \(layer.gelu.pointee.mode.rawValue)", at: layer.gelu)
        }
    }
}

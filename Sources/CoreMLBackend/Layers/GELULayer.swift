import ModelFormat
import ProtoSchemas

/// GELU as the specification-4 `gelu` layer.
extension GELU: LayerCoding {
    static var layerCase: CoreML__Specification__NeuralNetworkLayer__LayerCase {
        CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_GELU
    }
    static var specificationVersion: Int32 { 4 }
    static var keepsShape: Bool { true }

    func encode(into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        let params: UnsafeMutablePointer<CoreML__Specification__GeluLayerParams> =
            builder.new(core_ml__specification__gelu_layer_params__init)
        params.pointee.mode = switch mode {
        case .exact: CORE_ML__SPECIFICATION__GELU_LAYER_PARAMS__GELU_MODE__EXACT
        case .tanhApproximation: CORE_ML__SPECIFICATION__GELU_LAYER_PARAMS__GELU_MODE__TANH_APPROXIMATION
        case .sigmoidApproximation: CORE_ML__SPECIFICATION__GELU_LAYER_PARAMS__GELU_MODE__SIGMOID_APPROXIMATION
        }
        layer.pointee.layer_case = Self.layerCase
        layer.pointee.gelu = params
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> GELU {
        switch layer.gelu.pointee.mode {
        case CORE_ML__SPECIFICATION__GELU_LAYER_PARAMS__GELU_MODE__EXACT: GELU(mode: .exact)
        case CORE_ML__SPECIFICATION__GELU_LAYER_PARAMS__GELU_MODE__TANH_APPROXIMATION: GELU(mode: .tanhApproximation)
        case CORE_ML__SPECIFICATION__GELU_LAYER_PARAMS__GELU_MODE__SIGMOID_APPROXIMATION: GELU(mode: .sigmoidApproximation)
        default: throw reader.fail("layer '\(name)' has the unknown GELU mode \(layer.gelu.pointee.mode.rawValue)", at: layer.gelu)
        }
    }
}

import ModelFormat
import CoreMLSchema

/// GELU as the specification-4 `gelu` layer.
extension GELU: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_GELU] }
    var specificationVersion: Int32 { 4 }
    var keepsShape: Bool { true }
    /// GeluLayerParams' GeluMode in the order of its numbers (EXACT = 0,
    /// TANH_APPROXIMATION, SIGMOID_APPROXIMATION): one table for writing and reading.
    static let modes: [Mode] = [.exact, .tanhApproximation, .sigmoidApproximation]

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.gelu, core_ml__specification__gelu_layer_params__init) {
            $0.mode = .init(UInt32(Self.modes.firstIndex(of: mode)!))
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let raw = Int(layer.gelu.pointee.mode.rawValue)
        guard raw < modes.count else { throw reader.fail("layer '\(name)' has the unknown GELU mode \(raw)", at: layer.gelu) }
        return .defined(GELU(mode: modes[raw]))
    }
}

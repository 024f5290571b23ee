import ModelFormat
import ProtoSchemas
import Protobuf

/// Layer normalization as the specification-4 `layerNormalization` layer
/// (normalizedShape, eps, gamma, beta), which Core ML's validator takes
/// only with gamma and beta, float32 values of the normalized shape's
/// product: an absent gamma is written as ones and an absent beta as
/// zeros, and read back absent (the same computation). The layer works on
/// the last axes, so a leading batch axis changes nothing (`keepsShape`).
extension LayerNorm: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LAYER_NORMALIZATION] }
    var specificationVersion: Int32 { 4 }
    var keepsShape: Bool { true }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        let count = normalizedShape.checkedProduct ?? 0  // bounded by the input's size: shapes are inferred before writing
        builder.set(layer, Self.layerCases[0], \.layernormalization, core_ml__specification__layer_normalization_layer_params__init) { p in
            (p.n_normalizedshape, p.normalizedshape) = builder.int64s(normalizedShape)
            p.eps = epsilon
            p.gamma = builder.weights(gamma ?? Weights([Float](repeating: 1, count: count)), "gamma", float32Only: true)
            p.beta = builder.weights(beta ?? Weights([Float](repeating: 0, count: count)), "beta", float32Only: true)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.layernormalization.pointee
        let shape = try reader.integers(p.normalizedshape, p.n_normalizedshape, "normalized shape", name)
        guard !shape.isEmpty, shape.allSatisfy({ $0 > 0 }) else {
            throw reader.fail("layer '\(name)': normalized shape \(shape) is not one or more positive sizes", at: nil)
        }
        let gamma = try reader.weights(p.gamma, "gamma", of: name)
        let beta = try reader.weights(p.beta, "beta", of: name)
        let isOnes = gamma.isLoaded && gamma.withUnsafeBufferPointer { $0.allSatisfy { $0 == 1 } }
        let isZeros = beta.isLoaded && beta.withUnsafeBufferPointer { $0.allSatisfy { $0 == 0 } }
        return .defined(LayerNorm(normalizedShape: shape, epsilon: p.eps, gamma: isOnes ? nil : gamma, beta: isZeros ? nil : beta))
    }
}

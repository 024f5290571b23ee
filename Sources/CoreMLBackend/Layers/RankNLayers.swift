import ModelFormat
import CoreMLSchema

// The specification-4 layers behind the rank-N operations.

extension MatMul: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_BATCHED_MATMUL] }
    var specificationVersion: Int32 { 4 }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.batchedmatmul, core_ml__specification__batched_mat_mul_layer_params__init) { p in
            p.transposea = transposeA ? 1 : 0
            p.transposeb = transposeB ? 1 : 0
            if let weights {
                p.weightmatrixfirstdimension = UInt64(inputChannels)
                p.weightmatrixseconddimension = UInt64(outputChannels)
                builder.weightsAndBias(weights, bias, channels: nil, &p.weights, &p.hasbias, &p.bias)
            }
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.batchedmatmul.pointee
        guard p.weights != nil else { return .defined(MatMul(transposeA: p.transposea != 0, transposeB: p.transposeb != 0)) }
        guard layer.n_input == 1 else {
            throw reader.fail("layer '\(name)': a batched matmul with weights takes one input, not \(layer.n_input)", at: layer.batchedmatmul)
        }
        var product = MatMul(inputChannels: try reader.count(p.weightmatrixfirstdimension, "weightMatrixFirstDimension", name),
                             outputChannels: try reader.count(p.weightmatrixseconddimension, "weightMatrixSecondDimension", name),
                             weights: try reader.weights(p.weights, "weights", of: name),
                             bias: try reader.optionalWeights(p.hasbias, p.bias, "bias", of: name))
        product.transposeA = p.transposea != 0
        product.transposeB = p.transposeb != 0
        return .defined(product)
    }
}

/// Over channels (axis -3), the classic softmax layer of specification 1
/// (Core ML takes axis -3 of rank-N tensors with it too); along any other
/// axis, softmaxND.
extension Softmax: AxisLayerCoding {
    static var layers: AxisLayers<CoreML__Specification__SoftmaxLayerParams, CoreML__Specification__SoftmaxNDLayerParams> {
        AxisLayers(classic: (CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SOFTMAX, "softmax", \.softmax,
                             core_ml__specification__softmax_layer_params__init),
                   rankN: (CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SOFTMAX_ND, "softmaxND", \.softmaxnd,
                           core_ml__specification__softmax_ndlayer_params__init, \.axis))
    }
}

/// The transpose layer of specification 4; in a model of maps the writer
/// makes it the classic permute layer (`MapPermute`).
extension Transpose: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_TRANSPOSE] }
    var specificationVersion: Int32 { 4 }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.transpose, core_ml__specification__transpose_layer_params__init) { p in
            (p.n_axes, p.axes) = builder.uint64s(axes)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.transpose.pointee
        return .defined(Transpose(axes: try reader.counts(p.axes, p.n_axes, name, allowZero: true)))
    }
}

extension Model {
    /// Checks that the model holds together: unique layer and tensor names,
    /// every tensor produced before it is read (which also rules out
    /// cycles), weight counts that fit their layers, outputs that exist,
    /// and a classifier whose probabilities tensor exists and has one value
    /// per label.
    /// - Returns: the shape of every tensor.
    /// - Throws: `ModelError` naming the first problem.
    @discardableResult
    public func validate() throws(ModelError) -> [String: TensorShape] {
        guard !inputs.isEmpty else { throw ModelError("the model has no inputs") }
        var produced = Set<String>()
        for input in inputs {
            guard !input.name.isEmpty else { throw ModelError("an input has an empty name") }
            guard produced.insert(input.name).inserted else { throw ModelError("two inputs are named '\(input.name)'") }
        }
        var layerNames = Set<String>()
        for node in nodes {
            guard !node.name.isEmpty else { throw ModelError("a layer has an empty name") }
            guard layerNames.insert(node.name).inserted else { throw ModelError("two layers are named '\(node.name)'") }
            for output in node.outputs where !produced.insert(output).inserted {
                throw ModelError(node: node.name, "tensor '\(output)' is already produced by an input or an earlier layer")
            }
            try node.checkWeightCounts()
        }
        let shapes = try ShapeInference.shapes(of: self)
        for output in outputs where shapes[output.name] == nil {
            throw ModelError("output '\(output.name)' is not produced by any layer")
        }
        if let classifier {
            guard classifier.labels.count > 0 else { throw ModelError("the classifier has no class labels") }
            guard let probabilities = shapes[classifier.probabilitiesName] else {
                throw ModelError("the classifier's probabilities tensor '\(classifier.probabilitiesName)' is not produced by any layer")
            }
            guard probabilities.count == classifier.labels.count else {
                throw ModelError("\(classifier.labels.count) class labels for \(probabilities.count) probabilities in '\(classifier.probabilitiesName)'")
            }
        }
        return shapes
    }
}

extension Node {
    /// Checks that every weight tensor has the number of values the
    /// operation's attributes call for.
    func checkWeightCounts() throws(ModelError) {
        func expect(_ weights: Weights?, _ count: Int, _ what: String) throws(ModelError) {
            guard let weights else { return }
            guard weights.count == count else {
                throw ModelError(node: name, "\(what) has \(weights.count) values, expected \(count)")
            }
        }
        switch operation {
        case .convolution(let conv):
            if case .includeLastPixel = conv.padding {
                throw ModelError(node: name, "a convolution cannot use pooling's include-last-pixel padding")
            }
            try expect(conv.weights, conv.expectedWeightCount, "weights")
            try expect(conv.bias, conv.outputChannels, "bias")
        case .innerProduct(let product):
            try expect(product.weights, product.inputChannels * product.outputChannels, "weights")
            try expect(product.bias, product.outputChannels, "bias")
        case .batchNorm(let norm):
            for (weights, what) in [(norm.gamma, "gamma"), (norm.beta, "beta"), (norm.mean, "mean"), (norm.variance, "variance")] {
                try expect(weights, norm.channels, what)
            }
        case .scale(let scale):
            try expect(scale.scale, scale.shape.reduce(1, *), "scale")
            try expect(scale.bias, scale.biasShape.reduce(1, *), "bias")
        case .bias(let bias):
            try expect(bias.bias, bias.shape.reduce(1, *), "bias")
        case .constant(let shape, let data):
            try expect(data, shape.reduce(1, *), "constant")
        default:
            break
        }
    }
}

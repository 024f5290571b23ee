extension Model {
    /// Checks that the model holds together and that Core ML will load it as
    /// this toolkit means it (the rules of Core ML's validator that a
    /// writer can break, and what NeuralNetwork.proto states beyond them):
    ///
    /// - at least one input, one layer and one output (a classifier's two
    ///   features count); names unique and not empty;
    /// - every tensor produced once, before it is read (no cycles);
    /// - every output, and a classifier's probabilities, produced by a layer
    ///   (an output that is a model input is not), output names distinct
    ///   from each other and from the classifier's features, a declared
    ///   output shape equal to the computed one;
    /// - a detector's tensors and thresholds as `checkDetector` states;
    /// - each layer's attributes within bounds and its weights the size its
    ///   attributes call for, not empty (`ShapeInference`, `checkWeightCounts`);
    /// - image preprocessing finite, a mean image of C x H x W values;
    /// - class labels one per probability, unique, and not empty.
    /// - Returns: the shape of every tensor.
    /// - Throws: `ModelError` naming the first problem.
    @discardableResult
    public func validate() throws(ModelError) -> [String: TensorShape] {
        guard !inputs.isEmpty else { throw ModelError("the model has no inputs") }
        guard !nodes.isEmpty else { throw ModelError("the model has no layers (Core ML needs at least one)") }
        guard !outputs.isEmpty || classifier != nil else { throw ModelError("the model has no outputs") }
        var produced = Set<String>()
        for input in inputs {
            guard !input.name.isEmpty else { throw ModelError("an input has an empty name") }
            guard produced.insert(input.name).inserted else { throw ModelError("two inputs are named '\(input.name)'") }
            if let image = input.image { try image.check(input: input.name) }
        }
        var layerNames = Set<String>()
        for node in nodes {
            guard !node.name.isEmpty else { throw ModelError("a layer has an empty name") }
            guard layerNames.insert(node.name).inserted else { throw ModelError("two layers are named '\(node.name)'") }
            for output in node.outputs {
                guard !output.isEmpty else { throw ModelError(node: node.name, "an output tensor has an empty name") }
                guard produced.insert(output).inserted else {
                    throw ModelError(node: node.name, "tensor '\(output)' is already produced by an input or an earlier layer")
                }
            }
            try node.checkWeightCounts()
        }
        let shapes = try ShapeInference.shapes(of: self)
        let layerOutputs = Set(nodes.flatMap(\.outputs))
        var outputNames = Set<String>()
        if let classifier { try checkClassifier(classifier, shapes: shapes, layerOutputs: layerOutputs, names: &outputNames) }
        for output in outputs {
            guard !output.name.isEmpty else { throw ModelError("an output has an empty name") }
            guard outputNames.insert(output.name).inserted else {
                throw ModelError("output '\(output.name)' is named twice, or like a classifier feature")
            }
            guard layerOutputs.contains(output.name), let shape = shapes[output.name] else {
                throw ModelError(inputs.contains { $0.name == output.name }
                    ? "output '\(output.name)' is a model input, not produced by any layer"
                    : "output '\(output.name)' is not produced by any layer")
            }
            guard output.shape.isEmpty || output.shape == shape.featureShape || output.shape == shape.dimensions else {
                throw ModelError("output '\(output.name)' is declared \(output.shape), the layers give \(shape.featureShape)")
            }
        }
        if let detector { try checkDetector(detector, shapes: shapes) }
        return shapes
    }

    func checkClassifier(_ classifier: Classifier, shapes: [String: TensorShape], layerOutputs: Set<String>,
                         names: inout Set<String>) throws(ModelError) {
        let predicted = classifier.predictedFeatureName, probabilities = classifier.probabilitiesName
        guard !predicted.isEmpty, !probabilities.isEmpty else { throw ModelError("the classifier's feature names must not be empty") }
        guard predicted != probabilities else {
            throw ModelError("the classifier's label and probabilities features are both named '\(predicted)'")
        }
        guard !inputs.contains(where: { $0.name == predicted || $0.name == probabilities }) else {
            throw ModelError("the classifier's features '\(predicted)' and '\(probabilities)' must not be named like an input")
        }
        names = [predicted, probabilities]
        let count = classifier.labels.count
        try checkLabels(classifier.labels, owner: "the classifier", clash: "classLabelProbs would hold one probability for both")
        guard layerOutputs.contains(probabilities), let shape = shapes[probabilities] else {
            throw ModelError("the classifier's probabilities tensor '\(probabilities)' is not produced by any layer")
        }
        guard shape.count == count else {
            throw ModelError("\(count) class labels for \(shape.count) probabilities in '\(probabilities)'")
        }
    }

    /// Labels not empty and unique: one probability or confidence each.
    func checkLabels(_ labels: ClassLabels, owner: String, clash: String) throws(ModelError) {
        guard labels.count > 0 else { throw ModelError("\(owner) has no class labels") }
        var seen: [String: Int] = [:]
        for (index, label) in labels.descriptions.enumerated() {
            if let first = seen.updateValue(index, forKey: label) {
                throw ModelError("class label '\(label)' appears twice (labels \(first + 1) and \(index + 1)): \(clash)")
            }
        }
    }
}

extension ImageInput {
    /// Preprocessing Core ML can apply as stated: finite scale and biases, a
    /// mean image of C x H x W values.
    func check(input name: String) throws(ModelError) {
        let numbers = [scale, redBias, greenBias, blueBias, grayBias]
        guard numbers.allSatisfy(\.isFinite) else {
            throw ModelError("input '\(name)': the preprocessing scale and biases must be finite, not \(numbers)")
        }
        if let meanImage {
            guard meanImage.count == [width, height, channels].checkedProduct else {
                throw ModelError("input '\(name)': the mean image has \(meanImage.count) values, the image \(channels)x\(height)x\(width)")
            }
        }
    }
}

extension Node {
    /// Checks that every weight tensor has the number of values the
    /// operation's attributes call for, and that none a layer needs is
    /// empty (Core ML's validator refuses empty weights):
    /// `OpDefinition.checkWeights`.
    func checkWeightCounts() throws(ModelError) {
        do { try operation.definition.checkWeights() } catch { throw ModelError(node: name, error.message) }
    }
}

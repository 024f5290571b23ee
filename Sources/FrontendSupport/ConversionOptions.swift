import ModelFormat

/// What a user tells a converter beyond the source files, named as in
/// coremltools' Caffe and TensorFlow converters so a Python call translates
/// one to one: image inputs and their preprocessing, class labels, the
/// predicted feature name, metadata.
public struct ConversionOptions: Sendable {
    /// Inputs to expose as images (others stay multi-arrays).
    public var imageInputNames: [String] = []
    /// Image channels are in BGR order (as Caffe models trained with OpenCV expect).
    public var isBGR = false
    public var redBias: Float = 0
    public var greenBias: Float = 0
    public var blueBias: Float = 0
    public var grayBias: Float = 0
    /// Multiplies pixels before the biases are added.
    public var imageScale: Float = 1
    /// A [C, H, W] image subtracted from the input (after scale and biases).
    public var meanImage: Weights?
    /// Makes the model a classifier with these labels.
    public var classLabels: ClassLabels?
    /// Where the labels came from, for error messages.
    public var classLabelsSource = "class labels"
    public var predictedFeatureName = "classLabel"
    public var predictedProbabilitiesName = "classLabelProbs"
    public var metadata = Metadata()

    public init() {}

    /// What every frontend does once its graph is built, in this order:
    /// image inputs, the graph passes, the classifier, the metadata
    /// (`description` when the user gave none), then validation, which also
    /// gives the outputs their shapes.
    /// - Parameter source: the file the model comes from, named in errors.
    /// - Throws: `ModelError`, its message after `source: `.
    public func finish(_ model: inout Model, description: String, source: String) throws {
        do {
            try finish(&model, description: description)
        } catch {
            throw ModelError("\(source): \(error.message)")
        }
    }

    func finish(_ model: inout Model, description: String) throws(ModelError) {
        try applyImageInputs(to: &model.inputs)
        Pipeline.run(&model)
        try applyClassifier(to: &model)
        model.metadata = metadata
        if model.metadata.shortDescription.isEmpty { model.metadata.shortDescription = description }
        let shapes = try model.validate()
        for index in model.outputs.indices { model.outputs[index].shape = shapes[model.outputs[index].name]?.featureShape ?? [] }
    }

    /// Turns the named array inputs into images with this preprocessing.
    /// - Throws: `ModelError` when a name is not an input, or its shape is
    ///   not [1 or 3, H, W].
    public func applyImageInputs(to inputs: inout [Input]) throws(ModelError) {
        for name in imageInputNames {
            guard let index = inputs.firstIndex(where: { $0.name == name }) else {
                throw ModelError("--image-input '\(name)' is not an input of the model (inputs: \(inputs.map(\.name).joined(separator: ", ")))")
            }
            guard case .array(let shape) = inputs[index].kind, shape.count == 3, shape[0] == 1 || shape[0] == 3 else {
                throw ModelError("input '\(name)' cannot be an image: its shape \(inputs[index].kind) is not [1 or 3, H, W]")
            }
            let colorSpace: ColorSpace = shape[0] == 1 ? .grayscale : isBGR ? .bgr : .rgb
            if let meanImage, meanImage.count != shape.checkedProduct {
                throw ModelError("the mean image has \(meanImage.count) values; input '\(name)' has \(shape[0])x\(shape[1])x\(shape[2])")
            }
            inputs[index].kind = .image(ImageInput(
                width: shape[2], height: shape[1], colorSpace: colorSpace, scale: imageScale,
                redBias: redBias, greenBias: greenBias, blueBias: blueBias, grayBias: grayBias, meanImage: meanImage))
        }
    }

    /// Makes `model` a classifier when labels were given: its last layer's
    /// output becomes the probabilities feature (`classLabelProbs`).
    /// - Throws: `ModelError` when the label count does not match the
    ///   output's size.
    public func applyClassifier(to model: inout Model) throws(ModelError) {
        guard let labels = classLabels else { return }
        guard let last = model.nodes.last, let tensor = last.outputs.first else {
            throw ModelError("class labels were given, but the model has no layers")
        }
        let shapes = try ShapeInference.shapes(of: model)
        if let shape = shapes[tensor], shape.count != labels.count {
            throw ModelError("\(classLabelsSource): \(labels.count) class labels, but the last layer '\(last.name)' gives \(shape.count) values")
        }
        model.renameTensor(tensor, to: predictedProbabilitiesName)
        model.outputs.removeAll { $0.name == tensor || $0.name == predictedProbabilitiesName }
        model.classifier = Classifier(labels: labels, predictedFeatureName: predictedFeatureName,
                                      probabilitiesName: predictedProbabilitiesName)
    }
}

extension Model {
    /// Renames a tensor wherever it is produced or read, and in the outputs.
    public mutating func renameTensor(_ old: String, to new: String) {
        guard old != new else { return }
        for index in nodes.indices {
            nodes[index].inputs = nodes[index].inputs.map { $0 == old ? new : $0 }
            nodes[index].outputs = nodes[index].outputs.map { $0 == old ? new : $0 }
        }
        for index in outputs.indices where outputs[index].name == old { outputs[index].name = new }
    }
}

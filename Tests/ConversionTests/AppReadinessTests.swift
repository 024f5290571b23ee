import Conversion
import ModelFormat
import XCTest

/// What makes a converted model unready for an app (`AppReadiness`), the
/// softmax `--add-softmax` appends, and where torchvision's normalization
/// goes (`applyNormalization`), on models built here.
final class AppReadinessTests: XCTestCase {
    func classifier(input: Input.Kind, ending last: Op, labels: Int = 4) -> Model {
        let product = Node(name: "fc", operation: .innerProduct(InnerProduct(inputChannels: 12, outputChannels: labels,
                                                                              weights: Weights(count: 12 * labels) { $0.initialize(repeating: 0.5) })),
                           inputs: ["flat"], outputs: ["fc"])
        let nodes = [Node(name: "flat", operation: .flatten(.channelFirst), inputs: ["x"], outputs: ["flat"]), product,
                     Node(name: "last", operation: last, inputs: ["fc"], outputs: ["last"])]
        return Model(inputs: [Input(name: "x", kind: input)], outputs: [Output(name: "last")], nodes: nodes)
    }

    func testImageLikeArraysAreThreeOrOneChannelPictures() {
        let shapes: [([Int], Bool)] = [([3, 227, 227], true), ([1, 28, 28], true), ([3, 4, 4], false), ([2, 32, 32], false),
                                       ([10], false), ([3, 8, 1], false)]
        for (shape, isImage) in shapes {
            let model = Model(inputs: [Input(name: "x", kind: .array(shape: shape))], outputs: [], nodes: [])
            XCTAssertEqual(AppReadiness.imageLikeArrays(model).map(\.name), isImage ? ["x"] : [], "\(shape)")
        }
        let image = Model(inputs: [Input(name: "x", kind: .image(ImageInput(width: 32, height: 32)))], outputs: [], nodes: [])
        XCTAssertTrue(AppReadiness.warnings(for: image).isEmpty)
        // A tensor model's pictures are [1, 3 or 1, H, W] (a ViT's); a sequence or a batch is none.
        let tensors: [([Int], Bool)] = [([1, 3, 32, 32], true), ([1, 1, 8, 8], true), ([1, 2, 32, 32], false), ([2, 3, 32, 32], false),
                                        ([1, 3, 4, 32], false), ([1, 12, 32], false), ([3, 32, 32], false)]
        for (shape, isImage) in tensors {
            let model = Model(inputs: [Input(name: "x", kind: .tensor(shape: shape))], outputs: [], nodes: [])
            XCTAssertEqual(AppReadiness.imageLikeArrays(model).map(\.shape), isImage ? [shape] : [], "\(shape)")
        }
        let tensorImage = Model(inputs: [Input(name: "x", kind: .image(ImageInput(width: 32, height: 32, asTensor: true)))], outputs: [], nodes: [])
        XCTAssertTrue(AppReadiness.warnings(for: tensorImage).isEmpty)
    }

    /// --image-input on a [1, C, H, W] tensor: an image the network takes
    /// as that tensor, shaped so by shape inference; the model stays one
    /// of tensors (specification 4, exact arrays).
    func testATensorPictureBecomesAnImageTakenAsATensor() throws {
        var options = ConversionOptions()
        options.imageInputNames = ["x"]
        var inputs = [Input(name: "x", kind: .tensor(shape: [1, 1, 4, 6]))]
        try options.applyImageInputs(to: &inputs)
        XCTAssertEqual(inputs[0].kind, .image(ImageInput(width: 6, height: 4, colorSpace: .grayscale, asTensor: true)))
        let model = Model(inputs: inputs, outputs: [], nodes: [])
        XCTAssertTrue(model.hasTensorInputs)
        XCTAssertEqual(try ShapeInference.shapes(of: model)["x"], TensorShape([1, 1, 4, 6]))
        for shape in [[1, 2, 4, 6], [2, 3, 4, 6], [1, 3, 4], [1, 3, 4, 6, 1]] {
            var refused = [Input(name: "x", kind: .tensor(shape: shape))]
            XCTAssertThrowsError(try options.applyImageInputs(to: &refused), "\(shape)")
        }
    }

    func testLogitsAreALastLayerThatIsNotASoftmaxOrSigmoidLookingThroughReshapes() throws {
        var options = ConversionOptions()
        options.classLabels = .strings(["a", "b", "c", "d"])
        for (last, logits) in [(Op.activation(.relu), true), (.softmax, false), (.activation(.sigmoid), false), (.flatten(.channelFirst), true)] {
            var model = classifier(input: .array(shape: [3, 2, 2]), ending: last)
            try options.applyClassifier(to: &model)
            XCTAssertEqual(AppReadiness.logitsLayer(model) != nil, logits, "\(last)")
        }
        // A softmax behind a reshape gives probabilities.
        var model = classifier(input: .array(shape: [3, 2, 2]), ending: .softmax)
        model.nodes.append(Node(name: "r", operation: .flatten(.channelFirst), inputs: ["last"], outputs: ["r"]))
        model.outputs = [Output(name: "r")]
        try options.applyClassifier(to: &model)
        XCTAssertNil(AppReadiness.logitsLayer(model))
    }

    func testAddSoftmaxAppendsOneOverTheLabels() throws {
        var options = ConversionOptions()
        options.classLabels = .strings(["a", "b", "c", "d"])
        options.addSoftmax = true
        var model = classifier(input: .array(shape: [3, 2, 2]), ending: .activation(.relu))
        try options.applyClassifier(to: &model)
        XCTAssertEqual(model.nodes.last?.operation, .softmax)
        XCTAssertEqual(model.nodes.last?.inputs, ["last"])
        XCTAssertEqual(model.nodes.last?.outputs, ["classLabelProbs"])
        XCTAssertNil(AppReadiness.logitsLayer(model))
        XCTAssertTrue(model.outputs.isEmpty)

        var softmax = classifier(input: .array(shape: [3, 2, 2]), ending: .softmax)
        XCTAssertThrowsError(try options.applyClassifier(to: &softmax)) { error in
            XCTAssertTrue("\(error)".contains("gives probabilities already"), "\(error)")
        }
    }

    /// (x / 255 - mean) / std: one std in the image's scale and biases;
    /// three in scale 1/255, biases -mean and a scale layer in the model's
    /// channel order (B, G, R for BGR).
    func testNormalizationGoesToThePreprocessingAndAScaleLayer() throws {
        func normalized(_ std: [Float], bgr: Bool) throws -> Model {
            var options = ConversionOptions()
            options.imageInputNames = ["x"]
            options.isBGR = bgr
            options.normalization = Normalization(mean: [0.485, 0.456, 0.406], std: std)
            var model = classifier(input: .array(shape: [3, 2, 2]), ending: .softmax)
            try options.applyImageInputs(to: &model.inputs)
            try options.applyNormalization(to: &model)
            return model
        }
        let one = try normalized([0.5], bgr: false)
        let image = try XCTUnwrap(one.inputs[0].image)
        XCTAssertEqual(image.scale, 1 / 127.5, accuracy: 1e-9)
        XCTAssertEqual([image.redBias, image.greenBias, image.blueBias], [-0.97, -0.912, -0.812])
        XCTAssertEqual(one.nodes.count, 3)

        let three = try normalized([0.229, 0.224, 0.225], bgr: true)
        let scaled = try XCTUnwrap(three.inputs[0].image)
        XCTAssertEqual(scaled.scale, 1 / 255, accuracy: 1e-9)
        XCTAssertEqual([scaled.redBias, scaled.greenBias, scaled.blueBias], [-0.485, -0.456, -0.406])
        let layer = try XCTUnwrap(three.nodes.first)
        XCTAssertEqual(layer.inputs, ["x"])
        XCTAssertEqual(three.nodes[1].inputs, [layer.outputs[0]])
        guard case .scale(let scale) = layer.operation else { return XCTFail("\(layer.operation)") }
        XCTAssertEqual(Array(scale.scale.values), [1 / 0.225, 1 / 0.224, 1 / 0.229])
        XCTAssertNoThrow(try three.validate())
    }
}

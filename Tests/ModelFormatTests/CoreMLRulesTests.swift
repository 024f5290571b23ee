import ModelFormat
import XCTest

/// The rules of Core ML's validator (apple/coremltools, mlmodel/src/Validation)
/// and of NeuralNetwork.proto that a writer can break, each enforced by
/// `Model.validate()` before anything is written. The comment on each case
/// quotes what the validator says of such a file (checked with the validator
/// built from Apple's source; scripts/verify/apple_validator.sh).
final class CoreMLRulesTests: XCTestCase {
    let valid = ValidationTests.validModel()

    func error(_ model: Model) -> String {
        do {
            try model.validate()
            return "validated"
        } catch {
            return error.message
        }
    }

    func with(_ change: (inout Model) -> Void) -> Model {
        var model = valid
        change(&model)
        return model
    }

    /// Replaces the node called `name`.
    func replacing(_ name: String, with node: Node) -> Model {
        with { model in model.nodes[model.nodes.firstIndex { $0.name == name }!] = node }
    }

    func testInterfaceRules() {
        let cases: [(String, Model, String)] = [
            // "Neural networks require at least one layer."
            ("no layers", with { $0.nodes = []; $0.outputs = []; $0.classifier = nil }, "the model has no layers (Core ML needs at least one)"),
            // "Models must have one or more outputs."
            ("no outputs", with { $0.outputs = []; $0.classifier = nil }, "the model has no outputs"),
            // "Interface specifies output 'data' which is not produced by any layer in the neural network."
            ("output is an input", with { $0.outputs.append(Output(name: "data")) }, "output 'data' is a model input, not produced by any layer"),
            // The same message for a name declared twice.
            ("output named twice", with { $0.outputs.append(Output(name: "fc")) }, "output 'fc' is named twice, or like a classifier feature"),
            ("output named like the label", with { $0.outputs.append(Output(name: "classLabel")) },
             "output 'classLabel' is named twice, or like a classifier feature"),
            ("empty output name", with { $0.outputs.append(Output(name: "")) }, "an output has an empty name"),
            // The shaper: "Error determining network blob shapes: Invalid setValue ..."
            ("declared output shape", with { $0.outputs[0].shape = [3] }, "output 'fc' is declared [3], the layers give [2]"),
            ("empty tensor name", with { $0.nodes.append(Node(name: "t", operation: .activation(.tanh), inputs: ["fc"], outputs: [""])) },
             "layer 't': an output tensor has an empty name"),
        ]
        for (name, model, expected) in cases { XCTAssertEqual(error(model), expected, name) }
    }

    func testClassifierRules() {
        let cases: [(String, Model, String)] = [
            // "Unsupported type "MLFeatureTypeType_dictionaryType" for feature "p". Should be one of: MLFeatureTypeType_stringType."
            ("same feature names", with { $0.classifier?.predictedFeatureName = "probs" },
             "the classifier's label and probabilities features are both named 'probs'"),
            // "Feature description must have a non-empty name."
            ("empty label feature", with { $0.classifier?.predictedFeatureName = "" }, "the classifier's feature names must not be empty"),
            // "For this neural network classifier, the probabilities are obtained from the layer 'data' which was not found in the network."
            ("probabilities are an input", with { $0.classifier?.probabilitiesName = "data" },
             "the classifier's features 'classLabel' and 'data' must not be named like an input"),
            // Not the validator's: a dictionary cannot hold two probabilities under one label.
            ("duplicate labels", with { $0.classifier?.labels = .strings(["a", "a"]) },
             "class label 'a' appears twice (labels 1 and 2): classLabelProbs would hold one probability for both"),
            ("duplicate integer labels", with { $0.classifier?.labels = .integers([7, 7]) }, "class label '7' appears twice (labels 1 and 2): classLabelProbs would hold one probability for both"),
        ]
        for (name, model, expected) in cases { XCTAssertEqual(error(model), expected, name) }
    }

    func testPreprocessingRules() {
        func image(_ change: (inout ImageInput) -> Void) -> Model {
            var input = ImageInput(width: 8, height: 8, colorSpace: .bgr)
            change(&input)
            return with { $0.inputs[0].kind = .image(input) }
        }
        XCTAssertEqual(error(image { _ in }), "validated")
        XCTAssertEqual(error(image { $0.redBias = .nan }),
                       "input 'data': the preprocessing scale and biases must be finite, not [1.0, nan, 0.0, 0.0, 0.0]")
        XCTAssertEqual(error(image { $0.scale = .infinity }),
                       "input 'data': the preprocessing scale and biases must be finite, not [inf, 0.0, 0.0, 0.0, 0.0]")
        // NeuralNetwork.proto: the mean image is a flattened [C, H, W] of the input.
        XCTAssertEqual(error(image { $0.meanImage = Weights([1, 2, 3]) }), "input 'data': the mean image has 3 values, the image 3x8x8")
    }

    func testLayerParameterRules() {
        let cases: [(String, Node, String)] = [
            // "Value of minval should be smaller than maxval for 'c' layer."
            ("clip bounds", Node("relu", .activation(.clip(min: 6, max: 0)), input: "conv"), "layer 'relu': clip bounds [6.0, 0.0] are not ordered"),
            // "Parameter 'K' for the LRN layer 'n' must be positive." (and the proto: k 0 means 1)
            ("LRN k negative", Node("relu", .lrn(LRN(alpha: 1e-4, beta: 0.75, localSize: 5, k: -1)), input: "conv"), "layer 'relu': k -1.0 must be positive"),
            ("LRN k zero", Node("relu", .lrn(LRN(alpha: 1e-4, beta: 0.75, localSize: 5, k: 0)), input: "conv"), "layer 'relu': k 0.0 must be positive"),
            ("LRN size 0", Node("relu", .lrn(LRN(alpha: 1e-4, beta: 0.75, localSize: 0, k: 1)), input: "conv"),
             "layer 'relu': local size 0 is out of range (1...1073741824)"),
            // "Layer 'cat' of type 320 has 1 inputs but expects at least 2."
            ("concat of one", Node("relu", .concat, input: "conv"), "layer 'relu': has 1 inputs, the operation takes at least 2"),
            // "Layer 'r' of type 130 has 2 inputs but expects exactly 1."
            ("two inputs to a relu", Node(name: "relu", operation: .activation(.relu), inputs: ["conv", "conv"], outputs: ["relu"]),
             "layer 'relu': has 2 inputs, the operation takes 1"),
            // "Offset parameter for the crop layer 'c' is of length 1 but requires exactly two offsets (for X,Y axes)."
            ("crop offset", Node(name: "relu", operation: .crop(.like(offset: [0])), inputs: ["conv", "conv"], outputs: ["relu"]),
             "layer 'relu': crop offset [0] is not [top, left]"),
            // "Reshape layer 'rs' target shape must be 3D or 4D."
            ("reshape rank", Node("relu", .reshape(targetShape: [256], order: .channelLast), input: "conv"),
             "layer 'relu': reshape target [256] is not [C, H, W]"),
            // "The shape vector for the scale layer 's' is 2 dimensional but should be 1D or 3D."
            ("scale rank", Node("relu", .scale(Scale(shape: [4, 1], scale: Weights([1, 2, 3, 4]))), input: "conv"),
             "layer 'relu': scale shape [4, 1] is not [C] or [C, H, W]"),
            // "The bias vector for scale layer 's' is 0 dimensional but should be either 1D or 3D."
            ("scale bias rank", Node("relu", .scale(Scale(shape: [4], scale: Weights([1, 2, 3, 4]), bias: Weights([1]))), input: "conv"),
             "layer 'relu': scale bias shape [] is not [C] or [C, H, W]"),
            // "Bias layer 'b' cannot be 2 dimensional. Must be 1D or 3D."
            ("bias rank", Node("relu", .bias(Bias(shape: [4, 1], bias: Weights([1, 2, 3, 4]))), input: "conv"),
             "layer 'relu': bias shape [4, 1] is not [C] or [C, H, W]"),
            // "ScaleLayer 's' has empty scale."
            ("scale empty", Node("relu", .scale(Scale(shape: [0], scale: Weights([]))), input: "conv"),
             "layer 'relu': scale is empty"),
            // NeuralNetwork.proto: scale and bias are [1], [C], [1, H, W] or [C, H, W] of the input (predict crashed on others).
            ("scale channels", Node("relu", .scale(Scale(shape: [2], scale: Weights([1, 2]))), input: "conv"),
             "layer 'relu': scale of shape [2] does not fit the input 4x8x8"),
            ("bias map", Node("relu", .bias(Bias(shape: [1, 4, 4], bias: Weights(Array(repeating: 1, count: 16)))), input: "conv"),
             "layer 'relu': bias of shape [1, 4, 4] does not fit the input 4x8x8"),
            // NeuralNetwork.proto: PReLU alpha has C or 1 values (predict read past it).
            ("prelu alpha", Node("relu", .activation(.prelu(alpha: Weights([1, 2]))), input: "conv"),
             "layer 'relu': alpha has 2 values for 4 channels (one per channel, or one)"),
            ("prelu empty", Node("relu", .activation(.prelu(alpha: Weights([]))), input: "conv"), "layer 'relu': alpha is empty"),
            ("softplus beta", Node("relu", .activation(.parametricSoftplus(alpha: Weights([1]), beta: Weights([1, 2, 3]))), input: "conv"),
             "layer 'relu': beta has 3 values for 4 channels (one per channel, or one)"),
            // NeuralNetwork.proto: batchnorm parameters are of length [channels] of the input (predict crashed).
            ("batchnorm channels", Node("relu", .batchNorm(BatchNorm(channels: 2, epsilon: 1e-5, gamma: Weights([1, 1]), beta: Weights([0, 0]),
                                                                      mean: Weights([0, 0]), variance: Weights([1, 1]))), input: "conv"),
             "layer 'relu': normalizes 2 channels, its input has 4"),
            // The validator crashes (SIGFPE) on a deconvolution with stride 0.
            ("deconvolution stride 0", Node("relu", .convolution(Convolution(outputChannels: 1, kernelChannels: 4, kernel: Size2(square: 1),
                                                                              stride: Size2(0, 1), isDeconvolution: true, weights: Weights([1, 1, 1, 1]))),
                                            input: "conv"),
             "layer 'relu': stride 0 is out of range (1...1073741824)"),
        ]
        for (name, node, expected) in cases {
            // The node takes the ReLU's place (conv [4, 8, 8] -> node -> bn).
            var model = replacing("relu", with: node)
            if node.outputs != ["relu"] { model.nodes[2].inputs = node.outputs }
            XCTAssertEqual(error(model), expected, name)
        }
    }
}

import ModelFormat
import XCTest

/// `Model.validate()`: each kind of inconsistency is a `ModelError` that
/// names the layer (or the tensor, input or output) concerned.
final class ValidationTests: XCTestCase {
    static func filled(_ count: Int) -> Weights { Weights((0..<count).map { Float($0) / 100 }) }

    /// data [3, 8, 8] -> conv 4x3x3x3 pad 1 -> relu -> bn -> pool 2/2 -> flatten -> fc 64->2 -> softmax "probs"; labels a, b.
    static func validModel() -> Model {
        let conv = Convolution(outputChannels: 4, kernelChannels: 3, kernel: Size2(square: 3), padding: .explicit(Edges(all: 1)),
                               weights: filled(108), bias: filled(4))
        let norm = BatchNorm(channels: 4, epsilon: 1e-5, gamma: filled(4), beta: filled(4), mean: filled(4), variance: filled(4))
        let pool = Pooling(kind: .max, kernel: Size2(square: 2), stride: Size2(square: 2))
        let fc = InnerProduct(inputChannels: 64, outputChannels: 2, weights: filled(128), bias: filled(2))
        return Model(
            inputs: [Input(name: "data", kind: .array(shape: [3, 8, 8]))],
            outputs: [Output(name: "fc", shape: [2])],
            nodes: [
                Node("conv", .convolution(conv), input: "data"),
                Node("relu", .activation(.relu), input: "conv"),
                Node("bn", .batchNorm(norm), input: "relu"),
                Node("pool", .pooling(pool), input: "bn"),
                Node("flat", .flatten(.channelFirst), input: "pool"),
                Node("fc", .innerProduct(fc), input: "flat"),
                Node(name: "prob", operation: .softmax, inputs: ["fc"], outputs: ["probs"]),
            ],
            classifier: Classifier(labels: .strings(["a", "b"]), probabilitiesName: "probs"))
    }

    func validationError(_ model: Model, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let shapes = try model.validate()
            XCTFail("validated: \(shapes)", file: file, line: line)
            return ""
        } catch {
            return error.message
        }
    }

    /// Applies `change` to the valid model's node called `name`.
    func changing(_ name: String, _ change: (inout Node) -> Void) -> Model {
        var model = Self.validModel()
        let index = model.nodes.firstIndex { $0.name == name }!
        change(&model.nodes[index])
        return model
    }

    func testTheValidModelValidates() throws {
        let shapes = try Self.validModel().validate()
        XCTAssertEqual(shapes["conv"], TensorShape(channels: 4, height: 8, width: 8))
        XCTAssertEqual(shapes["pool"], TensorShape(channels: 4, height: 4, width: 4))
        XCTAssertEqual(shapes["fc"], TensorShape(channels: 2))
        XCTAssertEqual(shapes["probs"], TensorShape(channels: 2))
        XCTAssertEqual(shapes.count, 8)
    }

    func testGraphErrors() {
        var duplicateName = Self.validModel()
        duplicateName.nodes.insert(Node(name: "relu", operation: .activation(.tanh), inputs: ["conv"], outputs: ["other"]), at: 2)

        var producedTwice = Self.validModel()
        producedTwice.nodes.insert(Node(name: "again", operation: .activation(.tanh), inputs: ["relu"], outputs: ["conv"]), at: 2)

        var overwritesInput = Self.validModel()
        overwritesInput.nodes.insert(Node(name: "inplace", operation: .activation(.tanh), inputs: ["data"], outputs: ["data"]), at: 0)

        var twoOutputsSameName = Self.validModel()
        twoOutputsSameName.nodes.append(Node(name: "split", operation: .split, inputs: ["conv"], outputs: ["half", "half"]))

        var dangling = Self.validModel()
        dangling.nodes.append(Node(name: "reader", operation: .add(constant: 0), inputs: ["fc", "nowhere"], outputs: ["sum"]))

        // a reads b, which only a later layer produces.
        var cycle = Self.validModel()
        cycle.nodes.append(Node(name: "a", operation: .add(constant: 0), inputs: ["fc", "b"], outputs: ["a"]))
        cycle.nodes.append(Node(name: "b", operation: .activation(.relu), inputs: ["a"], outputs: ["b"]))

        // A layer reading its own output.
        var selfLoop = Self.validModel()
        selfLoop.nodes.append(Node(name: "loop", operation: .add(constant: 0), inputs: ["fc", "loop"], outputs: ["loop"]))

        // Reading an output of a later layer (the order is the execution order).
        var outOfOrder = Self.validModel()
        outOfOrder.nodes.swapAt(1, 2)

        let cases: [(String, Model, String)] = [
            ("duplicate layer names", duplicateName, "two layers are named 'relu'"),
            ("tensor produced twice", producedTwice, "layer 'again': tensor 'conv' is already produced by an input or an earlier layer"),
            ("tensor named like an input", overwritesInput, "layer 'inplace': tensor 'data' is already produced by an input or an earlier layer"),
            ("one layer producing a tensor twice", twoOutputsSameName, "layer 'split': tensor 'half' is already produced by an input or an earlier layer"),
            ("dangling input", dangling, "layer 'reader': input 'nowhere' is not produced by an earlier layer or a model input"),
            ("cycle", cycle, "layer 'a': input 'b' is not produced by an earlier layer or a model input"),
            ("layer reading its own output", selfLoop, "layer 'loop': input 'loop' is not produced by an earlier layer or a model input"),
            ("out of order", outOfOrder, "layer 'bn': input 'relu' is not produced by an earlier layer or a model input"),
        ]
        for (name, model, expected) in cases {
            XCTAssertEqual(validationError(model), expected, name)
        }
    }

    func testWeightCountErrors() {
        func conv(_ change: @escaping (inout Convolution) -> Void) -> Model {
            changing("conv") { node in
                guard case .convolution(var conv) = node.operation else { return }
                change(&conv)
                node.operation = .convolution(conv)
            }
        }
        func fc(_ change: @escaping (inout InnerProduct) -> Void) -> Model {
            changing("fc") { node in
                guard case .innerProduct(var product) = node.operation else { return }
                change(&product)
                node.operation = .innerProduct(product)
            }
        }
        func bn(_ change: @escaping (inout BatchNorm) -> Void) -> Model {
            changing("bn") { node in
                guard case .batchNorm(var norm) = node.operation else { return }
                change(&norm)
                node.operation = .batchNorm(norm)
            }
        }
        let cases: [(String, Model, String)] = [
            ("conv weights", conv { $0.weights = Self.filled(107) }, "layer 'conv': weights has 107 values, expected 108"),
            ("conv weights, unloaded", conv { $0.weights = Weights(unloadedCount: 109) }, "layer 'conv': weights has 109 values, expected 108"),
            ("conv bias", conv { $0.bias = Self.filled(3) }, "layer 'conv': bias has 3 values, expected 4"),
            ("conv kernel changed", conv { $0.kernel = Size2(3, 2) }, "layer 'conv': weights has 108 values, expected 72"),
            ("inner product weights", fc { $0.weights = Self.filled(127) }, "layer 'fc': weights has 127 values, expected 128"),
            ("inner product bias", fc { $0.bias = Self.filled(1) }, "layer 'fc': bias has 1 values, expected 2"),
            ("batchnorm gamma", bn { $0.gamma = Self.filled(3) }, "layer 'bn': gamma has 3 values, expected 4"),
            ("batchnorm beta", bn { $0.beta = Self.filled(5) }, "layer 'bn': beta has 5 values, expected 4"),
            ("batchnorm mean", bn { $0.mean = Self.filled(0) }, "layer 'bn': mean has 0 values, expected 4"),
            ("batchnorm variance", bn { $0.variance = Self.filled(8) }, "layer 'bn': variance has 8 values, expected 4"),
            ("include-last-pixel convolution", conv { $0.padding = .includeLastPixel(Size2(square: 0)) },
             "layer 'conv': a convolution cannot use pooling's include-last-pixel padding"),
        ]
        for (name, model, expected) in cases {
            XCTAssertEqual(validationError(model), expected, name)
        }
        // Without a bias there is nothing to count.
        XCTAssertNoThrow(try conv { $0.bias = nil }.validate())
        XCTAssertNoThrow(try fc { $0.bias = nil }.validate())
    }

    func testOtherWeightCounts() {
        let input = Input(name: "x", kind: .array(shape: [3, 2, 2]))
        func model(_ operation: Op) -> Model {
            let inputs = operation.definition.inputCounts == 0...0 ? [String]() : ["x"]
            return Model(inputs: [input], outputs: [Output(name: "layer")],
                         nodes: [Node(name: "layer", operation: operation, inputs: inputs, outputs: ["layer"])])
        }
        let cases: [(String, Op, String)] = [
            ("scale", .scale(Scale(shape: [3], scale: Self.filled(2))), "layer 'layer': scale has 2 values, expected 3"),
            ("scale bias", .scale(Scale(shape: [3], scale: Self.filled(3), biasShape: [3], bias: Self.filled(1))),
             "layer 'layer': bias has 1 values, expected 3"),
            ("bias", .bias(Bias(shape: [3, 2, 2], bias: Self.filled(3))), "layer 'layer': bias has 3 values, expected 12"),
            ("constant", .constant(shape: [3, 2, 2], data: Self.filled(11)), "layer 'layer': constant has 11 values, expected 12"),
            ("deconvolution", .convolution(Convolution(outputChannels: 4, kernelChannels: 3, kernel: Size2(square: 2), isDeconvolution: true,
                                                        weights: Self.filled(3 * 4 * 4 - 1))),
             "layer 'layer': weights has 47 values, expected 48"),
        ]
        for (name, operation, expected) in cases {
            XCTAssertEqual(validationError(model(operation)), expected, name)
        }
        XCTAssertNoThrow(try model(.scale(Scale(shape: [1], scale: Self.filled(1)))).validate())
        XCTAssertNoThrow(try model(.bias(Bias(shape: [3, 2, 2], bias: Self.filled(12)))).validate())
    }

    func testClassifierAndOutputErrors() {
        var noLabels = Self.validModel()
        noLabels.classifier?.labels = .strings([])
        var noIntegerLabels = Self.validModel()
        noIntegerLabels.classifier?.labels = .integers([])
        var tooManyLabels = Self.validModel()
        tooManyLabels.classifier?.labels = .strings(["a", "b", "c"])
        var tooFewLabels = Self.validModel()
        tooFewLabels.classifier?.labels = .integers([7])
        var missingProbabilities = Self.validModel()
        missingProbabilities.classifier?.probabilitiesName = "nope"
        var missingOutput = Self.validModel()
        missingOutput.outputs.append(Output(name: "ghost"))

        let cases: [(String, Model, String)] = [
            ("no labels", noLabels, "the classifier has no class labels"),
            ("no integer labels", noIntegerLabels, "the classifier has no class labels"),
            ("more labels than probabilities", tooManyLabels, "3 class labels for 2 probabilities in 'probs'"),
            ("fewer labels than probabilities", tooFewLabels, "1 class labels for 2 probabilities in 'probs'"),
            ("no probabilities tensor", missingProbabilities, "the classifier's probabilities tensor 'nope' is not produced by any layer"),
            ("output not produced", missingOutput, "output 'ghost' is not produced by any layer"),
        ]
        for (name, model, expected) in cases {
            XCTAssertEqual(validationError(model), expected, name)
        }
        var integers = Self.validModel()
        integers.classifier?.labels = .integers([3, 5])
        XCTAssertNoThrow(try integers.validate())
        var plain = Self.validModel()
        plain.classifier = nil
        XCTAssertNoThrow(try plain.validate())
    }

    func testInputAndNameErrors() {
        var noInputs = Self.validModel()
        noInputs.inputs = []
        var unnamedInput = Self.validModel()
        unnamedInput.inputs.append(Input(name: "", kind: .array(shape: [1])))
        var twoInputs = Self.validModel()
        twoInputs.inputs.append(Input(name: "data", kind: .array(shape: [1])))
        var unnamedLayer = Self.validModel()
        unnamedLayer.nodes.append(Node(name: "", operation: .softmax, inputs: ["fc"], outputs: ["s"]))
        let cases: [(String, Model, String)] = [
            ("no inputs", noInputs, "the model has no inputs"),
            ("unnamed input", unnamedInput, "an input has an empty name"),
            ("duplicate inputs", twoInputs, "two inputs are named 'data'"),
            ("unnamed layer", unnamedLayer, "a layer has an empty name"),
        ]
        for (name, model, expected) in cases {
            XCTAssertEqual(validationError(model), expected, name)
        }
    }

    func testModelErrorFormatting() {
        XCTAssertEqual(ModelError(node: "conv1", "bad").message, "layer 'conv1': bad")
        XCTAssertEqual(ModelError(node: "conv1", "bad").description, "layer 'conv1': bad")
        XCTAssertEqual(ModelError("plain").description, "plain")
    }
}

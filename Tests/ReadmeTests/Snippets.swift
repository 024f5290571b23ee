// The README's Swift snippets, compiled and run by ReadmeSnippetTests.
// Each `// README <name>` ... `// README end` region is one ```swift block
// of README.md, character for character once its indentation is removed;
// the test fails when the two differ, so a snippet cannot rot.
//
// README convert: imports
import CaffeFrontend
import CoreMLBackend
import Conversion
import ModelFormat
// README end
// README other-formats: imports
import KerasFrontend
import TensorFlowFrontend
// README end
// README inspect: imports
import Inspection
import ModelFiles
// README end
// README predict: imports
import ImageFiles
import ModelFiles
import Runtime
// README end
// README build: imports
import CoreMLBackend
import ModelFormat
// README end
// README rank-n: imports
import CoreMLBackend
import ModelFormat
import Runtime
// README end

enum Snippets {
    /// Run with the repository's Samples/ in the current folder.
    static func convert() throws -> Model {
        // README convert
        var options = ConversionOptions()
        options.imageInputNames = ["data"]
        options.isBGR = true
        (options.redBias, options.greenBias, options.blueBias) = (-114.895847746, -87.7689143744, -78.4263377603)
        options.classLabels = .strings(try LabelFile.read(path: "Samples/age_labels.txt"))
        let model = try CaffeConverter.convert(deploy: "Samples/deploy_age.prototxt",
                                               weights: "Samples/age_net.caffemodel", options: options)
        try CoreMLWriter.write(model, to: "AgeNet.mlmodel")  // validated, then written atomically
        // README end
        return model
    }

    /// Run with the repository's Tests/Fixtures in the current folder.
    static func otherFormats() throws -> (Model, Model) {
        // README other-formats
        let graph = try TensorFlowConverter.convert(
            graph: "Tests/Fixtures/tensorflow/mobilenet_block/graph.pb",
            inputs: [.init(name: "input:0", shape: [1, 33, 33, 3])],
            outputs: ["MobilenetV1/Logits/SpatialSqueeze:0"], options: ConversionOptions())
        let keras = try KerasConverter.convert(model: "Tests/Fixtures/keras/sequential_classifier/model.h5",
                                               options: ConversionOptions())
        try CoreMLWriter.write(graph, to: "MobileNet.mlmodel",
                               minimumSpecificationVersion: DeploymentTarget("iOS13")!.specificationVersion)
        // README end
        return (graph, keras)
    }

    /// Run after `convert()`.
    static func inspect() throws -> InspectedModel {
        // README inspect
        let inspected = try ModelFiles.inspect("AgeNet.mlmodel")
        print(SummaryText.render(inspected))        // what coreml-inspect prints
        print(inspected.deployment?.summary ?? "")  // iOS 11, macOS 10.13, tvOS 11, watchOS 4
        // README end
        return inspected
    }

    /// Run after `convert()`, with Samples/ in the current folder.
    static func predict() throws -> Prediction {
        // README predict
        let network = try Network(contentsOf: "AgeNet.mlmodel")
        let face = ImageResize.resize(try ImageFile.read(path: "Samples/face.png"), width: 227, height: 227,
                                      mode: .scaleFill)
        let prediction = try network.predict(["data": .image(face)])
        print(prediction.classLabel ?? "")  // 15-20, as OpenCV's dnn module says for the Caffe files
        // README end
        return prediction
    }

    static func build() throws -> CoreMLFile {
        // README build
        let model = Model(
            inputs: [Input(name: "scores", kind: .array(shape: [3]))],
            outputs: [],
            nodes: [Node("classLabelProbs", .softmax, input: "scores")],  // the probabilities tensor
            classifier: Classifier(labels: .strings(["cat", "dog", "bird"])))
        try CoreMLWriter.write(model, to: "Tiny.mlmodel")
        let file = try CoreMLReader.read(from: "Tiny.mlmodel")  // weights stay in the mapped file
        // README end
        return file
    }

    static func rankN() throws -> Prediction {
        // README rank-n
        let attention = Model(
            inputs: [Input(name: "x", kind: .tensor(shape: [1, 16, 64]))],  // any rank, taken as shaped
            outputs: [Output(name: "y")],
            nodes: [
                Node(name: "scores", operation: .defined(MatMul(transposeB: true)), inputs: ["x", "x"], outputs: ["scores"]),
                Node("weights", .defined(Softmax(axis: -1)), input: "scores"),
                Node(name: "context", operation: .defined(MatMul()), inputs: ["weights", "x"], outputs: ["context"]),
                Node("y", .defined(Transpose(axes: [0, 2, 1])), input: "context"),
            ])
        try CoreMLWriter.write(attention, to: "Attention.mlmodel")  // specification 4: Core ML's rank-N layers
        let x = Tensor(shape: TensorShape([1, 16, 64]), values: (0..<1024).map { Float($0 % 7) / 7 })
        let prediction = try Network(attention).predict(["x": .array(x)])
        print(prediction.outputs["y"]!.shape)  // 1x64x16
        // README end
        return prediction
    }
}

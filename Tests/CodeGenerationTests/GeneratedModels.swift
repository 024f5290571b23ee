import CaffeFrontend
import CodeGeneration
import Conversion
import CoreMLBackend
import Foundation
import ModelFormat
import TestSupport

/// The models whose classes the tests snapshot and type-check: the README's
/// sample classifier (age_net, converted here as the README's first command
/// converts it), coremltools-built fixtures (scripts/fixtures/make_interface_fixtures.py
/// and the detector pipeline of make_coreml_fixtures.py), and an interface
/// of every feature type built in code.
enum GeneratedModels {
    /// Name (the class name) -> generator.
    static func all() throws -> [(name: String, generator: ClassGenerator)] {
        var models = [("AgeNet", try generator(forModelAt: ageNetPath()))]
        let fixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures")
        for name in ["image_to_array", "grayscale", "multi_input", "awkward_names"] {
            models.append((name, try generator(forModelAt: fixtures.appendingPathComponent("generate/\(name).mlmodel").path)))
        }
        models.append(("Detector", try generator(forModelAt: fixtures.appendingPathComponent("coreml/builder_detector.mlmodel").path,
                                                 className: "Detector")))
        models.append(("EveryKind", try ClassGenerator(interface: everyKind, className: "EveryKind", resourceName: "EveryKind")))
        models.append(("ShadowingNames", try ClassGenerator(interface: shadowingNames, className: "ShadowingNames", resourceName: "ShadowingNames")))
        models.append(("M", try ClassGenerator(interface: collidingNames, className: "M", resourceName: "M")))
        // A model file named to break out of a comment and a string literal.
        let multiInput = try CoreMLReader.interface(from: fixtures.appendingPathComponent("generate/multi_input.mlmodel").path)
        models.append(("HostileFileName", try ClassGenerator(interface: multiInput, className: "HostileFileName",
                                                             resourceName: "x\n#error \"boom\" \\\u{202E}??/")))
        return models
    }

    static func generator(forModelAt path: String, className: String? = nil) throws -> ClassGenerator {
        let resource = ClassFiles.resourceName(of: path)
        return try ClassGenerator(interface: CoreMLReader.interface(from: path),
                                  className: className ?? ClassGenerator.className(forModelNamed: resource), resourceName: resource)
    }

    /// AgeNet.mlmodel as the README's first command writes it, once per run.
    static func ageNetPath() throws -> String {
        try ageNet.get()
    }

    private static let ageNet = Result<String, Error> {
        let samples = repositoryRoot.appendingPathComponent("Samples")
        var options = ConversionOptions()
        options.imageInputNames = ["data"]
        options.isBGR = true
        (options.redBias, options.greenBias, options.blueBias) = (-114.895847746, -87.7689143744, -78.4263377603)
        options.classLabels = .strings(try LabelFile.read(path: samples.appendingPathComponent("age_labels.txt").path))
        let model = try CaffeConverter.convert(deploy: samples.appendingPathComponent("deploy_age.prototxt").path,
                                               weights: samples.appendingPathComponent("age_net.caffemodel").path, options: options)
        let path = try temporaryFolder().appendingPathComponent("AgeNet.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        return path
    }

    /// Features named as the types the generated code uses.
    static let shadowingNames = CoreMLInterface(
        specificationVersion: 1,
        inputs: [.init(name: "URL", type: .image(colorSpace: "RGB", width: 4, height: 4)), .init(name: "String", type: .string),
                 .init(name: "MLMultiArray", type: .multiArray(dataType: "float32", shape: [2])), .init(name: "Double", type: .double, isOptional: true),
                 .init(name: "CGImage", type: .image(colorSpace: "Grayscale", width: 2, height: 2)),
                 .init(name: "self", type: .double), .init(name: "init", type: .double), .init(name: "Type", type: .double),
                 .init(name: "super", type: .double), .init(name: "_", type: .double), .init(name: "inout", type: .double),
                 .init(name: "value", type: .double, isOptional: true)],
        outputs: [.init(name: "CVPixelBuffer", type: .image(colorSpace: "RGB", width: 4, height: 4)), .init(name: "MLFeatureValue", type: .double),
                  .init(name: "NSNumber", type: .dictionary(keyType: "string")), .init(name: "Int64", type: .int64)])

    /// Features whose names collide as one language sees them (issue 30):
    /// `x` and `X` (one `setX:`), images `img` and `Img` (one `setImg:`,
    /// one Swift `setImg(with:)`), `MInput` in model `M` (the parameter
    /// hides the class), `_x` (a parameter hiding `x`'s variable `_x`),
    /// Swift keywords, names the methods take as parameters, and a long name.
    static let collidingNames = CoreMLInterface(
        specificationVersion: 4,
        inputs: [.init(name: "x", type: .double), .init(name: "X", type: .double), .init(name: "_x", type: .double),
                 .init(name: "img", type: .image(colorSpace: "RGB", width: 4, height: 4)),
                 .init(name: "Img", type: .image(colorSpace: "Grayscale", width: 4, height: 4)),
                 .init(name: "MInput", type: .multiArray(dataType: "float32", shape: [2])), .init(name: "MOutput", type: .double),
                 .init(name: "M", type: .string), .init(name: "class", type: .double), .init(name: "func", type: .int64),
                 .init(name: "options", type: .double), .init(name: "configuration", type: .double), .init(name: "input", type: .double),
                 .init(name: "model", type: .double), .init(name: "X_", type: .double), .init(name: "setImg", type: .double),
                 .init(name: "MInputShapedArray", type: .double), .init(name: "feature_class", type: .double),
                 .init(name: String(repeating: "long", count: 75), type: .double)],
        outputs: [.init(name: "y", type: .double), .init(name: "Y", type: .multiArray(dataType: "double", shape: [2])),
                  .init(name: "_y", type: .double), .init(name: "MOutput", type: .double), .init(name: "protocol", type: .string)])

    /// Every feature type a model file can declare, optional and not, in a
    /// file of the newest specification the generator knows.
    static let everyKind = CoreMLInterface(
        specificationVersion: 9,
        inputs: [
            .init(name: "photo", description: "A photo", type: .image(colorSpace: "BGR", width: 64, height: 48)),
            .init(name: "mask", type: .image(colorSpace: "Grayscale", width: 64, height: 48), isOptional: true),
            .init(name: "weights", type: .multiArray(dataType: "float32", shape: [3])),
            .init(name: "indices", type: .multiArray(dataType: "int32", shape: [2, 2]), isOptional: true),
            .init(name: "halves", type: .multiArray(dataType: "float16", shape: [4])),
            .init(name: "temperature", type: .double),
            .init(name: "count", type: .int64, isOptional: true),
            .init(name: "prompt", type: .string),
            .init(name: "note", type: .string, isOptional: true),
            .init(name: "scores", type: .dictionary(keyType: "string")),
            .init(name: "histogram", type: .dictionary(keyType: "int64"), isOptional: true),
        ],
        outputs: [
            .init(name: "classLabel", description: "Most likely class", type: .int64),
            .init(name: "classLabelProbs", type: .dictionary(keyType: "int64")),
            .init(name: "caption", type: .string),
            .init(name: "score", type: .double),
            .init(name: "heatmap", type: .image(colorSpace: "Grayscale", width: 64, height: 48)),
            .init(name: "boxes", type: .multiArrayRange(dataType: "double", lower: [0, 4], upper: [nil, 4])),
            .init(name: "embedding", type: .multiArray(dataType: "float16", shape: [8])),
        ],
        metadata: Metadata(author: "tests", license: "MIT", shortDescription: "Every feature type", version: "2"))
}

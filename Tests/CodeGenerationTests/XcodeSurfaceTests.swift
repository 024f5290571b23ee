import CodeGeneration
import Foundation
import TestSupport
import XCTest

/// The generated surface, point by point, against what Apple documents of
/// the classes Xcode generates. Apple publishes no specification of the
/// generated file: its article "Integrating a Core ML Model into Your App"
/// names the three classes and their roles, the framework reference pages
/// give the APIs the classes wrap; the members' exact shapes are observed in
/// Xcode's own output (Xcode 15's `.swift`, `.h` and `.m` files that projects
/// commit, such as a YOLOv8 detector's and DeepLabV3's). Each row says which.
/// A row marked `differs` is a difference on purpose, and README.md's
/// "Typed classes" section must say it.
final class XcodeSurfaceTests: XCTestCase {
    enum Source {
        /// An Apple documentation page.
        case documented(String)
        /// Xcode's generated files, as observed.
        case observed
    }

    struct Row {
        var point: String
        var source: Source
        /// Text that must appear in the generated AgeNet.swift (or, with
        /// `objc`, AgeNet.h); for a `differs` row, the text README.md uses.
        var swift: [String]
        var objc: [String] = []
        var differs: String? = nil
    }

    static let article = "https://developer.apple.com/documentation/coreml/integrating-a-core-ml-model-into-your-app"
    static let reference = "https://developer.apple.com/documentation/coreml/"

    static let rows: [Row] = [
        Row(point: "three classes: the model, its inputs, its outputs, named after the model file", source: .documented(article),
            swift: ["class AgeNet {", "class AgeNetInput : MLFeatureProvider {", "class AgeNetOutput : MLFeatureProvider {"],
            objc: ["@interface AgeNet : NSObject", "@interface AgeNetInput : NSObject<MLFeatureProvider>", "@interface AgeNetOutput : NSObject<MLFeatureProvider>"]),
        Row(point: "inputs and outputs are feature providers: featureNames and featureValue(for:)", source: .documented(reference + "mlfeatureprovider"),
            swift: ["var featureNames: Set<String> {", "func featureValue(for featureName: String) -> MLFeatureValue? {"]),
        Row(point: "one typed property per input; an image is a CVPixelBuffer", source: .documented(reference + "mlfeaturevalue/imagebuffervalue"),
            swift: ["var data: CVPixelBuffer"], objc: ["@property (readwrite, nonatomic) CVPixelBufferRef data;"]),
        Row(point: "an initializer taking every input", source: .observed,
            swift: ["init(data: CVPixelBuffer) {"], objc: ["- (instancetype)initWithData:(CVPixelBufferRef)data NS_DESIGNATED_INITIALIZER;"]),
        Row(point: "image inputs from a CGImage or a file, sized by Core ML to the model's input", source: .documented(reference + "mlfeaturevalue/init(cgimage:pixelswide:pixelshigh:pixelformattype:options:)"),
            swift: ["convenience init(dataWith data: CGImage) throws", "convenience init(dataAt data: URL) throws",
                    "pixelsWide: 227, pixelsHigh: 227", "func setData(with image: CGImage) throws"],
            objc: ["initWithDataFromCGImage:(CGImageRef)data", "initWithDataAtURL:(NSURL *)data", "setDataWithCGImage:"]),
        Row(point: "a classifier's outputs: classLabel (String) and classLabelProbs ([String : Double])", source: .observed,
            swift: ["var classLabel: String {", "var classLabelProbs: [String : Double] {"],
            objc: ["NSString *classLabel;", "NSDictionary<NSString *, NSNumber *> *classLabelProbs;"]),
        Row(point: "the output wraps Core ML's provider (Swift) or copies its values (Objective-C)", source: .observed,
            swift: ["private let provider : MLFeatureProvider", "init(features: MLFeatureProvider) {"]),
        Row(point: "the bundled compiled model: urlOfModelInThisBundle, init(configuration:)", source: .documented(reference + "mlmodelconfiguration"),
            swift: ["class var urlOfModelInThisBundle : URL {", "withExtension: \"mlmodelc\"",
                    "convenience init(configuration: MLModelConfiguration = MLModelConfiguration()) throws"],
            objc: ["+ (nullable NSURL *)URLOfModelInThisBundle;", "initWithConfiguration:(MLModelConfiguration *)configuration"]),
        Row(point: "a compiled model anywhere: init(contentsOf:) and init(contentsOf:configuration:)", source: .documented(reference + "mlmodel/init(contentsof:configuration:)"),
            swift: ["convenience init(contentsOf modelURL: URL) throws", "convenience init(contentsOf modelURL: URL, configuration: MLModelConfiguration) throws"],
            objc: ["initWithContentsOfURL:(NSURL *)modelURL error:", "initWithContentsOfURL:(NSURL *)modelURL configuration:"]),
        Row(point: "asynchronous loading: completion handler (iOS 14) and async (iOS 15)", source: .documented(reference + "mlmodel/load(contentsof:configuration:completionhandler:)"),
            swift: ["completionHandler handler: @escaping (Swift.Result<AgeNet, Error>) -> Void)",
                    "@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, *)\n    class func load(configuration: MLModelConfiguration = MLModelConfiguration()) async throws -> AgeNet"],
            objc: ["+ (void)loadWithConfiguration:", "+ (void)loadContentsOfURL:(NSURL *)modelURL configuration:"]),
        Row(point: "predictions: prediction(input:), prediction(input:options:), async (iOS 17)", source: .documented(reference + "mlmodel/prediction(from:options:)"),
            swift: ["func prediction(input: AgeNetInput) throws -> AgeNetOutput", "func prediction(input: AgeNetInput, options: MLPredictionOptions) throws -> AgeNetOutput",
                    "@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)\n    func prediction(input: AgeNetInput, options: MLPredictionOptions = MLPredictionOptions()) async throws -> AgeNetOutput"],
            objc: ["predictionFromFeatures:(AgeNetInput *)input error:", "predictionFromFeatures:(AgeNetInput *)input options:(MLPredictionOptions *)options error:"]),
        Row(point: "the convenience prediction taking the inputs themselves", source: .documented(article),
            swift: ["func prediction(data: CVPixelBuffer) throws -> AgeNetOutput"], objc: ["predictionFromData:(CVPixelBufferRef)data error:"]),
        Row(point: "batch predictions (iOS 12)", source: .documented(reference + "mlmodel/predictions(from:options:)"),
            swift: ["@available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, *)\n    func predictions(inputs: [AgeNetInput], options: MLPredictionOptions = MLPredictionOptions()) throws -> [AgeNetOutput]"],
            objc: ["predictionsFromInputs:(NSArray<AgeNetInput *> *)inputArray options:"]),
        Row(point: "the class's availability is the model file's (specification 1: iOS 11, macOS 10.13)", source: .documented(reference + "mlmodel"),
            swift: ["@available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, *)\nclass AgeNet {"],
            objc: ["API_AVAILABLE(macos(10.13), ios(11.0), watchos(4.0), tvos(11.0)) __attribute__((visibility(\"hidden\")))\n@interface AgeNet : NSObject"]),
        Row(point: "feature descriptions as doc comments (\"<description> as <type>\")", source: .observed,
            swift: ["/// Most likely class label as string value"]),
        Row(point: "a downloaded model compiled on the device, kept and loaded", source: .documented(reference + "downloading-and-compiling-a-model-on-the-user-s-device"),
            swift: ["class func compile(downloaded modelURL: URL, keepingAt compiledURL: URL? = nil", "class func urlOfCompiledDownload() throws -> URL"],
            objc: ["+ (void)compileDownloadedModelAtURL:(NSURL *)modelURL keepingAtURL:"],
            differs: "compile(downloaded:keepingAt:configuration:)"),
        Row(point: "optional inputs are Swift optionals with a nil default (Xcode types them as required values)", source: .observed,
            swift: [], differs: "optional inputs"),
        Row(point: "member doc comments are /// lines (Xcode writes /** */ blocks)", source: .observed,
            swift: ["    /// Make a prediction using the structured interface."], differs: "`///` lines"),
        Row(point: "an Objective-C image property retains its buffer when set (Xcode's assigns)", source: .observed,
            swift: [], objc: [], differs: "retains its pixel buffer"),
        Row(point: "the header names the tool and the specification version", source: .observed,
            swift: ["// Generated by coreml-generate from AgeNet.mlmodel (Core ML specification 1)."], differs: "names coreml-generate"),
    ]

    func testTheGeneratedSurfaceHasEveryRow() throws {
        let generator = try GeneratedModels.generator(forModelAt: GeneratedModels.ageNetPath())
        let swift = generator.files(in: .swift)[0].text
        let header = generator.files(in: .objc)[0].text
        for row in Self.rows {
            for text in row.swift { XCTAssertTrue(swift.contains(text), "\(row.point): AgeNet.swift lacks\n\(text)") }
            for text in row.objc { XCTAssertTrue(header.contains(text), "\(row.point): AgeNet.h lacks\n\(text)") }
        }
    }

    /// Every difference on purpose is written down where users read.
    func testTheReadmeRecordsEveryDifference() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for row in Self.rows {
            if let differs = row.differs { XCTAssertTrue(readme.contains(differs), "README.md does not mention: \(row.point) ('\(differs)')") }
        }
    }

    /// The optional inputs and the Objective-C setter, shown on the detector
    /// (optional threshold inputs) and the every-kind model (an image input).
    func testTheDifferencesShowInTheirFiles() throws {
        let models = try GeneratedModels.all()
        let detector = models.first { $0.name == "Detector" }!.generator
        XCTAssertTrue(detector.files(in: .swift)[0].text.contains("var iouThreshold: Double?"))
        XCTAssertTrue(detector.files(in: .swift)[0].text.contains("iouThreshold: Double? = nil"))
        XCTAssertTrue(detector.files(in: .objc)[0].text.contains("@property (readwrite, nonatomic, strong, nullable) NSNumber *iouThreshold;"))
        let implementation = try GeneratedModels.generator(forModelAt: GeneratedModels.ageNetPath()).files(in: .objc)[1].text
        XCTAssertTrue(implementation.contains("- (void)setData:(CVPixelBufferRef)data {\n    CVPixelBufferRetain(data);\n    CVPixelBufferRelease(_data);"))
    }
}

/// The Objective-C pair: `<Name>.h` declares `<Name>Input`, `<Name>Output`
/// and `<Name>` as Xcode does, `<Name>.m` implements them (ARC).
struct ObjCHeader: SourceWriter {
    let generator: ClassGenerator
    let source = SourceText()

    /// After each class and member: its availability and visibility.
    private var visibility: String { generator.isPublic ? "__attribute__((visibility(\"default\")))" : "__attribute__((visibility(\"hidden\")))" }

    private func member(_ api: Availability) -> String {
        (generator.memberAvailability(api).map { " " + $0.objcAttributes } ?? "") + " " + visibility
    }

    func write() {
        source.lines(generator.fileComment("\(name).h") + [""])
        source.lines(["#import <Foundation/Foundation.h>", "#import <CoreML/CoreML.h>", "#include <stdint.h>", "#include <os/log.h>", "",
                      "NS_ASSUME_NONNULL_BEGIN", "", ""])
        writeInput()
        source.lines(["", ""])
        writeOutput()
        source.lines(["", ""])
        writeModel()
        source.lines(["", "NS_ASSUME_NONNULL_END"])
    }

    private func writeInput() {
        writeFeatureClass("Input", "Model Prediction Input Type", inputs)
        let images = generator.imageInputs
        if !images.isEmpty {
            for (suffix, type) in [("FromCGImage", "(CGImageRef)"), ("AtURL", "(NSURL *)")] {
                source.line()
                source.line("- (nullable instancetype)\(ObjCText.imageInitializer(inputs, images, suffix, type))\(member(.imageConversion));")
            }
            for image in images {
                source.line()
                source.line("- (BOOL)set\(ObjCText.capitalized(image.objcName))WithCGImage:(CGImageRef)image error:(NSError * _Nullable __autoreleasing * _Nullable)error\(member(.imageConversion));")
                source.line("- (BOOL)set\(ObjCText.capitalized(image.objcName))WithURL:(NSURL *)imageURL error:(NSError * _Nullable __autoreleasing * _Nullable)error\(member(.imageConversion));")
            }
        }
        source.line("@end")
    }

    private func writeOutput() {
        writeFeatureClass("Output", "Model Prediction Output Type", outputs)
        source.line("@end")
    }

    /// `@interface <Name><suffix>`, a property per feature and the
    /// designated initializer taking them all (the caller ends it).
    private func writeFeatureClass(_ suffix: String, _ summary: String, _ features: [GeneratedFeature]) {
        source.line("/// " + summary)
        source.line("\(generator.availability.objcAttributes) \(visibility)")
        source.line("@interface \(name)\(suffix) : NSObject<MLFeatureProvider>")
        for feature in features {
            source.line()
            source.documentation(feature.documentation)
            source.line(feature.objcProperty)
        }
        source.line("- (instancetype)init NS_UNAVAILABLE;")
        source.line("- (instancetype)\(ObjCText.initializer(features)) NS_DESIGNATED_INITIALIZER;")
    }

    private func writeModel() {
        let input = name + "Input", output = name + "Output"
        let error = "error:(NSError * _Nullable __autoreleasing * _Nullable)error"
        source.line("/// Class for model loading and prediction")
        if !generator.modelDescriptionLines.isEmpty { source.lines(["///"] + generator.modelComment("///")) }
        source.line("\(generator.availability.objcAttributes) \(visibility)")
        source.line("@interface \(name) : NSObject")
        source.line("@property (readonly, nonatomic, nullable) MLModel * model;")
        let declarations: [(doc: [String], declaration: String)] = [
            (["URL of the underlying .mlmodelc directory."], "+ (nullable NSURL *)URLOfModelInThisBundle;"),
            (["Initialize \(name) instance from an existing MLModel object."], "- (instancetype)initWithMLModel:(MLModel *)model NS_DESIGNATED_INITIALIZER;"),
            (["Initialize \(name) instance with the model in this bundle."], "- (nullable instancetype)init;"),
            (["Initialize \(name) instance with the model in this bundle."],
             "- (nullable instancetype)initWithConfiguration:(MLModelConfiguration *)configuration \(error)\(member(.configuration));"),
            (["Initialize \(name) instance from the model URL (a .mlmodelc directory)."], "- (nullable instancetype)initWithContentsOfURL:(NSURL *)modelURL \(error);"),
            (["Initialize \(name) instance from the model URL (a .mlmodelc directory)."],
             "- (nullable instancetype)initWithContentsOfURL:(NSURL *)modelURL configuration:(MLModelConfiguration *)configuration \(error)\(member(.configuration));"),
            (["Construct \(name) instance asynchronously with configuration."],
             "+ (void)loadWithConfiguration:(MLModelConfiguration *)configuration completionHandler:(void (^)(\(name) * _Nullable model, NSError * _Nullable error))handler\(member(.loadCompletion));"),
            (["Construct \(name) instance asynchronously with URL of .mlmodelc directory and configuration."],
             "+ (void)loadContentsOfURL:(NSURL *)modelURL configuration:(MLModelConfiguration *)configuration completionHandler:(void (^)(\(name) * _Nullable model, NSError * _Nullable error))handler\(member(.loadCompletion));"),
            (["Make a prediction using the standard interface."], "- (nullable \(output) *)predictionFromFeatures:(\(input) *)input \(error);"),
            (["Make a prediction using the standard interface."],
             "- (nullable \(output) *)predictionFromFeatures:(\(input) *)input options:(MLPredictionOptions *)options \(error);"),
            (["Make an asynchronous prediction using the standard interface."],
             "- (void)predictionFromFeatures:(\(input) *)input completionHandler:(void (^)(\(output) * _Nullable output, NSError * _Nullable error))completionHandler\(member(.predictionAsync));"),
            (["Make an asynchronous prediction using the standard interface."],
             "- (void)predictionFromFeatures:(\(input) *)input options:(MLPredictionOptions *)options completionHandler:(void (^)(\(output) * _Nullable output, NSError * _Nullable error))completionHandler\(member(.predictionAsync));"),
            (["Make a prediction using the convenience interface."] + inputs.map { "\($0.objcName): " + $0.documentation },
             "- (nullable \(output) *)\(ObjCText.convenienceSelector(inputs)) \(error);"),
            (["Batch prediction."],
             "- (nullable NSArray<\(output) *> *)predictionsFromInputs:(NSArray<\(input) *> *)inputArray options:(MLPredictionOptions *)options \(error)\(member(.configuration));"),
            (["Where compileDownloadedModelAtURL: keeps the compiled model unless told otherwise:",
              "\(generator.resourceName).mlmodelc in the app's Application Support folder (created if missing)."],
             "+ (nullable NSURL *)URLOfCompiledDownloadWithError:(NSError * _Nullable __autoreleasing * _Nullable)error;"),
            (["Compile a downloaded .mlmodel on the device, keep the compiled model at compiledURL",
              "(nil: URLOfCompiledDownload), replacing the one kept there before, and load it.",
              "Core ML compiles into a temporary folder the system may delete; later launches load the kept",
              "model with initWithContentsOfURL:configuration:error: without compiling again."],
             "+ (void)compileDownloadedModelAtURL:(NSURL *)modelURL keepingAtURL:(nullable NSURL *)compiledURL configuration:(MLModelConfiguration *)configuration completionHandler:(void (^)(\(name) * _Nullable model, NSError * _Nullable error))handler\(member(.compileAsync));"),
        ]
        for (doc, declaration) in declarations {
            source.line()
            for line in doc { source.documentation(line) }
            source.line(declaration)
        }
        source.line("@end")
    }
}

/// Text both Objective-C files use.
enum ObjCText {
    static func capitalized(_ name: String) -> String {
        name.prefix(1).uppercased() + name.dropFirst()
    }

    /// `initWithData:(CVPixelBufferRef)data other:(double)other`.
    static func initializer(_ features: [GeneratedFeature]) -> String {
        features.enumerated().map { index, feature in
            (index == 0 ? "initWith" + capitalized(feature.objcName) : feature.objcName) + ":" + feature.objcParameterType + feature.objcName
        }.joined(separator: " ")
    }

    /// `initWithDataFromCGImage:(CGImageRef)data other:(double)other error:...`.
    static func imageInitializer(_ inputs: [GeneratedFeature], _ images: [GeneratedFeature], _ suffix: String, _ type: String) -> String {
        inputs.enumerated().map { index, input in
            let isImage = images.contains { $0.name == input.name }
            let label = (index == 0 ? "initWith" + capitalized(input.objcName) : input.objcName) + (isImage ? suffix : "")
            return label + ":" + (isImage ? type : input.objcParameterType) + input.objcName
        }.joined(separator: " ") + " error:(NSError * _Nullable __autoreleasing * _Nullable)error"
    }

    /// `predictionFromData:(CVPixelBufferRef)data other:(double)other`.
    static func convenienceSelector(_ inputs: [GeneratedFeature]) -> String {
        inputs.enumerated().map { index, input in
            (index == 0 ? "predictionFrom" + capitalized(input.objcName) : input.objcName) + ":" + input.objcParameterType + input.objcName
        }.joined(separator: " ")
    }

    /// `[MLFeatureValue featureValueWithName:@"x"]` for an Objective-C literal.
    static func literal(_ feature: GeneratedFeature) -> String {
        "@\"" + Identifiers.objcLiteral(feature.name) + "\""
    }
}

/// `<Name>.m`: the classes `ObjCHeader` declares, as Xcode implements
/// them (ARC), and the download helper's compile-keep-load sequence.
struct ObjCImplementation: SourceWriter {
    let generator: ClassGenerator
    let source = SourceText()
    private let error = "error:(NSError * _Nullable __autoreleasing * _Nullable)error"

    func write() {
        source.lines(generator.fileComment("\(name).m") + [""])
        source.lines(["#if !__has_feature(objc_arc)",
                      "#error This file must be compiled with automatic reference counting enabled (-fobjc-arc)",
                      "#endif", "", "#import \"\(name).h\"", ""])
        writeFeatures("\(name)Input", inputs)
        writeImageConveniences()
        source.lines(["@end", ""])
        writeFeatures("\(name)Output", outputs)
        source.lines(["@end", ""])
        writeOutputFromFeatures()
        writeModel()
        source.line("@end")
    }

    /// The designated initializer, `dealloc` for pixel buffers, and the
    /// `MLFeatureProvider` methods of a class holding `features`.
    private func writeFeatures(_ className: String, _ features: [GeneratedFeature]) {
        source.line("@implementation \(className)")
        source.line()
        source.block("- (instancetype)\(ObjCText.initializer(features)) {") { body in
            body.line("self = [super init];")
            body.block("if (self) {") { body in
                for feature in features {
                    body.line("_\(feature.objcName) = \(feature.objcName);")
                    if case .image = feature.kind { body.line("CVPixelBufferRetain(_\(feature.objcName));") }
                }
            }
            body.line("return self;")
        }
        let images = features.filter { if case .image = $0.kind { true } else { false } }
        for image in images {
            // The property keeps its own reference (Xcode's assigns without one).
            source.line()
            source.block("- (void)set\(ObjCText.capitalized(image.objcName)):(CVPixelBufferRef)\(image.objcName) {") { body in
                body.line("CVPixelBufferRetain(\(image.objcName));")
                body.line("CVPixelBufferRelease(_\(image.objcName));")
                body.line("_\(image.objcName) = \(image.objcName);")
            }
        }
        if !images.isEmpty {
            source.line()
            source.block("- (void)dealloc {") { body in
                for image in images { body.line("CVPixelBufferRelease(_\(image.objcName));") }
            }
        }
        source.line()
        source.block("- (NSSet<NSString *> *)featureNames {") { body in
            body.line("return [NSSet setWithArray:@[" + features.map(ObjCText.literal).joined(separator: ", ") + "]];")
        }
        source.line()
        source.block("- (nullable MLFeatureValue *)featureValueForName:(NSString *)featureName {") { body in
            for feature in features {
                body.block("if ([featureName isEqualToString:\(ObjCText.literal(feature))]) {") { body in
                    if feature.isOptional {
                        body.line("if (self.\(feature.objcName) == \(feature.objcIsObject ? "nil" : "NULL")) { return nil; }")
                    }
                    body.line("return " + feature.objcFeatureValue("self.\(feature.objcName)") + ";")
                }
            }
            body.line("return nil;")
        }
        source.line()
    }

    private func writeImageConveniences() {
        let images = generator.imageInputs
        guard !images.isEmpty else { return }
        var taken = Set(inputs.map(\.objcName)).union(["self", "error"])
        let locals = Dictionary(uniqueKeysWithValues: images.map { ($0.name, Identifiers.unique($0.objcName + "Value", in: &taken)) })
        for (suffix, type, factory) in [("FromCGImage", "(CGImageRef)", "featureValueWithCGImage"), ("AtURL", "(NSURL *)", "featureValueWithImageAtURL")] {
            source.block("- (nullable instancetype)\(ObjCText.imageInitializer(inputs, images, suffix, type)) {") { body in
                for image in images {
                    body.line("MLFeatureValue *\(locals[image.name]!) = " + conversion(image, factory, image.objcName, error: "error") + ";")
                    body.line("if (\(locals[image.name]!) == nil) { return nil; }")
                }
                let arguments = inputs.enumerated().map { index, input in
                    let value = locals[input.name].map { "(CVPixelBufferRef)\($0).imageBufferValue" } ?? input.objcName
                    return (index == 0 ? "initWith" + ObjCText.capitalized(input.objcName) : input.objcName) + ":" + value
                }
                body.line("return [self \(arguments.joined(separator: " "))];")
            }
            source.line()
        }
        for image in images {
            for (suffix, type, parameter, factory) in [("CGImage", "CGImageRef", "image", "featureValueWithCGImage"),
                                                        ("URL", "NSURL *", "imageURL", "featureValueWithImageAtURL")] {
                source.block("- (BOOL)set\(ObjCText.capitalized(image.objcName))With\(suffix):(\(type))\(parameter) \(error) {") { body in
                    body.line("MLFeatureValue *value = " + conversion(image, factory, parameter, error: "error") + ";")
                    body.line("if (value == nil) { return NO; }")
                    body.line("self.\(image.objcName) = (CVPixelBufferRef)value.imageBufferValue;")
                    body.line("return YES;")
                }
                source.line()
            }
        }
    }

    private func conversion(_ image: GeneratedFeature, _ factory: String, _ value: String, error: String) -> String {
        guard case .image(let width, let height, _) = image.kind else { return value }
        return "[MLFeatureValue \(factory):\(value) pixelsWide:\(width) pixelsHigh:\(height) pixelFormatType:\(image.pixelFormat) options:nil error:\(error)]"
    }

    /// One function makes the output object from Core ML's features, for
    /// every prediction method.
    private func writeOutputFromFeatures() {
        let arguments = outputs.enumerated().map { index, output in
            (index == 0 ? "initWith" + ObjCText.capitalized(output.objcName) : output.objcName) + ":"
                + output.objcValue(of: "[features featureValueForName:\(ObjCText.literal(output))]")
        }
        source.line(generator.availability.objcAttributes)
        source.block("static \(name)Output *\(name)OutputFromFeatures(id<MLFeatureProvider> features) {") { body in
            body.line("return [[\(name)Output alloc] \(arguments.joined(separator: " "))];")
        }
        source.line()
    }

    private func writeModel() {
        let input = name + "Input", output = name + "Output", make = name + "OutputFromFeatures"
        let completion = "completionHandler:(void (^)(\(output) * _Nullable output, NSError * _Nullable error))completionHandler"
        let loaded = "completionHandler:(void (^)(\(name) * _Nullable model, NSError * _Nullable error))handler"
        source.line("@implementation \(name)")
        method("+ (nullable NSURL *)URLOfModelInThisBundle") { body in
            body.line("NSString *assetPath = [[NSBundle bundleForClass:[self class]] pathForResource:@\"\(Identifiers.objcLiteral(generator.resourceName))\" ofType:@\"mlmodelc\"];")
            body.line("if (nil == assetPath) { os_log_error(OS_LOG_DEFAULT, \"Could not load %{public}s.mlmodelc in the bundle resource\", \"\(Identifiers.objcLiteral(generator.resourceName))\"); return nil; }")
            body.line("return [NSURL fileURLWithPath:assetPath];")
        }
        method("- (instancetype)initWithMLModel:(MLModel *)model") { body in
            body.line("self = [super init];")
            body.line("if (!self) { return nil; }")
            body.line("_model = model;")
            body.line("if (_model == nil) { return nil; }")
            body.line("return self;")
        }
        method("- (nullable instancetype)init") {
            $0.line("return [self initWithContentsOfURL:(NSURL * _Nonnull)self.class.URLOfModelInThisBundle error:nil];")
        }
        method("- (nullable instancetype)initWithConfiguration:(MLModelConfiguration *)configuration \(error)") {
            $0.line("return [self initWithContentsOfURL:(NSURL * _Nonnull)self.class.URLOfModelInThisBundle configuration:configuration error:error];")
        }
        method("- (nullable instancetype)initWithContentsOfURL:(NSURL *)modelURL \(error)") {
            $0.line("MLModel *model = [MLModel modelWithContentsOfURL:modelURL error:error];")
            $0.line("if (model == nil) { return nil; }")
            $0.line("return [self initWithMLModel:model];")
        }
        method("- (nullable instancetype)initWithContentsOfURL:(NSURL *)modelURL configuration:(MLModelConfiguration *)configuration \(error)") {
            $0.line("MLModel *model = [MLModel modelWithContentsOfURL:modelURL configuration:configuration error:error];")
            $0.line("if (model == nil) { return nil; }")
            $0.line("return [self initWithMLModel:model];")
        }
        method("+ (void)loadWithConfiguration:(MLModelConfiguration *)configuration \(loaded)") {
            $0.line("[self loadContentsOfURL:(NSURL * _Nonnull)[self URLOfModelInThisBundle] configuration:configuration completionHandler:handler];")
        }
        method("+ (void)loadContentsOfURL:(NSURL *)modelURL configuration:(MLModelConfiguration *)configuration \(loaded)") { body in
            body.block("[MLModel loadContentsOfURL:modelURL configuration:configuration completionHandler:^(MLModel * _Nullable model, NSError * _Nullable error) {", closer: "}];") { body in
                body.line("handler(model == nil ? nil : [[\(name) alloc] initWithMLModel:(MLModel * _Nonnull)model], error);")
            }
        }
        method("- (nullable \(output) *)predictionFromFeatures:(\(input) *)input \(error)") {
            $0.line("return [self predictionFromFeatures:input options:[[MLPredictionOptions alloc] init] error:error];")
        }
        method("- (nullable \(output) *)predictionFromFeatures:(\(input) *)input options:(MLPredictionOptions *)options \(error)") {
            $0.line("id<MLFeatureProvider> outFeatures = [self.model predictionFromFeatures:input options:options error:error];")
            $0.line("if (!outFeatures) { return nil; }")
            $0.line("return \(make)(outFeatures);")
        }
        for withOptions in [false, true] {
            let options = withOptions ? " options:(MLPredictionOptions *)options" : ""
            method("- (void)predictionFromFeatures:(\(input) *)input\(options) \(completion)") { body in
                body.block("[self.model predictionFromFeatures:input\(withOptions ? " options:options" : "") completionHandler:^(id<MLFeatureProvider> _Nullable prediction, NSError * _Nullable predictionError) {", closer: "}];") { body in
                    body.line("completionHandler(prediction == nil ? nil : \(make)((id<MLFeatureProvider> _Nonnull)prediction), predictionError);")
                }
            }
        }
        let arguments = inputs.enumerated().map { index, input in
            (index == 0 ? "initWith" + ObjCText.capitalized(input.objcName) : input.objcName) + ":" + input.objcName
        }
        method("- (nullable \(output) *)\(ObjCText.convenienceSelector(inputs)) \(error)") {
            $0.line("return [self predictionFromFeatures:[[\(input) alloc] \(arguments.joined(separator: " "))] error:error];")
        }
        method("- (nullable NSArray<\(output) *> *)predictionsFromInputs:(NSArray<\(input) *> *)inputArray options:(MLPredictionOptions *)options \(error)") { body in
            body.line("id<MLBatchProvider> inBatch = [[MLArrayBatchProvider alloc] initWithFeatureProviderArray:inputArray];")
            body.line("id<MLBatchProvider> outBatch = [self.model predictionsFromBatch:inBatch options:options error:error];")
            body.line("if (!outBatch) { return nil; }")
            body.line("NSMutableArray<\(output) *> *results = [NSMutableArray arrayWithCapacity:(NSUInteger)outBatch.count];")
            body.block("for (NSInteger i = 0; i < outBatch.count; i++) {") { body in
                body.line("[results addObject:\(make)([outBatch featuresAtIndex:i])];")
            }
            body.line("return results;")
        }
        writeDownloadedModel(loaded)
    }

    private func writeDownloadedModel(_ loaded: String) {
        method("+ (nullable NSURL *)URLOfCompiledDownloadWithError:(NSError * _Nullable __autoreleasing * _Nullable)error") { body in
            body.line("NSURL *folder = [[NSFileManager defaultManager] URLForDirectory:NSApplicationSupportDirectory inDomain:NSUserDomainMask appropriateForURL:nil create:YES error:error];")
            body.line("return [folder URLByAppendingPathComponent:@\"\(Identifiers.objcLiteral(generator.resourceName)).mlmodelc\" isDirectory:YES];")
        }
        method("+ (void)compileDownloadedModelAtURL:(NSURL *)modelURL keepingAtURL:(nullable NSURL *)compiledURL configuration:(MLModelConfiguration *)configuration \(loaded)") { body in
            body.line("NSFileManager *files = [NSFileManager defaultManager];")
            body.line("NSURL *source = [files.temporaryDirectory URLByAppendingPathComponent:[NSString stringWithFormat:@\"%@.mlmodel\", [NSUUID UUID].UUIDString]];")
            body.line("NSError *copyError = nil;")
            body.line("if (source == nil || ![files copyItemAtURL:modelURL toURL:(NSURL * _Nonnull)source error:&copyError]) { handler(nil, copyError); return; }")
            body.block("[MLModel compileModelAtURL:(NSURL * _Nonnull)source completionHandler:^(NSURL * _Nullable compiled, NSError * _Nullable compileError) {", closer: "}];") { body in
                body.line("[files removeItemAtURL:(NSURL * _Nonnull)source error:nil];")
                body.line("if (compiled == nil) { handler(nil, compileError); return; }")
                body.line("NSError *keepError = nil;")
                body.line("NSURL *destination = compiledURL != nil ? compiledURL : [self URLOfCompiledDownloadWithError:&keepError];")
                body.line("if (destination == nil) { handler(nil, keepError); return; }")
                body.line("BOOL kept = [files fileExistsAtPath:(NSString * _Nonnull)destination.path]")
                body.line("    ? [files replaceItemAtURL:destination withItemAtURL:(NSURL * _Nonnull)compiled backupItemName:nil options:0 resultingItemURL:nil error:&keepError]")
                body.line("    : [files moveItemAtURL:(NSURL * _Nonnull)compiled toURL:destination error:&keepError];")
                body.line("if (!kept) { handler(nil, keepError); return; }")
                body.line("[self loadContentsOfURL:destination configuration:configuration completionHandler:handler];")
            }
        }
    }

    private func method(_ declaration: String, _ body: (SourceText) -> Void) {
        source.line()
        source.block(declaration + " {", body)
    }
}

/// The Swift file: `<Name>Input`, `<Name>Output` and `<Name>`, shaped as
/// Xcode generates them (README.md, "Typed classes", lists where they differ).
struct SwiftSource: SourceWriter {
    let generator: ClassGenerator
    let source = SourceText()

    private var access: String { generator.isPublic ? "public " : "" }

    func write() {
        source.lines(generator.fileComment("\(name).swift"))
        source.lines(["", "import CoreML", "", ""])
        writeInput()
        source.lines(["", ""])
        writeOutput()
        source.lines(["", ""])
        writeModel()
    }

    private func attributes(_ api: Availability) {
        if let needed = generator.memberAvailability(api) { source.lines(needed.swiftAttributes) }
    }

    private func literal(_ feature: GeneratedFeature) -> String {
        "\"" + Identifiers.swiftLiteral(feature.name) + "\""
    }

    // MARK: Input

    private func writeInput() {
        source.line("/// Model Prediction Input Type")
        source.lines(generator.availability.swiftAttributes)
        source.open("\(access)class \(name)Input : MLFeatureProvider {")
        for input in inputs {
            source.line()
            source.documentation(input.documentation)
            source.line("\(access)var \(input.swiftIdentifier): \(input.swiftDeclaredType)")
        }
        source.line()
        source.block("\(access)var featureNames: Set<String> {") { body in
            body.line("return [" + inputs.map(literal).joined(separator: ", ") + "]")
        }
        source.line()
        source.block("\(access)func featureValue(for featureName: String) -> MLFeatureValue? {") { body in
                for input in inputs {
                    body.block("if featureName == \(literal(input)) {") { body in
                        if input.isOptional {
                            body.line("guard let value = self.\(input.swiftIdentifier) else { return nil }")
                            body.line("return " + input.swiftFeatureValue("value"))
                        } else {
                            body.line("return " + input.swiftFeatureValue("self." + input.swiftIdentifier))
                        }
                    }
                }
            body.line("return nil")
        }
        source.line()
        let parameters = inputs.map { "\($0.swiftIdentifier): \($0.swiftDeclaredType)" + ($0.isOptional ? " = nil" : "") }
        source.block("\(access)init(\(parameters.joined(separator: ", "))) {") { body in
            for input in inputs { body.line("self.\(input.swiftIdentifier) = \(input.swiftIdentifier)") }
        }
        writeImageConveniences()
        writeShapedArrayConvenience()
        source.close()
    }

    /// The pictures of every image input from `CGImage`s or files, sized
    /// and converted as the model takes them (Core ML does the work).
    private func writeImageConveniences() {
        let images = generator.imageInputs
        guard !images.isEmpty else { return }
        for (suffix, type, initializer) in [("With", "CGImage", "cgImage"), ("At", "URL", "imageAt")] {
            let parameters = inputs.map { input in
                images.contains { $0.name == input.name } ? "\(input.swiftName)\(suffix) \(input.swiftIdentifier): \(type)"
                    : "\(input.swiftIdentifier): \(input.swiftDeclaredType)" + (input.isOptional ? " = nil" : "")
            }
            let arguments = inputs.map { input in
                images.contains { $0.name == input.name } ? "\(input.swiftLabel): try " + conversion(input, initializer, input.swiftIdentifier)
                    : "\(input.swiftLabel): \(input.swiftIdentifier)"
            }
            source.line()
            attributes(.imageConversion)
            source.block("\(access)convenience init(\(parameters.joined(separator: ", "))) throws {") { body in
                body.line("self.init(\(arguments.joined(separator: ", ")))")
            }
        }
        for image in images {
            for (type, initializer) in [("CGImage", "cgImage"), ("URL", "imageAt")] {
                source.line()
                attributes(.imageConversion)
                source.block("\(access)func set\(capitalized(image.swiftName))(with image: \(type)) throws {") { body in
                    body.line("self.\(image.swiftIdentifier) = try " + conversion(image, initializer, "image"))
                }
            }
        }
    }

    private func conversion(_ image: GeneratedFeature, _ initializer: String, _ value: String) -> String {
        guard case .image(let width, let height, _) = image.kind else { return value }
        return "MLFeatureValue(\(initializer): \(value), pixelsWide: \(width), pixelsHigh: \(height), "
            + "pixelFormatType: \(image.pixelFormat), options: nil).imageBufferValue!"
    }

    /// Arrays from `MLShapedArray`s (iOS 15), the other inputs as they are.
    private func writeShapedArrayConvenience() {
        guard generator.takesShapedArrays else { return }
        let parameters = inputs.map { input in
            "\(input.swiftIdentifier): " + (input.swiftShapedType.map { $0 + (input.isOptional ? "?" : "") } ?? input.swiftDeclaredType)
                + (input.isOptional ? " = nil" : "")
        }
        let arguments = inputs.map { input in
            guard input.swiftShapedType != nil else { return "\(input.swiftLabel): \(input.swiftIdentifier)" }
            return "\(input.swiftLabel): " + (input.isOptional ? "\(input.swiftIdentifier).map { MLMultiArray($0) }" : "MLMultiArray(\(input.swiftIdentifier))")
        }
        source.line()
        attributes(.loadAsync)
        source.block("\(access)convenience init(\(parameters.joined(separator: ", "))) {") { body in
            body.line("self.init(\(arguments.joined(separator: ", ")))")
        }
    }

    // MARK: Output

    private func writeOutput() {
        source.line("/// Model Prediction Output Type")
        source.lines(generator.availability.swiftAttributes)
        source.block("\(access)class \(name)Output : MLFeatureProvider {") { body in
            body.line()
            body.line("/// Source provided by CoreML")
            body.line("private let provider : MLFeatureProvider")
            for output in outputs {
                body.line()
                body.documentation(output.documentation)
                body.block("\(access)var \(output.swiftIdentifier): \(output.swiftType) {") { body in
                    body.line("return " + output.swiftValue(of: "self.provider.featureValue(for: \(literal(output)))!"))
                }
                if let shaped = output.swiftShapedType {
                    body.line()
                    body.documentation(output.documentation)
                    if let needed = generator.memberAvailability(.loadAsync) { body.lines(needed.swiftAttributes) }
                    body.block("\(access)var \(output.swiftName)ShapedArray: \(shaped) {") { body in
                        body.line("return \(shaped)(self.\(output.swiftIdentifier))")
                    }
                }
            }
            body.line()
            body.block("\(access)var featureNames: Set<String> {") { body in
                body.line("return self.provider.featureNames")
            }
            body.line()
            body.block("\(access)func featureValue(for featureName: String) -> MLFeatureValue? {") { body in
                body.line("return self.provider.featureValue(for: featureName)")
            }
            body.line()
            let parameters = outputs.map { "\($0.swiftIdentifier): \($0.swiftType)" }
            let values = outputs.map { "\(literal($0)) : " + $0.swiftFeatureValue($0.swiftIdentifier, insideTry: true) }
            body.block("\(access)init(\(parameters.joined(separator: ", "))) {") { body in
                body.line("self.provider = try! MLDictionaryFeatureProvider(dictionary: [\(values.joined(separator: ", "))])")
            }
            body.line()
            body.block("\(access)init(features: MLFeatureProvider) {") { body in
                body.line("self.provider = features")
            }
        }
    }

    // MARK: Model

    private func writeModel() {
        let input = name + "Input", output = name + "Output"
        source.line("/// Class for model loading and prediction")
        if !generator.modelDescriptionLines.isEmpty { source.lines(["///"] + generator.modelComment("///")) }
        source.lines(generator.availability.swiftAttributes)
        source.open("\(access)class \(name) {")
        source.line("\(access)let model: MLModel")
        source.line()
        source.line("/// URL of model assuming it was installed in the same bundle as this class")
        source.block("\(access)class var urlOfModelInThisBundle : URL {") { body in
            body.line("let bundle = Bundle(for: self)")
            body.line("return bundle.url(forResource: \"\(Identifiers.swiftLiteral(generator.resourceName))\", withExtension: \"mlmodelc\")!")
        }
            documented(["Construct \(name) instance with an existing MLModel object.", "",
                        "Usually the application does not use this initializer unless it makes a subclass of \(name).",
                        "Such application may want to use `MLModel(contentsOf:configuration:)` and `\(name).urlOfModelInThisBundle` to create a MLModel object to pass-in."],
                       ["model: MLModel object"], throwing: false)
            block("init(model: MLModel)") { $0.line("self.model = model") }

            documented(["Construct \(name) instance by loading the model from the app's bundle, with a configuration."],
                       ["configuration: the desired model configuration"])
            attributes(.configuration)
            block("convenience init(configuration: MLModelConfiguration = MLModelConfiguration()) throws") {
                $0.line("try self.init(contentsOf: type(of: self).urlOfModelInThisBundle, configuration: configuration)")
            }

            documented(["Construct \(name) instance with explicit path to mlmodelc file."], ["modelURL: the file url of the model"])
            block("convenience init(contentsOf modelURL: URL) throws") { $0.line("try self.init(model: MLModel(contentsOf: modelURL))") }

            documented(["Construct a model with URL of the .mlmodelc directory and configuration."],
                       ["modelURL: the file url of the model", "configuration: the desired model configuration"])
            attributes(.configuration)
            block("convenience init(contentsOf modelURL: URL, configuration: MLModelConfiguration) throws") {
                $0.line("try self.init(model: MLModel(contentsOf: modelURL, configuration: configuration))")
            }

        writeLoading()
        writePrediction(input: input, output: output)
        writeDownloadedModel()
        source.close()
    }

    private func writeLoading() {
        let loading = "Model loading may take time when the model content is not immediately available (e.g. encrypted model). Use this factory method especially when the caller is on the main thread."
        documented(["Construct \(name) instance asynchronously with optional configuration.", "", loading],
                   ["configuration: the desired model configuration",
                    "handler: the completion handler to be called when the model loading completes successfully or unsuccessfully"], throwing: false)
        attributes(.loadCompletion)
        block("class func load(configuration: MLModelConfiguration = MLModelConfiguration(), completionHandler handler: @escaping (Swift.Result<\(name), Error>) -> Void)") {
            $0.line("return self.load(contentsOf: self.urlOfModelInThisBundle, configuration: configuration, completionHandler: handler)")
        }

        documented(["Construct \(name) instance asynchronously with optional configuration.", "", loading],
                   ["configuration: the desired model configuration"])
        attributes(.loadAsync)
        block("class func load(configuration: MLModelConfiguration = MLModelConfiguration()) async throws -> \(name)") {
            $0.line("return try await self.load(contentsOf: self.urlOfModelInThisBundle, configuration: configuration)")
        }

        documented(["Construct \(name) instance asynchronously with URL of the .mlmodelc directory with optional configuration.", "", loading],
                   ["modelURL: the URL to the model", "configuration: the desired model configuration",
                    "handler: the completion handler to be called when the model loading completes successfully or unsuccessfully"], throwing: false)
        attributes(.loadCompletion)
        block("class func load(contentsOf modelURL: URL, configuration: MLModelConfiguration = MLModelConfiguration(), completionHandler handler: @escaping (Swift.Result<\(name), Error>) -> Void)") { body in
            body.block("MLModel.load(contentsOf: modelURL, configuration: configuration) { result in") { body in
                body.line("switch result {")
                body.line("case .failure(let error):")
                body.line("    handler(.failure(error))")
                body.line("case .success(let model):")
                body.line("    handler(.success(\(name)(model: model)))")
                body.line("}")
            }
        }

        documented(["Construct \(name) instance asynchronously with URL of the .mlmodelc directory with optional configuration.", "", loading],
                   ["modelURL: the URL to the model", "configuration: the desired model configuration"])
        attributes(.loadAsync)
        block("class func load(contentsOf modelURL: URL, configuration: MLModelConfiguration = MLModelConfiguration()) async throws -> \(name)") {
            $0.line("let model = try await MLModel.load(contentsOf: modelURL, configuration: configuration)")
            $0.line("return \(name)(model: model)")
        }
    }

    private func writePrediction(input: String, output: String) {
        documented(["Make a prediction using the structured interface."], ["input: the input to the prediction as \(input)"], returns: output)
        block("func prediction(input: \(input)) throws -> \(output)") {
            $0.line("return try self.prediction(input: input, options: MLPredictionOptions())")
        }

        documented(["Make a prediction using the structured interface."], ["input: the input to the prediction as \(input)", "options: prediction options"], returns: output)
        block("func prediction(input: \(input), options: MLPredictionOptions) throws -> \(output)") {
            $0.line("let outFeatures = try model.prediction(from: input, options: options)")
            $0.line("return \(output)(features: outFeatures)")
        }

        documented(["Make an asynchronous prediction using the structured interface."], ["input: the input to the prediction as \(input)", "options: prediction options"], returns: output)
        attributes(.predictionAsync)
        block("func prediction(input: \(input), options: MLPredictionOptions = MLPredictionOptions()) async throws -> \(output)") {
            $0.line("let outFeatures = try await model.prediction(from: input, options: options)")
            $0.line("return \(output)(features: outFeatures)")
        }

        documented(["Make a prediction using the convenience interface."],
                   inputs.map { "\($0.swiftName): " + $0.documentation }, returns: output)
        let parameters = inputs.map { "\($0.swiftIdentifier): \($0.swiftDeclaredType)" + ($0.isOptional ? " = nil" : "") }
        block("func prediction(\(parameters.joined(separator: ", "))) throws -> \(output)") {
            $0.line("return try self.prediction(input: \(input)(" + inputs.map { "\($0.swiftLabel): \($0.swiftIdentifier)" }.joined(separator: ", ") + "))")
        }

        documented(["Make a batch prediction using the structured interface."], ["inputs: the inputs to the prediction as [\(input)]", "options: prediction options"], returns: "[\(output)]")
        attributes(.configuration)
        block("func predictions(inputs: [\(input)], options: MLPredictionOptions = MLPredictionOptions()) throws -> [\(output)]") { body in
            body.line("let batchIn = MLArrayBatchProvider(array: inputs)")
            body.line("let batchOut = try model.predictions(from: batchIn, options: options)")
            body.line("var results : [\(output)] = []")
            body.line("results.reserveCapacity(inputs.count)")
            body.block("for i in 0..<batchOut.count {") { body in
                body.line("results.append(\(output)(features: batchOut.features(at: i)))")
            }
            body.line("return results")
        }
    }

    /// What an app that downloads its model writes by hand: compile on the
    /// device, keep the compiled model, load it.
    private func writeDownloadedModel() {
        source.line()
        source.lines([
            "/// Where `compile(downloaded:keepingAt:configuration:)` keeps the compiled model unless told",
            "/// otherwise: `\(Identifiers.commentLines(generator.resourceName + ".mlmodelc").joined(separator: " "))` in the app's Application Support folder (created",
            "/// if missing; backed up, never purged by the system).",
        ])
        block("class func urlOfCompiledDownload() throws -> URL") { body in
            body.line("let folder = try FileManager.default.url(for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)")
            body.line("return folder.appendingPathComponent(\"\(Identifiers.swiftLiteral(generator.resourceName)).mlmodelc\", isDirectory: true)")
        }
        source.line()
        documented(["Compile a downloaded model on the device, keep it and load it: for an app that downloads",
                    "its model instead of bundling it. Core ML compiles into a temporary folder that the system",
                    "may delete; this moves the compiled model to `compiledURL` (replacing the one kept there",
                    "before), so later launches load it with `load(contentsOf:configuration:)` or",
                    "`init(contentsOf:configuration:)` without compiling again. The download may have any file",
                    "name (URLSession names it `.tmp`): a copy named `.mlmodel` is compiled."],
                   ["modelURL: the downloaded `.mlmodel` file",
                    "compiledURL: where to keep the compiled model (default: `urlOfCompiledDownload()`)",
                    "configuration: the desired model configuration"])
        attributes(.compileAsync)
        block("class func compile(downloaded modelURL: URL, keepingAt compiledURL: URL? = nil, configuration: MLModelConfiguration = MLModelConfiguration()) async throws -> \(name)") { body in
            body.line("let files = FileManager.default")
            body.line("let source = files.temporaryDirectory.appendingPathComponent(UUID().uuidString + \".mlmodel\")")
            body.line("try files.copyItem(at: modelURL, to: source)")
            body.line("defer { try? files.removeItem(at: source) }")
            body.line("let compiled = try await MLModel.compileModel(at: source)")
            body.line("let destination = try compiledURL ?? urlOfCompiledDownload()")
            body.lines(["if files.fileExists(atPath: destination.path) {",
                        "    _ = try files.replaceItemAt(destination, withItemAt: compiled)",
                        "} else {",
                        "    try files.moveItem(at: compiled, to: destination)",
                        "}"])
            body.line("return try await load(contentsOf: destination, configuration: configuration)")
        }
    }

    // MARK: Helpers

    /// A member's doc comment in Xcode's layout (as `///` lines: no text
    /// from the file can end it).
    private func documented(_ summary: [String], _ parameters: [String], throwing: Bool = true, returns: String? = nil) {
        var lines = summary
        if !parameters.isEmpty {
            lines += ["", "- parameters:"] + parameters.map { "    - " + $0 }
        }
        if throwing { lines += ["", "- throws: an NSError object that describes the problem"] }
        if let returns { lines += ["", "- returns: the result of the prediction as \(returns)"] }
        source.line()
        for line in lines { source.documentation(line) }
    }

    /// A member of the model class: `access` in front of `declaration`.
    private func block(_ declaration: String, _ body: (SourceText) -> Void) {
        source.block("\(access)\(declaration) {", body)
    }

    private func capitalized(_ name: String) -> String {
        name.prefix(1).uppercased() + name.dropFirst()
    }
}

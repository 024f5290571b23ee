import CLI
import FileIO
import Foundation
import ImageFiles
import Inspection
import ModelFiles
import ModelFormat
import Naming
import Runtime
import Threads

/// `predict`: run a `.mlmodel` on the CPU and print what it predicts.
enum PredictCommand: Command {
    static var configuration: CommandConfiguration { CommandConfiguration(
        name: "coreml-predict", abstract: "Run a Core ML model on the CPU: top labels for images (a detector's boxes), or outputs as .npy files.",
        discussion: """
            Images (PNG or JPEG, or folders of them) are turned as their EXIF orientation says (as OpenCV's imread; \
            --ignore-exif-orientation reads them as stored), fitted to the model's image input as Vision fits them \
            (--crop-and-scale, printed with the results) and preprocessed as Core ML does; several images are predicted one \
            per core at a time, each result printed in the order given as soon as it and those before it are done (a run \
            stopped with Ctrl-C keeps them). Array inputs come from .npy files with --input. \
            Runs on Linux, where Apple's Core ML does not exist, to check that a converted model computes what the \
            original did.
            """,
        versionDetails: """
            runs Core ML .mlmodel neural networks (any specification version) on the CPU, with the layers the converters write
            \(kernelLines())
            """,
        examples: [
            ("The three most probable labels of a picture", "coreml-predict AgeNet.mlmodel face.png --max-results 3"),
            ("Every picture of a folder, as JSON", "coreml-predict AgeNet.mlmodel photos --json"),
            ("An array in, every output saved as .npy", "coreml-predict Model.mlmodel --input x=x.npy --output-npy outputs"),
            ("How fast: the median of 20 predictions", "coreml-predict AgeNet.mlmodel face.png --benchmark 20"),
        ])
    }
    static let options = Options {
        Positional("model", valueName: "model.mlmodel", help: "The Core ML model to run.")
        Positional("images", valueName: "image", required: false, repeatable: true,
                   help: "PNG or JPEG files, or folders of them, for the model's image input.")
        Option("input", valueName: "name=file.npy", repeatable: true, help: """
            A value for a named input from a .npy file ([C,H,W] or [C] float32, finite unless --allow-non-finite); each input \
            once. For an image input, the values the network takes after the image's preprocessing (its scale, biases and \
            mean image are not applied; channels in the network's order), not pixels.
            """)
        Flag("allow-non-finite", help: """
            Feed --input arrays that hold NaN or infinities (refused by default: oneDNN's fused ReLU turns NaN into 0 where \
            the generic kernels keep it, so such a prediction looks normal but depends on the kernel).
            """)
        Option("max-results", valueName: "n", default: "5", help: "Show at most this many labels (a detector's boxes: the most confident) per image.")
        Option("allow", valueName: "label,...", help: "Show only these labels.")
        Option("deny", valueName: "label,...", help: "Never show these labels.")
        Option("crop-and-scale", valueName: "mode", default: "scaleFill", otherSpellings: ["center-crop", "image-crop-and-scale-option"],
               help: """
                   How images are fitted to the input, by Vision's names: scaleFill stretches to fill (iOS 18's CoreMLRequest \
                   default, scaleToFill), centerCrop scales the shorter side to fit and keeps the middle (VNCoreMLRequest's \
                   default), scaleFit scales the longer side to fit on black (Vision's padding is undocumented: no pixel parity).
                   """)
        Flag("ignore-exif-orientation", help: """
            Read image pixels as stored. By default a JPEG or PNG is turned as its EXIF orientation says, as OpenCV's imread does; \
            Vision turns it only as the orientation an app passes (CGImagePropertyOrientation, .up when none), so this \
            flag is the app that passes none.
            """)
        Option("draw", valueName: "out.png", help: "For a detector: write the image (one) with its boxes and labels drawn on it.")
        Option("iou-threshold", valueName: "0-1", help: "For a detector: the suppression's IoU threshold instead of the model's (its optional input iouThreshold).")
        Option("confidence-threshold", valueName: "value", formerSpellings: ["score-threshold"], help: """
            Show only labels at least this probable (0 to 1; default 0); for a detector, drop boxes less confident than this \
            instead of the model's threshold (its optional input confidenceThreshold).
            """)
        Option("output-npy", valueName: "folder", help: "Also write every model output to <folder>/<name>.npy (one image, or the arrays alone); these and --draw's picture are written all or nothing.")
        Flag("json", help: "Print results as JSON: one array, printed when every image is done (the text prints each image's result as it finishes).")
        Option("benchmark", valueName: "runs", help: "Also time this many predictions (1 to 100000) on the first input and print the median latency to stderr.")
        Flag("profile", help: "With --benchmark: also print each layer's mean time (ms) and its kernel to stderr.")
        Flag("generic-kernels", help: """
            Run every layer on the runtime's own kernels (convolutions as im2col and OpenBLAS products), not oneDNN's: \
            slower, for checking that a result does not depend on oneDNN. --version says which kernels run.
            """)
    }

    static func run(_ arguments: ParsedArguments) throws {
        let maxResults = try arguments.int("max-results")
        guard maxResults > 0 else { throw UsageError("--max-results takes a positive number of labels, not \(maxResults)") }
        let benchmarkRuns = try arguments.optionalValue("benchmark", as: Int.self)
        // At most 100,000: 2^31 runs of even a tiny model would run for days, printing nothing.
        if let runs = benchmarkRuns, !(1...100_000).contains(runs) {
            throw UsageError("--benchmark takes 1 to 100000 runs, not \(runs)")
        }
        if arguments.flag("profile") && benchmarkRuns == nil { throw UsageError("--profile times layers during --benchmark N: add it") }
        let cropAndScale = try arguments.value("crop-and-scale") { text in
            guard let mode = ImageResize.Mode(rawValue: text) else {
                let names = ImageResize.Mode.allCases.map(\.rawValue)
                let hint = closestMatch(to: text, in: names, maxDistance: 4).map { "; did you mean \($0)?" } ?? ""
                throw UsageError("takes \(names.joined(separator: ", "))\(hint)")
            }
            return mode
        }
        let modelPath = try arguments.string("model")
        // A TensorFlow graph, a Caffe file or an image given as the model says what it is.
        try Frontend.coreML.require(modelPath)
        let network = try Network(contentsOf: modelPath, kernels: arguments.flag("generic-kernels") ? .generic : .fastest)
        if CPUKernels.belowCPU {
            StandardStreams.printError("warning: \(TextEscaping.line(CPUKernels.summary()[1]))\n")
        }
        let allow = labelSet(arguments.optionalString("allow")), deny = labelSet(arguments.optionalString("deny"))
        try checkLabels(allow, "--allow", network.model)
        try checkLabels(deny, "--deny", network.model)
        let ranking = Ranking(maxResults: maxResults, scoreThreshold: try labelThreshold(arguments, network.model), allow: allow, deny: deny)
        let arrays = try arguments.values("input") { text in
            guard let named = NamedFile(parsing: text) else { throw UsageError("--input takes name=file.npy, got '\(text)'") }
            return named
        }
        try UsageError.checkDistinct(arrays.map(\.name), option: "input")
        for file in arrays {
            guard let image = network.model.inputs.first(where: { $0.name == file.name })?.image else { continue }
            let skipped = image.meanImage == nil ? "scale and biases are" : "scale, biases and mean image are"
            StandardStreams.printError("note: input '\(TextEscaping.line(file.name))' is an image: the .npy values are taken "
                                       + "as the network's input after the image's preprocessing (\(skipped) not applied)\n")
        }
        let imagePaths = try ImageList.expand(arguments.strings("images"))
        if imagePaths.count > 1, arguments.optionalString("output-npy") != nil {
            // Every image's outputs would be written to the same files, the last image's remaining.
            throw UsageError("--output-npy writes the outputs of one prediction: give one image, not \(imagePaths.count)")
        }
        var job = PredictionJob(network: network, arrays: arrays, ranking: ranking,
                                cropAndScale: cropAndScale, outputFolder: arguments.optionalString("output-npy"),
                                inputFiles: [modelPath] + arrays.map(\.path) + imagePaths)
        job.allowNonFinite = arguments.flag("allow-non-finite")
        let ignoresOrientation = arguments.flag("ignore-exif-orientation")
        job.orientation = ignoresOrientation ? .ignore : .apply
        try detectorOptions(arguments, network.model, images: imagePaths, into: &job)
        // How the images were fitted, so that a different label than an app's has an explanation.
        let fit = imagePaths.isEmpty ? nil : network.model.inputs.compactMap(\.image).first.map { image in
            (mode: cropAndScale.rawValue, size: "\(image.width)x\(image.height)")
        }
        let json = arguments.flag("json"), hasLabels = network.model.classifier != nil
        var printed = 0
        // The text results are printed (and flushed) as they come, in order: stopping the run (Ctrl-C) keeps those printed.
        let (results, failures) = try job.run(images: imagePaths) { result in
            guard !json else { return }
            WorkProgress.interrupt()
            if let fit, printed == 0 {
                // Two lines of at most 100 columns: how the images were fitted, and their orientation.
                print("images: \(fit.mode) to \(fit.size) (--crop-and-scale; Vision: centerCrop, CoreMLRequest: scaleToFill)")
                print("EXIF orientation " + (ignoresOrientation ? "ignored (--ignore-exif-orientation: Vision given .up)"
                                                                : "applied as OpenCV's imread does (Vision: pass it as the handler's orientation)"))
            }
            print(ResultPrinter.text([result], hasLabels: hasLabels, maxResults: maxResults), terminator: "")
            fflush(nil)  // every stdio stream: stdout is buffered when not a terminal
            printed += 1
        }
        if let runs = benchmarkRuns, imagePaths.isEmpty || !results.isEmpty {
            // On the first image that could be read.
            try benchmark(job, runs: runs, image: results.first.flatMap { $0.source == "arrays" ? nil : $0.source },
                          profile: arguments.flag("profile"))
        }
        if json {
            // One JSON array: printed when every image is done.
            print(ResultPrinter.json(results, cropAndScale: fit?.mode, exifOrientation: ignoresOrientation ? "ignored" : "applied"))
        } else if printed == 0 {
            print(ResultPrinter.text([], hasLabels: hasLabels, maxResults: maxResults), terminator: "")
        }
        // Each unreadable image said so on stderr as it came; the others were predicted.
        if failures > 0 { throw ReportedFailure() }
    }

    static func benchmark(_ job: PredictionJob, runs: Int, image: String?, profile: Bool) throws {
        let timing = try job.benchmark(runs: runs, image: image, profile: profile)
        fflush(nil)  // the results first
        var report = "benchmark: \(runs) runs, median \(timing.median) ms, min \(timing.minimum) ms\n"
            + kernelLines(job.network.kernels) + "\n"
        let kernels = Dictionary(job.network.kernelNames.map { ($0.step, $0.kernel) }, uniquingKeysWith: { first, _ in first })
        for (layer, milliseconds) in timing.layers {
            report += "  \(TextEscaping.line(layer)): \(milliseconds) ms (\(kernels[layer] ?? "?"))\n"
        }
        StandardStreams.printError(report)
    }

    /// Which kernels run, a line each, escaped for a terminal.
    static func kernelLines(_ choice: KernelChoice = .fastest) -> String {
        CPUKernels.summary(choice, naming: \.flag).map(TextEscaping.line).joined(separator: "\n")
    }

    /// --confidence-threshold for a classifier: the least probability of a
    /// label shown, 0 to 1 (0 when not given; a detector's is its input).
    static func labelThreshold(_ arguments: ParsedArguments, _ model: Model) throws -> Float {
        guard model.detector == nil, let text = arguments.optionalString("confidence-threshold") else { return 0 }
        guard model.classifier != nil else {
            throw UsageError("--confidence-threshold applies to a classifier's labels or a detector's boxes, and this model is neither "
                             + "(inspect shows its kind)")
        }
        let threshold = try arguments.float("confidence-threshold")
        guard threshold >= 0 && threshold <= 1 else {
            throw UsageError("--confidence-threshold takes a probability from 0 to 1 for a classifier's labels, not \(text)")
        }
        return threshold
    }

    /// --draw and --iou-threshold: for a detector only; --confidence-threshold
    /// sets a detector's threshold (a classifier's: `labelThreshold`).
    static func detectorOptions(_ arguments: ParsedArguments, _ model: Model, images: [String], into job: inout PredictionJob) throws {
        let given = ["draw", "iou-threshold"].filter { arguments.optionalString($0) != nil }
        guard model.detector != nil else {
            guard given.isEmpty else {
                throw UsageError("--\(given[0]) applies to object detectors, and this model is not one (inspect shows its kind)")
            }
            return
        }
        if let iou = try arguments.optionalValue("iou-threshold", as: Double.self) {
            guard (0...1).contains(iou) else { throw UsageError("--iou-threshold takes a value from 0 to 1, not \(iou)") }
            job.thresholds[Detector.iouThresholdFeature] = .number(iou)
        }
        if let confidence = try arguments.optionalValue("confidence-threshold", as: Double.self) {
            guard confidence >= 0, confidence.isFinite else { throw UsageError("--confidence-threshold takes a value of 0 or more, not \(confidence)") }
            job.thresholds[Detector.confidenceThresholdFeature] = .number(confidence)
        }
        if let drawing = arguments.optionalString("draw") {
            guard images.count == 1 else { throw UsageError("--draw writes one picture: give one image, not \(images.count)") }
            guard drawing.lowercased().hasSuffix(".png") else { throw UsageError("--draw writes a PNG file: its name ends in .png, not '\(drawing)'") }
            job.drawing = drawing
        }
    }

    /// Labels given to --allow or --deny must be the model's.
    static func checkLabels(_ labels: Set<String>, _ option: String, _ model: Model) throws {
        guard !labels.isEmpty else { return }
        guard let classifier = model.classifier else {
            throw UsageError("\(option) filters class labels, and this model is not a classifier")
        }
        let known = Set(classifier.labels.descriptions)
        let unknown = labels.subtracting(known).sorted()
        guard unknown.isEmpty else {
            let list = unknown.map { "'\($0)'" }.joined(separator: ", ")
            throw UsageError("\(option): the model has no label \(list) (it has \(known.count); inspect lists them)")
        }
    }

    static func labelSet(_ text: String?) -> Set<String> {
        Set((text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }
}


/// Image paths from the command line: files as given, folders expanded to
/// their PNG and JPEG files in name order.
enum ImageList {
    static let extensions: Set<String> = ["png", "jpg", "jpeg"]

    static func expand(_ paths: [String]) throws -> [String] {
        var result: [String] = []
        for path in paths {
            guard let kind = FileSystem.kind(of: path) else {
                throw ImageFileError(file: path, message: "no such file or folder")
            }
            if kind == .folder {
                // The names' exact bytes (readdir's), not Foundation's UTF-8 decoding of them.
                let names = try FileSystem.names(inFolder: path).sorted()
                // A folder inside is not an image, whatever its name (it is not walked).
                result += names.filter { name in
                    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
                    return extensions.contains(name[name.index(after: dot)...].lowercased())
                }.map { FileSystem.path(of: $0, in: path) }.filter { FileSystem.kind(of: $0) != .folder }
            } else {
                result.append(path)
            }
        }
        return result
    }
}

import CLI
import FileIO
import Foundation
import ImageFiles
import Images
import ModelFiles
import ModelFormat
import Naming
import Runtime
import Threads

/// One prediction's result, ready to print.
struct PredictionResult {
    var source: String
    var classLabel: String?
    var labels: [(label: String, probability: Float)]
    var outputs: [(name: String, shape: [Int], values: [Float])]
    /// A detector's boxes, in pixels of the image given (of the input for arrays).
    var boxes: [Box]?
}

/// A detected box in pixels of the picture it was found in.
struct Box {
    var detection: Detection
    var left: Double, top: Double, width: Double, height: Double
}

/// Feeds each image (or the arrays alone) through the network.
struct PredictionJob {
    let network: Network
    let arrays: [NamedFile]
    let ranking: Ranking
    let cropAndScale: ImageResize.Mode
    let outputFolder: String?
    /// Every file the run reads: an output file may not replace one.
    let inputFiles: [String]
    /// A detector's threshold overrides (`iouThreshold`, `confidenceThreshold`).
    var thresholds: [String: InputValue] = [:]
    /// Draws each image with its boxes (a detector, one image).
    var drawing: String? = nil
    /// Feeds arrays holding NaN or infinities instead of refusing them.
    var allowNonFinite = false
    /// Whether a JPEG is turned as its EXIF orientation says (OpenCV's imread) or read as stored.
    var orientation = ExifOrientation.Handling.apply

    /// Times `runs` predictions on the same inputs (decoded once).
    func benchmark(runs: Int, image: String?, profile: Bool = false) throws -> (median: Double, minimum: Double, layers: [(String, Double)]) {
        var inputs = try arrayInputs()
        if let image, let input = network.model.inputs.first(where: { $0.image != nil && inputs[$0.name] == nil }),
           let format = input.image {
            let decoded = try ImageFile.read(path: image, orientation: orientation)
            inputs[input.name] = .image(ImageResize.resize(decoded, width: format.width, height: format.height,
                                                           mode: cropAndScale))
        }
        var times: [Double] = []
        var layerTotals: [String: Double] = [:]
        var layerOrder: [String] = []
        defer { WorkProgress.finished() }
        WorkProgress.report("benchmark", done: 0, total: runs, unit: "runs")
        for run in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try network.predict(inputs, profile: profile ? { name, seconds in
                if layerTotals[name] == nil { layerOrder.append(name) }
                layerTotals[name, default: 0] += seconds
            } : nil)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            WorkProgress.report("benchmark", done: run + 1, total: runs, unit: "runs")
        }
        times.sort()
        let round = { (value: Double) in (value * 100).rounded() / 100 }
        return (round(times[times.count / 2]), round(times[0]), layerOrder.map { ($0, round(layerTotals[$0]! * 1000 / Double(runs))) })
    }

    /// Values for the inputs given as .npy files.
    private func arrayInputs() throws -> [String: InputValue] {
        var fixed: [String: InputValue] = [:]
        for file in arrays {
            guard let input = network.model.inputs.first(where: { $0.name == file.name }) else {
                // A name the model does not have is a command-line mistake (exit 64), as in convert.
                let names = network.model.inputs.map(\.name)
                let hint = closestMatch(to: file.name, in: names, maxDistance: max(2, file.name.count / 3)).map { "; did you mean '\($0)'?" } ?? ""
                throw UsageError("--input '\(TextEscaping.line(file.name))': the model has no input of that name "
                                 + "(its inputs: \(names.map(TextEscaping.line).joined(separator: ", ")))\(hint)")
            }
            let tensor = try NumpyFile.tensor(path: file.path, fitting: network.shapes[input.name]!, input: input.name)
            if !allowNonFinite { try NumpyFile.checkFinite(tensor, input: input.name, path: file.path) }
            fixed[input.name] = .array(tensor)
        }
        return fixed
    }

    /// Predicts each image (or the arrays alone). An image that cannot be
    /// read or predicted is reported on stderr as one `error:` line and
    /// skipped: the others are still predicted.
    /// - Returns: the results, and how many images failed.
    /// - Parameter emit: called with each result as soon as it and every
    ///   result before it are ready, in order (under a lock: one at a time),
    ///   so that the results printed so far stay when the run is stopped.
    func run(images: [String], emit: (PredictionResult) -> Void = { _ in }) throws -> (results: [PredictionResult], failures: Int) {
        let imageInputs = network.model.inputs.filter { $0.image != nil }
        let fixed = try arrayInputs()
        let missing = network.model.inputs.filter { fixed[$0.name] == nil }
        if images.isEmpty {
            if let input = missing.first {
                throw UsageError("no value for input '\(TextEscaping.line(input.name))': give image files or --input \(TextEscaping.line(input.name))=file.npy")
            }
            // Boxes in pixels of the image input, or of the first [C, H, W] array's H and W.
            let size = network.model.inputs.compactMap(\.image).first.map { ($0.width, $0.height) }
                ?? network.model.inputs.lazy.compactMap { network.shapes[$0.name] }.first { $0.dimensions.count == 3 }.map { ($0.width, $0.height) }
                ?? (1, 1)
            let result = try predict(fixed, source: "arrays", placement: ImageResize.placement(
                sourceWidth: size.0, sourceHeight: size.1, width: size.0, height: size.1, mode: .scaleFill))
            try writeFiles(of: result, picture: nil)
            emit(result)
            return ([result], 0)
        }
        if imageInputs.isEmpty, missing.count == 1, let array = missing.first, let dimensions = network.shapes[array.name]?.dimensions,
           dimensions.count == 3, dimensions[0] == 1 || dimensions[0] == 3 {
            // A picture's array: the model was converted without --image-input; say how to make it take a photo.
            let name = TextEscaping.line(array.name)
            let shape = " [\(dimensions.map(String.init).joined(separator: ", "))]"
            let model = inputFiles.first.map { "\(TextEscaping.line($0)): " } ?? ""
            throw RuntimeError("\(model)input '\(name)' is an array\(shape), not an image: convert again with --image-input \(name), "
                               + "or give --input \(name)=file.npy")
        }
        if imageInputs.isEmpty, missing.count == 1, let tensor = missing.first, let dimensions = network.shapes[tensor.name]?.dimensions,
           dimensions.count == 4, dimensions[0] == 1, dimensions[1] == 1 || dimensions[1] == 3 {
            // A transformer's pixels, converted without --image-input: say how to make it take a photo.
            let name = TextEscaping.line(tensor.name)
            let model = inputFiles.first.map { "\(TextEscaping.line($0)): " } ?? ""
            throw RuntimeError("\(model)input '\(name)' is a [\(dimensions.map(String.init).joined(separator: ", "))] tensor, not an image: "
                               + "convert again with --image-input \(name), or give --input \(name)=file.npy")
        }
        guard missing.count == 1, let imageInput = missing.first, let format = imageInput.image, imageInputs.contains(where: { $0.name == imageInput.name }) else {
            throw UsageError("images need exactly one image input left without an --input value; the model's inputs: "
                             + network.model.inputs.map { "\(TextEscaping.line($0.name)) (\($0.image == nil ? "array" : "image"))" }.joined(separator: ", "))
        }
        // A folder of images: one whole prediction per core at a time, each result handed on once it and all before it are done.
        let shared = Lock()
        var finished: [Int: Result<PredictionResult, any Error>?] = [:]
        var next = 0, done = 0, stopped = false
        let showsProgress = images.count > 1
        if showsProgress { WorkProgress.report("predicting", done: 0, total: images.count, unit: "images") }
        defer { if showsProgress { WorkProgress.finished() } }
        let outcomes = Throughput.map(images.count) { index -> Result<PredictionResult, any Error>? in
            let path = images[index]
            let outcome: Result<PredictionResult, any Error>?
            do {
                let picture = try ImageFile.read(path: path, orientation: orientation)
                let image = ImageResize.resize(picture, width: format.width, height: format.height, mode: cropAndScale)
                var inputs = fixed
                inputs[imageInput.name] = .image(image)
                let placement = ImageResize.placement(sourceWidth: picture.width, sourceHeight: picture.height,
                                                      width: format.width, height: format.height, mode: cropAndScale)
                let result = try predict(inputs, source: path, placement: placement)
                try writeFiles(of: result, picture: picture)
                outcome = .success(result)
            } catch let error as ImageFileError where images.count > 1 {
                shared.locked {
                    WorkProgress.interrupt()
                    StandardStreams.printError("error: \(TextEscaping.line(errorLine(for: error)))\n")
                }
                outcome = nil
            } catch {
                outcome = .failure(error)
            }
            shared.locked {
                finished[index] = outcome
                // In order: the first image that failed otherwise stops the results, as it would one image at a time.
                while !stopped, let ready = finished.removeValue(forKey: next) {
                    next += 1
                    switch ready {
                    case .success(let result)?: emit(result)
                    case .failure?: stopped = true
                    case nil: break
                    }
                }
                done += 1
                if showsProgress { WorkProgress.report("predicting", done: done, total: images.count, unit: "images") }
            }
            return outcome
        }
        let results = try outcomes.compactMap { try $0?.get() }
        return (results, outcomes.count - results.count)
    }

    private func predict(_ inputs: [String: InputValue], source: String, placement: ImageResize.Placement) throws -> PredictionResult {
        let prediction = try network.predict(inputs.merging(thresholds) { given, _ in given })
        let outputs = prediction.outputs.sorted { $0.key < $1.key }.map { (name: $0.key, shape: $0.value.shape.featureShape, values: $0.value.values) }
        let boxes = prediction.detections?.map { detection in
            let rectangle = placement.sourceRectangle(x: Double(detection.x), y: Double(detection.y),
                                                      width: Double(detection.width), height: Double(detection.height))
            return Box(detection: detection, left: rectangle.left, top: rectangle.top, width: rectangle.width, height: rectangle.height)
        }
        return PredictionResult(source: source, classLabel: prediction.classLabel,
                                labels: prediction.probabilities.map(ranking.apply) ?? [], outputs: outputs, boxes: boxes)
    }

    /// Writes what the run writes of one prediction, all or nothing
    /// (`AtomicFileSet`): every output to `outputFolder` (--output-npy),
    /// and the picture with its boxes (--draw). On a failure, a full disk
    /// included, no file is replaced, none is left half-written, and a
    /// folder made for the outputs is removed again.
    private func writeFiles(of result: PredictionResult, picture: Image?) throws {
        var arrays: [(path: String, output: (name: String, shape: [Int], values: [Float]))] = []
        if let folder = outputFolder {
            var written: [String: String] = [:]
            for output in result.outputs {
                // Feature names come from the model file: never a path.
                let name = NumpyOutputName.fileName(for: output.name)
                if let other = written[name] {
                    throw RuntimeError("outputs '\(other)' and '\(output.name)' would both be written to \(name)")
                }
                written[name] = output.name
                arrays.append((FileSystem.path(of: name, in: folder), output))
            }
        }
        let drawn = drawing.flatMap { path in picture.flatMap { picture in result.boxes.map { (path, picture, $0) } } }
        guard !arrays.isEmpty || drawn != nil else { return }
        let set = try AtomicFileSet(targets: arrays.map(\.path) + (drawn.map { [$0.0] } ?? []), inputs: inputFiles)
        if let folder = outputFolder { try set.createFolder(folder, intermediates: true) }
        for (path, output) in arrays {
            try NumpyFile.write(output.values, shape: output.shape, to: path, in: set)
        }
        if let (path, picture, boxes) = drawn { try BoxDrawing.write(picture, boxes: boxes, to: path, in: set) }
        try set.commit()
    }
}

/// The .npy file name of an output: its feature name with `/` (and NUL)
/// made `_`, so that a name such as `../../x` stays inside the folder.
enum NumpyOutputName {
    static func fileName(for feature: String) -> String {
        String(feature.map { $0 == "/" || $0 == "\0" ? "_" : $0 }) + ".npy"
    }
}

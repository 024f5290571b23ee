import CoreMLBackend
import FileIO
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import ImageFiles
import Images
import Inspection
import ModelFormat
import Naming
import Runtime
import Threads

/// What compressing a model's weights cost: the file's size against the
/// same model in float32, and how far the compressed model's outputs move
/// from the float model's on one probe input, both run by the runtime.
public struct FidelityReport: Sendable {
    /// One output of the model: the largest difference and, for scale,
    /// the largest magnitude of the float model's values.
    public struct Difference: Sendable {
        public var output: String
        public var maximum: Float
        public var largestValue: Float
    }

    /// What the probe was: "face.png", "x=x.npy", or the seeded random values.
    public var probe: String
    public var precision: Precision
    public var floatBytes: Int
    public var compressedBytes: Int
    public var differences: [Difference]
    /// A classifier's top label from the float and from the compressed model.
    public var topLabels: (float: String, compressed: String)?
    /// A detector's count of boxes kept by the float and the compressed model.
    public var boxCounts: (float: Int, compressed: Int)?

    public var sizeRatio: Double { Double(compressedBytes) / Double(max(floatBytes, 1)) }

    /// The seed of the random probe values.
    public static let seed: UInt64 = 2019

    /// The input both models run on: each input's values, and what they were.
    public struct Probe: Sendable {
        var inputs: [String: InputValue]
        /// "face.png", "x=x.npy", or the seeded random values.
        public var description: String
    }

    /// Runs `model` (the float weights) and the compressed model in `path`
    /// (`precision` says how it was written) on `probe`. The compressed
    /// network runs first and goes before the float one is made, so that
    /// the two are never in memory together.
    /// - Throws: `RuntimeError` when a model cannot run.
    public static func measure(float model: Model, compressed path: String, precision: Precision, probe: Probe) throws -> FidelityReport {
        // The file as written; a package's model and weight file (its float size, as a NeuralNetwork's: the weights' bytes dominate both).
        let compressedBytes: Int
        if MLProgramWriter.isPackage(path) {
            compressedBytes = try MLProgramReader.byteCount(of: path)
        } else {
            let (descriptor, size) = try ReadableFile.open(path)
            close(descriptor)
            compressedBytes = size
        }
        // Progress on a terminal: the layers run, of the compressed and then the float network.
        var done = 0
        defer { WorkProgress.finished() }
        var total = 0
        let step = { (_: String, _: Double) in
            done += 1
            WorkProgress.report("fidelity report", done: done, total: total, unit: "layers run")
        }
        // The compressed network goes before the float one is made.
        let (compressed, layers) = try { () throws -> (Prediction, Int) in
            let network = try Network(contentsOf: path)
            total = 2 * network.kernelNames.count  // the float network's layers: as many, until it is made
            WorkProgress.report("fidelity report", done: 0, total: total, unit: "layers run")
            return (try network.predict(probe.inputs, profile: step), network.kernelNames.count)
        }()
        let floatNetwork = try Network(model)
        total = layers + floatNetwork.kernelNames.count
        let float = try floatNetwork.predict(probe.inputs, profile: step)
        // A detector's kept rows differ in number and order: its network's rows are compared, and the count of boxes kept.
        let kept: Set<String> = model.detector == nil ? [] : [Detector.confidenceFeature, Detector.coordinatesFeature]
        let differences = compressed.outputs.keys.sorted().filter { !kept.contains($0) }.compactMap { name -> Difference? in
            guard let ours = compressed.outputs[name]?.values, let reference = float.outputs[name]?.values else { return nil }
            return Difference(output: name, maximum: zip(ours, reference).map { abs($0 - $1) }.max() ?? 0,
                              largestValue: reference.map(abs).max() ?? 0)
        }
        let labels = float.classLabel.flatMap { floatLabel in compressed.classLabel.map { (floatLabel, $0) } }
        let boxes = float.detections.flatMap { floatBoxes in compressed.detections.map { (floatBoxes.count, $0.count) } }
        return FidelityReport(probe: probe.description, precision: precision, floatBytes: try CoreMLWriter.fileSize(of: model, precision: .float32),
                              compressedBytes: compressedBytes, differences: differences, topLabels: labels, boxCounts: boxes)
    }

    /// The probe for `model` from `--probe` values: `name=x.npy` for an
    /// array input, an image file for an image input (in input order); an
    /// input left out gets seeded random values (0-255 pixels, or [0, 1)).
    /// Read before anything is written, so that a probe that does not fit
    /// stops the conversion early.
    /// - Throws: `RuntimeError` for a probe that names no input or does not
    ///   fit it, `ImageFileError` or a file error for one that cannot be read.
    public static func probe(for model: Model, _ probes: [String]) throws -> Probe {
        var inputs: [String: InputValue] = [:], named: [String] = []
        let shapes = try ShapeInference.shapes(of: model)  // the inputs' among them
        let arrays = probes.filter { $0.contains("=") && !FileSystem.exists($0) }
        var images = probes.filter { !arrays.contains($0) }
        for probe in arrays {
            guard let file = NamedFile(parsing: probe) else { throw RuntimeError("\(option: .probe) \(probe): an array input's probe is name=x.npy") }
            guard let input = model.inputs.first(where: { $0.name == file.name }), input.image == nil else {
                let names = model.inputs.filter { $0.image == nil }.map(\.name)
                throw RuntimeError("\(option: .probe) \(probe): the model has no array input '\(file.name)'"
                                   + (names.isEmpty ? "" : " (its array inputs: \(names.joined(separator: ", ")))"))
            }
            inputs[input.name] = .array(try NumpyFile.tensor(path: file.path, fitting: shapes[input.name]!, input: input.name))
            named.append(probe)
        }
        var random = SplitMix64(seed: seed)
        for input in model.inputs where inputs[input.name] == nil {
            if let format = input.image {
                if let path = images.first {
                    images.removeFirst()
                    inputs[input.name] = .image(ImageResize.resize(try ImageFile.read(path: path), width: format.width, height: format.height))
                    named.append(path)
                    continue
                }
                let count = format.width * format.height * format.channels
                inputs[input.name] = .image(Image(width: format.width, height: format.height, channels: format.channels,
                                                  pixels: (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
            } else {
                let shape = shapes[input.name]!
                inputs[input.name] = .array(Tensor(shape: shape, values: (0..<shape.count).map { _ in random.nextFloat(in: 0...1) }))
            }
        }
        if let extra = images.first { throw RuntimeError("\(option: .probe) \(extra): the model has no image input left for it (an array input takes name=x.npy)") }
        let description = named.isEmpty ? "seeded random values (seed \(seed))"
            : named.joined(separator: ", ") + (inputs.count > named.count ? ", seeded random values for the other inputs" : "")
        return Probe(inputs: inputs, description: description)
    }
}


extension FidelityReport {
    /// The report as `convert` prints it after the summary.
    public var text: String {
        var lines = ["Fidelity:     float32 -> \(precision.name), on \(probe)",
                     "  Size:       \(SummaryText.byteCount(floatBytes)) -> \(SummaryText.byteCount(compressedBytes)) "
                         + "(\(String(format: "%.2f", sizeRatio))x)"]
        for difference in differences {
            lines.append("  \(difference.output): largest difference \(Self.number(difference.maximum)) "
                         + "(largest value \(Self.number(difference.largestValue)))")
        }
        if let (float, compressed) = topLabels {
            lines.append(float == compressed ? "  Top label:  \(float), the same" : "  Top label:  \(float) -> \(compressed), CHANGED")
        }
        if let (float, compressed) = boxCounts {
            lines.append(float == compressed ? "  Boxes:      \(float) kept, the same count" : "  Boxes:      \(float) -> \(compressed) kept, CHANGED")
        }
        return lines.map { TextEscaping.line($0) }.joined(separator: "\n") + "\n"
    }

    /// The report as `convert --json` carries it (member `fidelity`).
    public var json: JSON {
        .object(["probe": .string(probe), "precision": .string(precision.name), "float32Bytes": .int(floatBytes),
                 "compressedBytes": .int(compressedBytes), "sizeRatio": .double(sizeRatio),
                 "outputs": .array(differences.map { .object(["name": .string($0.output), "maximumDifference": .float($0.maximum),
                                                              "largestValue": .float($0.largestValue)]) }),
                 "topLabel": topLabels.map { .object(["float32": .string($0.float), "compressed": .string($0.compressed),
                                                      "agrees": .bool($0.float == $0.compressed)]) } ?? .null,
                 "boxesKept": boxCounts.map { .object(["float32": .int($0.float), "compressed": .int($0.compressed)]) } ?? .null])
    }

    private static func number(_ value: Float) -> String { String(format: "%.3g", Double(value)) }
}

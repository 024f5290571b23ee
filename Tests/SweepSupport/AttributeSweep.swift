import Conversion
import CoreMLBackend
import Foundation
import ModelFormat
import Runtime
import TestSupport
import XCTest

// The attribute sweep (DESIGN 20, issue 30): for each op of a frontend,
// each attribute at the edges of its domain, a tiny model made by the
// framework itself with the framework's output for one input. A case ends
// in one of two ways, both right: converted, and our runtime computes what
// the framework did within 1e-4 * max(1, |ref|); or refused with one error
// line naming the attribute (or the op). Converted and different is the
// one wrong ending, and fails the test.
//
// Layout: Tests/Fixtures/sweep/<frontend>/cases.json, written by the
// frontend's scripts/fixtures/make_<frontend>_sweep.py beside the files:
//   {"framework": "onnxruntime 1.32.0",
//    "cases": [{"name": "resize_nearest_ceil", "op": "Resize",
//               "attribute": "nearest_mode", "value": "ceil",
//               "files": ["resize_nearest_ceil.onnx"],
//               "inputs": {"x": "resize_nearest_ceil_x.npy"},
//               "outputs": {"y": "resize_nearest_ceil_y.npy"},
//               "layout": "nchw"}]}
// "layout" "nhwc" (TensorFlow, Keras) says rank-4 arrays are [1, H, W, C]:
// inputs are fed, and references compared, as [C, H, W].

/// One case of a frontend's sweep manifest.
public struct SweepCase: Decodable, Sendable {
    public let name: String
    public let op: String
    /// The attribute at a chosen value; "" for a case about the op itself.
    public let attribute: String
    public let value: String
    /// The source files, the model first, relative to the manifest.
    public let files: [String]
    /// Input name -> .npy file.
    public let inputs: [String: String]
    /// Output name -> .npy file of the framework's result.
    public let outputs: [String: String]
    public let layout: String?
    /// Options a frontend's converter needs for this case (input shapes...).
    public let options: [String: String]?
}

struct SweepManifest: Decodable {
    let framework: String
    let cases: [SweepCase]
}

/// The file a case's model is written to and read back from before it runs.
public enum SweepFormat: Sendable {
    /// A NeuralNetwork `.mlmodel` (`CoreMLWriter`).
    case neuralNetwork
    /// An ML Program `.mlpackage` (`MLProgramWriter`, `--convert-to mlprogram`) computing in float32 (compared at
    /// 1e-4 * max(1, |ref|) as the other) or float16: then norm-wise, max |ours - ref| <= k * 2^-11 * max(1, max |ref|),
    /// k the program's operations other than `const` (at least those with float16 outputs, each rounding its
    /// result to float16, whose unit roundoff is 2^-11; run_mlprogram_torch.py states the bound). The writer's
    /// refusal (an operation it does not write yet, a constant beyond float16's range) is a refusal.
    case program(float16: Bool)
}

/// How one case ended.
public enum SweepOutcome: Sendable {
    /// Converted; the largest |ours - ref| relative to max(1, |ref|).
    case honoured(difference: Float)
    /// Refused with this error.
    case refused(String)
    /// Converted and computed something else, or the case could not be run.
    case wrong(String)

    var word: String {
        switch self {
        case .honoured: "honoured"
        case .refused: "refused"
        case .wrong: "WRONG"
        }
    }
}

public struct SweepResult: Sendable {
    public let testCase: SweepCase
    public let outcome: SweepOutcome
}

/// Runs every case of `Tests/Fixtures/sweep/<frontend>` through `convert`,
/// fails the calling test for each wrong ending, prints one summary line,
/// and, when `ATTRIBUTE_SWEEP_REPORT` names a folder, writes
/// `<frontend>.md` there (the rows of COVERAGE.md's sweep table); when
/// `ATTRIBUTE_SWEEP_PACKAGES` names one, the files the cases write stay in
/// its `<frontend>` folder; `ATTRIBUTE_SWEEP_PROGRAM_SPECIFICATION` (6 when
/// unset) is the specification version programs are written at.
/// - Parameter convert: the frontend's conversion of a case's files (the
///   folder holds them).
@discardableResult
public func runAttributeSweep(_ frontend: String, format: SweepFormat = .neuralNetwork, file: StaticString = #filePath, line: UInt = #line,
                              convert: (_ folder: URL, _ testCase: SweepCase) throws -> Model) throws -> [SweepResult] {
    let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/sweep/\(frontend)")
    let manifest = try JSONDecoder().decode(SweepManifest.self, from: Data(contentsOf: folder.appendingPathComponent("cases.json")))
    XCTAssertFalse(manifest.cases.isEmpty, "\(frontend): the sweep has no cases", file: file, line: line)
    XCTAssertEqual(Set(manifest.cases.map(\.name)).count, manifest.cases.count, "\(frontend): case names repeat", file: file, line: line)
    // ATTRIBUTE_SWEEP_PACKAGES keeps what the cases write, a folder a frontend (scripts/verify/mlprogram_sweep.sh checks them).
    var scratch = try temporaryFolder()
    if let kept = ProcessInfo.processInfo.environment["ATTRIBUTE_SWEEP_PACKAGES"], !kept.isEmpty {
        scratch = URL(fileURLWithPath: kept).appendingPathComponent(frontend)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }
    var results: [SweepResult] = []
    for testCase in manifest.cases {
        let outcome = sweepOutcome(testCase, folder: folder, scratch: scratch, format: format, convert: convert)
        if case .wrong(let why) = outcome {
            XCTFail("\(frontend) sweep, \(testCase.name) (\(testCase.op) \(testCase.attribute) = \(testCase.value)): \(why)", file: file, line: line)
        }
        results.append(SweepResult(testCase: testCase, outcome: outcome))
    }
    let count = { (word: String) in results.filter { $0.outcome.word == word }.count }
    let written = switch format {
    case .neuralNetwork: ""
    case .program(let float16): float16 ? " as float16 programs" : " as float32 programs"
    }
    print("attribute sweep \(frontend)\(written) (\(manifest.framework)): \(results.count) cases, \(count("honoured")) honoured, "
          + "\(count("refused")) refused, \(count("WRONG")) wrong")
    if let report = ProcessInfo.processInfo.environment["ATTRIBUTE_SWEEP_REPORT"], !report.isEmpty {
        try writeSweepTable(results, frontend: frontend, framework: manifest.framework,
                            to: URL(fileURLWithPath: report).appendingPathComponent("\(frontend).md"))
    }
    return results
}

func sweepOutcome(_ testCase: SweepCase, folder: URL, scratch: URL, format: SweepFormat = .neuralNetwork,
                  convert: (URL, SweepCase) throws -> Model) -> SweepOutcome {
    let model: Model
    do {
        model = try convert(folder, testCase)
    } catch {
        let message = "\(error)"
        let subject = testCase.attribute.isEmpty ? testCase.op : testCase.attribute
        guard !message.contains("\n") else { return .wrong("refused with more than one line: \(message)") }
        guard reason(message, files: testCase.files, keepingNode: testCase.attribute.isEmpty).contains(subject) else {
            return .wrong("refused without naming \(subject): \(message)")
        }
        return .refused(message)
    }
    do {
        var float16Operations: Int?
        let file: CoreMLFile
        switch format {
        case .neuralNetwork:
            let path = scratch.appendingPathComponent("\(testCase.name).mlmodel").path
            try CoreMLWriter.write(model, to: path)
            file = try CoreMLReader.read(from: path)
        case .program(let float16):
            let path = scratch.appendingPathComponent("\(testCase.name)\(float16 ? "16" : "32").mlpackage").path
            do {
                let version = ProcessInfo.processInfo.environment["ATTRIBUTE_SWEEP_PROGRAM_SPECIFICATION"].flatMap { Int32($0) } ?? 6
                try MLProgramWriter.write(model, to: path, computePrecision: float16 ? .float16 : .float32, minimumSpecificationVersion: version)
            } catch let error as ModelError {
                return .refused("\(error)")
            }
            file = try CoreMLReader.read(from: path)
            if float16 { float16Operations = file.program?.computingOperationCount }
        }
        let network = try Network(file.model)
        let nhwc = testCase.layout == "nhwc"
        var feeds: [String: InputValue] = [:]
        for input in network.model.inputs {
            guard let file = testCase.inputs[input.name] ?? (testCase.inputs.count == 1 ? testCase.inputs.values.first : nil) else {
                return .wrong("no array for input '\(input.name)'")
            }
            let (shape, values) = try NumpyFile.read(path: folder.appendingPathComponent(file).path)
            let (ourShape, ourValues) = nhwc ? channelsFirst(shape, values) : (shape, values)
            if case .tensor(let shape) = input.kind {
                // Rank-N inputs are taken exactly as shaped.
                guard ourShape == shape else { return .wrong("input '\(input.name)' takes \(shape), the case gives \(ourShape)") }
                feeds[input.name] = .array(Tensor(shape: TensorShape(shape), values: ourValues))
                continue
            }
            guard case .array(let featureShape) = input.kind, let expected = TensorShape(featureShape: featureShape) else {
                return .wrong("input '\(input.name)' is not an array")
            }
            let stored = ourShape.first == 1 && ourShape.count > expected.featureShape.count ? Array(ourShape.dropFirst()) : ourShape
            guard stored == expected.featureShape || stored == expected.dimensions else {
                return .wrong("input '\(input.name)' takes \(expected.featureShape), the case gives \(shape)")
            }
            feeds[input.name] = .array(Tensor(shape: expected, values: ourValues))
        }
        let prediction = try network.predict(feeds)
        var largest: Float = 0
        for (name, file) in testCase.outputs.sorted(by: { $0.key < $1.key }) {
            guard let ours = prediction.outputs[name] ?? (testCase.outputs.count == 1 && prediction.outputs.count == 1 ? prediction.outputs.values.first : nil) else {
                return .wrong("no output '\(name)' (the model has \(prediction.outputs.keys.sorted()))")
            }
            let (shape, values) = try NumpyFile.read(path: folder.appendingPathComponent(file).path)
            let reference = nhwc ? channelsFirst(shape, values).values : values
            guard ours.values.count == reference.count else {
                return .wrong("output '\(name)' has \(ours.values.count) values, the framework's \(reference.count) (\(shape))")
            }
            if let operations = float16Operations {
                let bound = Float(operations) * 0x1p-11 * max(1, reference.map(abs).max() ?? 0)
                let worst = zip(ours.values, reference).map { abs($0 - $1) }.max() ?? 0
                guard worst <= bound else { return .wrong("output '\(name)' is up to \(worst) from the framework's, past \(bound) (k = \(operations))") }
            } else if let worst = worstMismatch(ours.values, reference) {
                return .wrong("output '\(name)' value \(worst.index) is \(worst.ours), the framework gives \(worst.reference)")
            }
            for (a, b) in zip(ours.values, reference) { largest = max(largest, abs(a - b) / max(1, abs(b))) }
        }
        return .honoured(difference: largest)
    } catch {
        return .wrong("converted, then failed: \(error)")
    }
}

/// The part of an error that gives the reason: without the case's file
/// names (a path holds the case's name, which names the attribute) and
/// after the node clause ("node 'x' (Op): "), whose node name may too,
/// unless the case is about the op, which that clause names.
func reason(_ message: String, files: [String], keepingNode: Bool) -> String {
    var text = message
    for file in files { text = text.replacingOccurrences(of: file, with: "") }
    if !keepingNode, let clause = text.range(of: "): ", options: .backwards) { text = String(text[clause.upperBound...]) }
    return text
}

/// [1, H, W, C] (or [H, W, C]) as [1, C, H, W]; other ranks as they are.
func channelsFirst(_ shape: [Int], _ values: [Float]) -> (shape: [Int], values: [Float]) {
    let hwc = shape.count == 4 && shape[0] == 1 ? Array(shape.dropFirst()) : shape
    guard hwc.count == 3 else { return (shape, values) }
    return ([1, hwc[2], hwc[0], hwc[1]], chw(values, hwc[0], hwc[1], hwc[2]))
}

func writeSweepTable(_ results: [SweepResult], frontend: String, framework: String, to url: URL) throws {
    var lines = ["| op | attribute | value | result |", "|---|---|---|---|"]
    for result in results {
        let c = result.testCase
        let cell: String
        switch result.outcome {
        case .honoured(let difference): cell = "honoured (max rel. diff \(String(format: "%.1e", Double(difference))))"
        case .refused(let message): cell = "refused: " + (message.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? message)
        case .wrong(let why): cell = "**WRONG**: \(why)"
        }
        let escape = { (text: String) in text.replacingOccurrences(of: "|", with: "\\|") }
        lines.append("| \(escape(c.op)) | \(escape(c.attribute.isEmpty ? "-" : c.attribute)) | \(escape(c.value)) | \(escape(cell)) |")
    }
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try (["<!-- \(frontend), against \(framework) -->"] + lines).joined(separator: "\n").appending("\n").write(to: url, atomically: true, encoding: .utf8)
}

/// The honoured attributes of `types` that no case of the frontend's sweep
/// sets, as "Op.attribute", sorted: a test keeps this empty, so that every
/// attribute a ledger says the mapping implements is compared with the
/// framework at least once. `exempt` names op types (or "Op.attribute"
/// pairs) that other tests compare, or that every case sets.
public func unsweptHonouredAttributes(_ frontend: String, ledgers: AttributeLedgers, types: some Sequence<String>,
                                      exempt: Set<String> = []) throws -> [String] {
    let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/sweep/\(frontend)")
    let manifest = try JSONDecoder().decode(SweepManifest.self, from: Data(contentsOf: folder.appendingPathComponent("cases.json")))
    let swept = Set(manifest.cases.map { "\($0.op).\($0.attribute)" })
    return Set(types).filter { !exempt.contains($0) }.flatMap { type in
        (ledgers[type]?.honoured ?? []).map { "\(type).\($0)" }.filter { !swept.contains($0) && !exempt.contains($0) }
    }.sorted()
}

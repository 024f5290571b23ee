import Foundation
import TestSupport
import XCTest

/// ML Program packages written by coremltools 9.0 from torch and tf_keras
/// models (Tests/Fixtures/coreml/coremltools_programs, made by
/// scripts/fixtures/make_coremltools_programs.py), not by this toolkit:
/// inspected without a warning and predicted by coreml-predict, against the
/// framework's output in the fixture. float32 packages within
/// 1e-4 * max(1, |ref|); float16 ones within k * 2^-11 * max(1, max |ref|),
/// k the program's operations other than const (each rounds its result to
/// float16 at most once; the bound DetectorProgramCheck states). They hold
/// the forms coremltools writes and this toolkit's writer does not:
/// pad_type valid and same, relu6, silu, linear on [1, K], a pad of every
/// axis, a mean over H and W not kept, softmax along the last axis of
/// [1, K], max pooling with ceil_mode, a concat of one value, layer_norm
/// over axis -1, an image's scale and biases as program operations; and a
/// pipeline of two programs (ct.utils.make_pipeline: weights in
/// 0-weight.bin and 1-weight.bin, values named alike in both); iOS 16's
/// compressed constants with int8 levels and zero points along axis 1, a
/// float32 zero point and scalar scale along axis -1, a 2-bit table, every
/// parameter an immediate (builder_compressed, against coremltools' own
/// decompression); iOS 18's, bound as inputs: blockwise levels of int4,
/// uint4, uint8 and int8 with int4 (packed immediate), uint4 (sub-byte blob),
/// float or no offsets, tables per block with uint2 and uint3 indices
/// (builder_blockwise).
final class ForeignProgramTests: XCTestCase {
    static let fixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures/coreml/coremltools_programs")

    func testPackagesOfCoremltoolsArePredictedAsTheirFrameworksComputeThem() throws {
        let folder = try temporaryFolder()
        for name in ["torch_classifier", "torch_residual", "torch_pipeline", "keras_cnn", "builder_compressed", "builder_blockwise"] {
            let source = Self.fixtures.appendingPathComponent(name)
            let meta = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: source.appendingPathComponent("meta.json"))) as? [String: Any])
            let reference = try readFloat32Npy(source.appendingPathComponent("output.npy"))
            for precision in meta["precisions"] as? [String] ?? ["float32", "float16"] {
                let package = source.appendingPathComponent("\(precision).mlpackage").path
                let what = "\(name) \(precision)"
                let inspected = try ProgramRunner.run("coreml-inspect", [package, "--json"])
                XCTAssertEqual(inspected.status, 0, "\(what): \(inspected.standardError)")
                let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(inspected.standardOutput.utf8)) as? [String: Any], what)
                let notes = (document["notes"] as? [[String: Any]] ?? []).compactMap { $0["label"] as? String }
                XCTAssertFalse(notes.contains("Warning"), "\(what): \(inspected.standardOutput)")
                let program = try XCTUnwrap(document["program"] as? [String: Any], what)
                XCTAssertEqual(program["computePrecision"] as? String, precision, what)
                let counts = try XCTUnwrap(program["operationCounts"] as? [[String: Any]], what)
                let operations = counts.filter { $0["type"] as? String != "const" }.compactMap { $0["count"] as? Int }.reduce(0, +)
                let ours = try predict(package, meta: meta, source: source, into: folder.appendingPathComponent("\(name)_\(precision)"))
                XCTAssertEqual(ours.count, reference.count, what)
                let scale = max(1, reference.map(abs).max() ?? 0)
                let worst = zip(ours, reference).map { abs($0 - $1) / (precision == "float32" ? max(1, abs($1)) : scale) }.max() ?? .nan
                let bound = precision == "float32" ? 1e-4 : Float(operations) * Float(pow(2.0, -11.0))
                XCTAssertLessThanOrEqual(worst, bound, "\(what): worst \(worst), bound \(bound) (\(operations) operations)")
            }
        }
    }

    /// A pad type MIL does not have (the Keras package's "same" made "sane"
    /// in place: the same bytes otherwise) is one error naming it.
    func testAnUnknownPadTypeIsNamed() throws {
        let folder = try temporaryFolder()
        let package = folder.appendingPathComponent("sane.mlpackage")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("keras_cnn/float32.mlpackage"), to: package)
        let spec = package.appendingPathComponent("Data/com.apple.CoreML/model.mlmodel")
        var bytes = [UInt8](try Data(contentsOf: spec))
        let same = Array("same".utf8)
        let places = (0...(bytes.count - same.count)).filter { Array(bytes[$0..<$0 + same.count]) == same }
        XCTAssertFalse(places.isEmpty, "the fixture's pad_type same")
        for place in places { bytes[place + 2] = UInt8(ascii: "n") }
        try Data(bytes).write(to: spec)
        for program in ["coreml-inspect", "coreml-predict"] {
            let result = try ProgramRunner.run(program, [package.path])
            XCTAssertEqual(result.status, 1, "\(program): \(result.standardError)")
            XCTAssertTrue(result.standardError.contains("pad_type is 'sane', not custom, valid, same or same_lower"), result.standardError)
            XCTAssertEqual(result.standardError.filter { $0 == "\n" }.count, 1, result.standardError)
        }
    }

    /// Each blob names its weight file: a package whose blobs name
    /// `wXight.bin` (the file renamed so, the reference patched in place)
    /// predicts as before; one naming a file outside the weights folder
    /// (`../eig.bin`), or a file that is not there, is one error.
    func testBlobsAreReadFromTheFileTheyName() throws {
        let folder = try temporaryFolder()
        let source = Self.fixtures.appendingPathComponent("torch_residual/float32.mlpackage")
        let input = Self.fixtures.appendingPathComponent("torch_residual/input.npy").path
        func predicted(_ package: URL) throws -> (ProgramRunner.Result, [Float]?) {
            let out = folder.appendingPathComponent(package.lastPathComponent + ".out")
            let result = try ProgramRunner.run("coreml-predict", [package.path, "--input", "input=\(input)", "--output-npy", out.path])
            return (result, result.status == 0 ? try readFloat32Npy(out.appendingPathComponent("logits.npy")) : nil)
        }
        let (original, expected) = try predicted(source)
        XCTAssertEqual(original.status, 0, original.standardError)
        for (name, renamed, error) in [("wXight.bin", true, nil), ("../eig.bin", false, "is not a file of the package's weights folder"),
                                       ("wYight.bin", false, "wYight.bin: cannot open")] {
            let package = folder.appendingPathComponent("\(renamed ? "renamed" : "broken")\(name.hashValue).mlpackage")
            try FileManager.default.copyItem(at: source, to: package)
            let weights = package.appendingPathComponent("Data/com.apple.CoreML/weights")
            if renamed {
                try FileManager.default.moveItem(at: weights.appendingPathComponent("weight.bin"), to: weights.appendingPathComponent(name))
            }
            let spec = package.appendingPathComponent("Data/com.apple.CoreML/model.mlmodel")
            let text = try Data(contentsOf: spec)
            let from = Data("@model_path/weights/weight.bin".utf8), to = Data("@model_path/weights/\(name)".utf8)
            XCTAssertEqual(from.count, to.count)
            var patched = Data(), rest = text[...]
            while let found = rest.range(of: from) {
                patched += rest[rest.startIndex..<found.lowerBound] + to
                rest = rest[found.upperBound...]
            }
            XCTAssertNotEqual(patched.count, 0, "the fixture's blobs name weight.bin")
            try (patched + rest).write(to: spec)
            let (result, values) = try predicted(package)
            if let error {
                XCTAssertEqual(result.status, 1, "\(name): \(result.standardError)")
                XCTAssertTrue(result.standardError.contains(error), "\(name): \(result.standardError)")
                XCTAssertEqual(result.standardError.filter { $0 == "\n" }.count, 1, result.standardError)
            } else {
                XCTAssertEqual(result.status, 0, "\(name): \(result.standardError)")
                XCTAssertEqual(values, expected, name)
                let inspected = try ProgramRunner.run("coreml-inspect", [package.path])
                XCTAssertTrue(inspected.standardOutput.contains("weights/\(name): "), inspected.standardOutput)
            }
        }
    }

    /// A sub-byte blob's unused bits (padding_size_in_bits, by which Core ML's MILBlob reader counts its values) that do
    /// not leave the values its constant declares: builder_blockwise's uint4 blob of 12 offsets (6 bytes, no unused bits)
    /// said to have 4 is one error naming the blob, as Core ML's reader would find 11.
    func testASubByteBlobsUnusedBitsMustLeaveItsValues() throws {
        let package = try temporaryFolder().appendingPathComponent("padding.mlpackage")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("builder_blockwise/float32.mlpackage"), to: package)
        let path = package.appendingPathComponent("Data/com.apple.CoreML/weights/weight.bin")
        var bytes = [UInt8](try Data(contentsOf: path))
        func word(_ at: Int, _ width: Int) -> Int { (0..<width).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        // Metadata records from byte 64, each followed by its data at the next 64-byte boundary.
        var record = 64, patched: Int?
        for _ in 0..<word(0, 4) {
            if word(record + 4, 4) == 11, word(record + 8, 8) == 6 { patched = record; bytes[record + 24] = 4 }  // BlobDataType UInt4
            record = (word(record + 16, 8) + word(record + 8, 8) + 63) / 64 * 64
        }
        let found = try XCTUnwrap(patched, "builder_blockwise has no uint4 blob of 6 bytes")
        try Data(bytes).write(to: path)
        let result = try ProgramRunner.run("coreml-inspect", [package.path, "--weight-stats"])
        XCTAssertEqual(result.status, 1, result.standardError)
        XCTAssertTrue(result.standardError.contains("weight.bin: byte \(found): the blob's 4 unused bits do not leave the 12 values"), result.standardError)
        XCTAssertEqual(result.standardError.filter { $0 == "\n" }.count, 1, result.standardError)
    }

    /// torch_pipeline's, torch_residual's or builder_compressed's package with one field changed
    /// (hostile/, made by the fixture script: pipelines, blobs, a reshape's
    /// shape, a concat's axis, a conv's strides, a compressed constant's shape or axis): each refused by inspect and predict in one line
    /// saying what is wrong (hostile/manifest.json), nothing read outside
    /// the package.
    func testBrokenPackagesAreOneErrorEach() throws {
        let folder = Self.fixtures.appendingPathComponent("hostile")
        let manifest = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("manifest.json"))) as? [String: String])
        XCTAssertEqual(manifest.count, 14)
        for (name, message) in manifest.sorted(by: { $0.key < $1.key }) {
            for program in ["coreml-inspect", "coreml-predict"] {
                let result = try ProgramRunner.run(program, [folder.appendingPathComponent("\(name).mlpackage").path])
                // A model that reads but does not validate is shown by inspect with a Warning, exit 0 (as a .mlmodel is).
                if program == "coreml-inspect", result.status == 0 {
                    let text = result.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")  // the summary wraps
                    XCTAssertTrue(text.contains("Warning:") && text.contains(message),
                                  "\(name) inspect: \(result.standardOutput)")
                    continue
                }
                XCTAssertEqual(result.status, 1, "\(name) \(program): \(result.standardError)")
                XCTAssertTrue(result.standardError.contains(message), "\(name) \(program): \(result.standardError)")
                XCTAssertEqual(result.standardError.filter { $0 == "\n" }.count, 1, "\(name) \(program): \(result.standardError)")
            }
        }
    }

    /// The package's one output for the fixture's input: a classifier's
    /// probabilities in label order, or the output named in meta.json.
    private func predict(_ package: String, meta: [String: Any], source: URL, into out: URL) throws -> [Float] {
        let input = try XCTUnwrap(meta["input"] as? String)
        if let image = meta["image"] as? String, let labels = meta["labels"] as? [String] {
            let result = try ProgramRunner.run("coreml-predict", [package, source.appendingPathComponent(image).path, "--json"])
            XCTAssertEqual(result.status, 0, result.standardError)
            let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
            let results = try XCTUnwrap(document.first?["results"] as? [[String: Any]])
            let probabilities = Dictionary(uniqueKeysWithValues: results.compactMap { entry in
                (entry["label"] as? String).map { ($0, (entry["probability"] as? Double).map(Float.init) ?? .nan) }
            })
            return labels.map { probabilities[$0] ?? .nan }
        }
        let output = try XCTUnwrap(meta["output"] as? String)
        let result = try ProgramRunner.run("coreml-predict", [package, "--input", "\(input)=\(source.appendingPathComponent("input.npy").path)",
                                                              "--output-npy", out.path])
        XCTAssertEqual(result.status, 0, result.standardError)
        return try readFloat32Npy(out.appendingPathComponent("\(output).npy"))
    }
}

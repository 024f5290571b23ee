#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import TestSupport
import XCTest

/// Paths are the bytes the user gave: a name with a byte that is not UTF-8
/// (`out\xff.mlmodel`) is written, read and listed as exactly those bytes
/// by every program's every path option, shown escaped (`out\xff.mlmodel`)
/// in summaries and errors, and the name U+FFFD decoding would give
/// (`out\xef\xbf\xbd.mlmodel`, which the programs once overwrote) is never
/// touched. The programs run with raw argv bytes (Foundation's `Process`
/// can only pass UTF-8).
final class PathBytesCommandTests: XCTestCase {
    typealias Bytes = [UInt8]
    let samples = repositoryRoot.appendingPathComponent("Samples").path
    let fixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures").path
    /// What U+FFFD is in UTF-8: a lossy decoder's name for the byte.
    let replacement: Bytes = [0xEF, 0xBF, 0xBD]

    func b(_ text: String) -> Bytes { Array(text.utf8) }

    /// Every output option: convert -o (and --generate-classes beside it),
    /// inspect --graph-output, generate's folder, predict --output-npy and
    /// --draw. Each writes the exact bytes and leaves the look-alike as it was.
    func testEveryOutputOptionWritesTheExactBytes() throws {
        let folder = b(try temporaryFolder().path) + b("/")
        let decoy = b("decoy, not to be touched")

        // convert -o, with the classes beside the model.
        let model = folder + b("age") + [0xFF] + b(".mlmodel")
        try store(folder + b("age") + replacement + b(".mlmodel"), decoy)
        let convert = try run("coreml-convert", [b("sample"), b("-o"), model, b("--generate-classes"), b("--language"), b("objc")])
        XCTAssertEqual(convert.status, 0, convert.standardError)
        XCTAssertTrue(convert.standardOutput.contains("Wrote \(String(decoding: folder, as: UTF8.self))age\\xff.mlmodel\n"), convert.standardOutput)
        XCTAssertEqual(try names(folder), [b("age") + [0xFF] + b(".mlmodel"), b("age") + replacement + b(".mlmodel"), b("age_.h"), b("age_.m")])
        XCTAssertEqual(try load(folder + b("age") + replacement + b(".mlmodel")), decoy)
        XCTAssertEqual(try load(model)?.prefix(2), [0x08, 0x01], "a Core ML model of specification version 1")

        // inspect --graph-output.
        let graph = folder + b("graph") + [0xFE] + b(".dot")
        try store(folder + b("graph") + replacement + b(".dot"), decoy)
        let inspect = try run("coreml-inspect", [model, b("--graph"), b("dot"), b("--graph-output"), graph])
        XCTAssertEqual(inspect.status, 0, inspect.standardError)
        XCTAssertEqual(try load(graph).map { String(decoding: $0.prefix(7), as: UTF8.self) }, "digraph")
        XCTAssertEqual(try load(folder + b("graph") + replacement + b(".dot")), decoy)

        // generate's folder, created.
        let classes = folder + b("classes") + [0xFD]
        let classesDecoy = folder + b("classes") + replacement
        XCTAssertEqual(mkdir(cString(classesDecoy), 0o755), 0)
        let generate = try run("coreml-generate", [model, classes, b("--language"), b("objc")])
        XCTAssertEqual(generate.status, 0, generate.standardError)
        XCTAssertTrue(generate.standardOutput.hasPrefix("Wrote \(String(decoding: folder, as: UTF8.self))classes\\xfd/age_.h\n"), generate.standardOutput)
        XCTAssertEqual(try names(classes), [b("age_.h"), b("age_.m")])
        XCTAssertEqual(try names(classesDecoy), [])

        // predict --output-npy (the folder created) from an --input .npy.
        let chain = fixtures + "/runtime/chain_caffe/"
        let npy = folder + b("arrays") + [0xFC]
        let npyDecoy = folder + b("arrays") + replacement
        XCTAssertEqual(mkdir(cString(npyDecoy), 0o755), 0)
        try store(npyDecoy + b("/prob.npy"), decoy)
        let predict = try run("coreml-predict", [b(chain + "model.mlmodel"), b("--input"), b("x=" + chain + "input_x.npy"), b("--output-npy"), npy])
        XCTAssertEqual(predict.status, 0, predict.standardError)
        XCTAssertEqual(try names(npy), [b("prob.npy")])
        XCTAssertEqual(try load(npy + b("/prob.npy"))?.prefix(6), [0x93] + b("NUMPY"))
        XCTAssertEqual(try load(npyDecoy + b("/prob.npy")), decoy)

        // predict --draw, for a detector.
        let detector = fixtures + "/darknet/detector/"
        let detectorModel = folder + b("detector.mlmodel")
        let darknet = try run("coreml-convert", [b("darknet"), b(detector + "model.cfg"), b(detector + "model.weights"), b("-o"), detectorModel])
        XCTAssertEqual(darknet.status, 0, darknet.standardError)
        let drawing = folder + b("boxes") + [0xFB] + b(".png")
        try store(folder + b("boxes") + replacement + b(".png"), decoy)
        let draw = try run("coreml-predict", [detectorModel, b(detector + "detect_1.png"), b("--draw"), drawing])
        XCTAssertEqual(draw.status, 0, draw.standardError)
        XCTAssertEqual(try load(drawing)?.prefix(4), [0x89, 0x50, 0x4E, 0x47])
        XCTAssertEqual(try load(folder + b("boxes") + replacement + b(".png")), decoy)
    }

    /// Every input path: Caffe's deploy, weights, labels and probe image,
    /// a Keras .h5 (opened by libhdf5), a TensorFlow graph, an ONNX model,
    /// Darknet's pair, a Core ML model (convert mlmodel, inspect, predict),
    /// .npy arrays (predict --input, --probe name=x.npy) and a folder of
    /// images whose names are not UTF-8 (read with readdir's bytes).
    func testEveryInputIsOpenedByItsBytes() throws {
        let folder = b(try temporaryFolder().path) + b("/")
        func copy(_ source: String, _ name: Bytes) throws -> Bytes {
            let target = folder + name
            try store(target, try XCTUnwrap(try load(b(source))))
            return target
        }
        let deploy = try copy(samples + "/deploy_age.prototxt", b("deploy") + [0xF9] + b(".prototxt"))
        let weights = try copy(samples + "/age_net.caffemodel", b("age") + [0xF8] + b(".caffemodel"))
        let labels = try copy(samples + "/age_labels.txt", b("labels") + [0xF7] + b(".txt"))
        let face = try copy(samples + "/face.png", b("face") + [0xF6] + b(".png"))
        let model = folder + b("age") + [0xF5] + b(".mlmodel")
        let caffe = try run("coreml-convert", [b("caffe"), deploy, weights, b("--image-input"), b("data"), b("--class-labels"), labels,
                                               b("--precision"), b("float16"), b("--probe"), face, b("-o"), model])
        XCTAssertEqual(caffe.status, 0, caffe.standardError)
        XCTAssertTrue(caffe.standardOutput.contains("face\\xf6.png"), "the fidelity report names its probe: \(caffe.standardOutput)")
        // The description names the deploy file as text: no held scalar reaches the model file.
        XCTAssertTrue(caffe.standardOutput.contains(#"Converted from Caffe V1 net deploy\xf9.prototxt"#), caffe.standardOutput)
        XCTAssertNil(try load(model)?.firstRange(of: [0xF4, 0x8F]), "a private-use scalar's UTF-8 in the model")

        // The same as JSON (a raw byte once crashed the JSON writer): valid JSON, the name as text with \xf6.
        let json = try run("coreml-convert", [b("sample"), b("--precision"), b("float16"), b("--probe"), face, b("--json"),
                                              b("-o"), folder + b("json") + [0xF5] + b(".mlmodel")])
        XCTAssertEqual(json.status, 0, json.standardError)
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)), json.standardOutput)
        XCTAssertTrue(json.standardOutput.contains("face\\\\xf6.png"), json.standardOutput)

        let inspectCaffe = try run("coreml-inspect", [deploy, b("--weights"), weights, b("--json")])
        XCTAssertEqual(inspectCaffe.status, 0, inspectCaffe.standardError)
        XCTAssertTrue(inspectCaffe.standardOutput.contains("deploy\\\\xf9.prototxt + "), inspectCaffe.standardOutput)

        let keras = try copy(fixtures + "/keras/sequential_classifier/model.h5", b("keras") + [0xF4] + b(".h5"))
        let kerasLabels = try copy(fixtures + "/keras/sequential_classifier/labels.txt", b("keras") + [0xF4] + b(".txt"))
        let tensorFlow = try copy(fixtures + "/tensorflow/vgg_head/graph.pb", b("graph") + [0xF3] + b(".pb"))
        let onnx = try copy(fixtures + "/onnx/ops/activations_opset13.onnx", b("activations") + [0xF2] + b(".onnx"))
        let array = try copy(fixtures + "/onnx/ops/activations_opset13_input.npy", b("x") + [0xF1] + b(".npy"))
        let cfg = try copy(fixtures + "/darknet/detector/model.cfg", b("net") + [0xF0] + b(".cfg"))
        let darknetWeights = try copy(fixtures + "/darknet/detector/model.weights", b("net") + [0xF0] + b(".weights"))
        let conversions: [[Bytes]] = [
            [b("keras"), keras, b("--class-labels"), kerasLabels],
            [b("tensorflow"), tensorFlow, b("--input-shape"), b("input:0=1,32,32,3"), b("--output-feature-name"), b("Identity:0")],
            [b("onnx"), onnx, b("--precision"), b("float16"), b("--probe"), b("x=") + array],
            [b("darknet"), cfg, darknetWeights],
            [b("mlmodel"), model, b("--precision"), b("float16")],
        ]
        for (index, arguments) in conversions.enumerated() {
            let output = folder + b("converted\(index)") + [0xEE] + b(".mlmodel")
            let result = try run("coreml-convert", arguments + [b("-o"), output])
            XCTAssertEqual(result.status, 0, "\(arguments.first.map { String(decoding: $0, as: UTF8.self) } ?? ""): \(result.standardError)")
            XCTAssertEqual(try load(output)?.isEmpty, false)
        }

        // An ONNX model whose weights are in a file beside it (external data), in a folder named with such a byte.
        let onnxFolder = folder + b("onnx") + [0xEA]
        XCTAssertEqual(mkdir(cString(onnxFolder), 0o755), 0)
        let external = try copy(fixtures + "/onnx/ops/external_data.onnx", b("onnx") + [0xEA] + b("/external_data.onnx"))
        _ = try copy(fixtures + "/onnx/ops/external_data.bin", b("onnx") + [0xEA] + b("/external_data.bin"))
        let externalResult = try run("coreml-convert", [b("onnx"), external, b("-o"), folder + b("external.mlmodel")])
        XCTAssertEqual(externalResult.status, 0, externalResult.standardError)

        // A folder of images: names that are not UTF-8 are read, shown escaped, and sorted with the rest.
        let images = folder + b("images") + [0xED]
        XCTAssertEqual(mkdir(cString(images), 0o755), 0)
        _ = try copy(samples + "/face.png", b("images") + [0xED] + b("/a") + [0xEC] + b(".png"))
        _ = try copy(samples + "/face.png", b("images") + [0xED] + b("/b.png"))
        _ = try copy(samples + "/age_labels.txt", b("images") + [0xED] + b("/c") + [0xEB] + b(".txt"))
        let predict = try run("coreml-predict", [model, images, b("--max-results"), b("1")])
        XCTAssertEqual(predict.status, 0, predict.standardError)
        let shownFolder = String(decoding: folder, as: UTF8.self) + "images\\xed/"
        XCTAssertTrue(predict.standardOutput.contains("\n" + shownFolder + "a\\xec.png\n"), predict.standardOutput)
        XCTAssertTrue(predict.standardOutput.contains("\n" + shownFolder + "b.png\n"), predict.standardOutput)
        XCTAssertFalse(predict.standardOutput.contains("c\\xeb.txt"), predict.standardOutput)
        let order = ["a\\xec.png", "b.png"].compactMap { predict.standardOutput.range(of: $0)?.lowerBound }
        XCTAssertEqual(order, order.sorted(), "in name order")
        let predictJSON = try run("coreml-predict", [model, images, b("--json")])
        XCTAssertEqual(predictJSON.status, 0, predictJSON.standardError)
        XCTAssertTrue(predictJSON.standardOutput.contains("a\\\\xec.png"), predictJSON.standardOutput)

        // Another's bytes are not the file: a missing name is named, escaped.
        let missing = folder + b("missing") + [0xFF] + b(".mlmodel")
        try store(folder + b("missing") + replacement + b(".mlmodel"), try XCTUnwrap(try load(model)))
        let absent = try run("coreml-predict", [missing, face])
        XCTAssertEqual(absent.status, 1)
        XCTAssertEqual(absent.standardError, "error: \(String(decoding: missing.dropLast(9), as: UTF8.self))\\xff.mlmodel: cannot open: No such file or directory\n")
    }

    /// A name holding a newline and a terminal escape is written as given
    /// and shown escaped (the output holds no ESC: `run` checks); text a
    /// model keeps (metadata) refuses bytes that are not UTF-8 instead of
    /// storing something else; a folder inside an image folder is skipped.
    func testHostileNamesAreShownSafelyAndTextIsUTF8() throws {
        let folder = b(try temporaryFolder().path) + b("/")
        let hostile = folder + b("new\nline\u{1B}[31m") + [0xFF] + b(".mlmodel")
        let convert = try run("coreml-convert", [b("sample"), b("-o"), hostile])
        XCTAssertEqual(convert.status, 0, convert.standardError)
        XCTAssertTrue(convert.standardOutput.hasPrefix(#"Wrote "# + String(decoding: folder, as: UTF8.self) + #"new\nline\u{1B}[31m\xff.mlmodel"# + "\n"),
                      convert.standardOutput)
        XCTAssertEqual(try names(folder), [b("new\nline\u{1B}[31m") + [0xFF] + b(".mlmodel")])
        let missing = try run("coreml-inspect", [hostile + b("x")])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.standardError.split(separator: "\n").count, 1, missing.standardError)
        XCTAssertTrue(missing.standardError.hasSuffix(#"new\nline\u{1B}[31m\xff.mlmodelx: cannot open: No such file or directory"# + "\n"),
                      missing.standardError)

        // A name beginning with a combining mark (U+0301): the folder is split at the byte '/'.
        let combining = try run("coreml-convert", [b("sample"), b("-o"), folder + [0xCC, 0x81] + b("x.mlmodel"), b("--generate-classes"), b("--language"), b("swift")])
        XCTAssertEqual(combining.status, 0, combining.standardError)
        XCTAssertNotNil(try load(folder + [0xCC, 0x81] + b("x.mlmodel")))
        try FileManager.default.removeItem(atPath: String(decoding: folder + [0xCC, 0x81] + b("x.mlmodel"), as: UTF8.self))
        try FileManager.default.removeItem(atPath: String(decoding: folder + b("_x.swift"), as: UTF8.self))

        let deploy = samples + "/deploy_age.prototxt", weights = samples + "/age_net.caffemodel"
        for option in ["--author", "--license", "--description", "--model-version", "--predicted-feature-name"] {
            let output = folder + b("text.mlmodel")
            let result = try run("coreml-convert", [b("caffe"), b(deploy), b(weights), b(option), b("a") + [0xFF] + b("b"), b("-o"), output])
            XCTAssertEqual(result.status, 64, result.standardError)
            XCTAssertTrue(result.standardError.hasPrefix(#"error: '\#(option)' takes UTF-8 text, and 'a\xffb' has bytes that are not UTF-8"#),
                          result.standardError)
            XCTAssertNil(try load(output))
        }

        let images = folder + b("images")
        XCTAssertEqual(mkdir(cString(images), 0o755), 0)
        XCTAssertEqual(mkdir(cString(images + b("/inner") + [0xFE] + b(".png")), 0o755), 0)
        try store(images + b("/face.png"), try XCTUnwrap(try load(b(samples + "/face.png"))))
        let predict = try run("coreml-predict", [hostile, images, b("--max-results"), b("1")])
        XCTAssertEqual(predict.status, 0, predict.standardError)
        XCTAssertEqual(predict.standardOutput.split(separator: "\n").filter { $0.hasPrefix(String(decoding: folder, as: UTF8.self)) },
                       [Substring(String(decoding: images, as: UTF8.self) + "/face.png")])
    }

    // MARK: - Running programs and touching files by raw bytes

    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Runs `program` with `arguments` as raw argv bytes; its output must be
    /// UTF-8 and free of terminal escapes (raw bytes shown escaped).
    func run(_ program: String, _ arguments: [Bytes], file: StaticString = #filePath, line: UInt = #line) throws -> Result {
        let executable = ProgramRunner.productsDirectory.appendingPathComponent(program).path
        let capture = try temporaryFolder().path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, capture + "/out", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, capture + "/err", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([b(executable)] + arguments).map { bytes in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (index, byte) in bytes.enumerated() { copy[index] = CChar(bitPattern: byte) }
            copy[bytes.count] = 0
            return copy
        } + [nil]
        defer { for pointer in argv { pointer?.deallocate() } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        let output = try XCTUnwrap(try load(b(capture + "/out"))), errors = try XCTUnwrap(try load(b(capture + "/err")))
        for bytes in [output, errors] {
            XCTAssertNotNil(String(validating: bytes, as: UTF8.self), "output that is not UTF-8: \(bytes)", file: file, line: line)
            XCTAssertFalse(bytes.contains(0x1B), "a raw escape character in the output", file: file, line: line)
        }
        let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(status: exit, standardOutput: String(decoding: output, as: UTF8.self), standardError: String(decoding: errors, as: UTF8.self))
    }

    func cString(_ bytes: Bytes) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }

    func store(_ path: Bytes, _ content: Bytes) throws {
        let descriptor = open(cString(path), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        XCTAssertEqual(content.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }, content.count)
    }

    /// The file's bytes, or nil when there is none by exactly that name.
    func load(_ path: Bytes) throws -> Bytes? {
        let descriptor = open(cString(path), O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var content: Bytes = []
        var buffer = Bytes(repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return content }
            content += buffer[..<count]
        }
    }

    /// The folder's names as readdir gives them.
    func names(_ folder: Bytes) throws -> Set<Bytes> {
        guard let stream = opendir(cString(folder)) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { closedir(stream) }
        var result: Set<Bytes> = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != b(".") && name != b("..") { result.insert(name) }
        }
        return result
    }
}

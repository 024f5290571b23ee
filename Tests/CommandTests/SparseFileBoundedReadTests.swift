#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import XCTest

/// Image, array and probe files whose bytes the programs must not read:
/// each test writes a small valid header (a 1x1 PNG, a JPEG, an .npy
/// header) and extends the file to 9 GiB with `ftruncate` (a hole: no disk
/// blocks), then runs `coreml-predict` or `coreml-convert --probe` on it and
/// measures the child's peak resident memory (`wait4`'s rusage).
///
/// Before the bounded readers, an image was read whole (9.4 GB resident,
/// or "failed to allocate 9663676448 bytes" and SIGABRT where that much
/// memory is not to be had) and an .npy's data was read before its shape
/// was compared with the model's (18.9 GB).
final class SparseFileBoundedReadTests: XCTestCase {
    /// The peak resident memory a run on a sparse file may reach, in bytes:
    /// 200 MB (a debug build of either program takes about 35 MB here).
    static let peakLimit = 200_000_000
    static let hole: off_t = 9 << 30

    let runtime = repositoryRoot.appendingPathComponent("Tests/Fixtures/runtime")
    let images = repositoryRoot.appendingPathComponent("Tests/Fixtures/images")

    /// A 1x1 RGB PNG (200, 100, 50): signature, IHDR, IDAT, IEND.
    static let onePixelPNG: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
        0xDE, 0x00, 0x00, 0x00, 0x0C, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x38, 0x91, 0x62, 0x04,
        0x00, 0x03, 0x56, 0x01, 0x5F, 0xE8, 0x17, 0x84, 0x52, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E,
        0x44, 0xAE, 0x42, 0x60, 0x82,
    ]

    struct Measured {
        var status: Int32
        var standardOutput: String
        var standardError: String
        /// Peak resident memory of the child, in bytes.
        var peak: Int
    }

    /// Runs a built program with its output in files, and reaps it with
    /// `wait4` (Foundation's Process reaps its children itself), its peak
    /// memory read from /proc while it runs (rusage's where there is none).
    func runMeasured(_ program: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Measured {
        let folder = try temporaryFolder()
        let outPath = folder.appendingPathComponent("stdout").path, errPath = folder.appendingPathComponent("stderr").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let executable = ProgramRunner.productsDirectory.appendingPathComponent(program).path
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environment = (ProcessInfo.processInfo.environment.merging(["NO_COLOR": "1"]) { $1 }).map { strdup("\($0)=\($1)") } + [nil]
        defer { environment.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environment)
        guard spawned == 0 else { throw NSError(domain: NSPOSIXErrorDomain, code: Int(spawned)) }
        var status: Int32 = 0
        var usage = rusage()
        // A hang is a failure too: kill the child after two minutes.
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        // The peak as the child's own /proc VmHWM, read every millisecond until it exits: wait4's ru_maxrss of a child
        // posix_spawn made (vfork) starts at this process's own peak, which other tests in it may have raised.
        var observed = 0
        while true {
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid || (reaped < 0 && errno != EINTR) { break }
            observed = max(observed, Self.highWaterMark(of: pid) ?? 0)
            usleep(1000)
        }
        watchdog.cancel()
        // WIFEXITED / WEXITSTATUS by hand (macros Swift does not import); a signal shows as 128 + n.
        let exited = status & 0x7F == 0
        return Measured(status: exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F),
                        standardOutput: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                        standardError: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
                        peak: observed > 0 ? observed : usage.ru_maxrss * 1024)
    }

    /// VmHWM of a running process, in bytes (Linux's /proc; nil elsewhere).
    static func highWaterMark(of pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.dropFirst("VmHWM:".count).trimmingCharacters(in: .whitespaces).dropLast(3)) else { return nil }
        return kilobytes * 1024
    }

    /// Writes `bytes` to `url` and extends the file with a 9 GiB hole.
    func writeSparse(_ bytes: [UInt8], to url: URL) throws {
        try Data(bytes).write(to: url)
        try extend(url)
    }

    func extend(_ url: URL) throws {
        XCTAssertEqual(truncate(url.path, Self.hole), 0, String(cString: strerror(errno)))
        var info = stat()
        XCTAssertEqual(stat(url.path, &info), 0)
        XCTAssertEqual(info.st_size, Self.hole)
        XCTAssertLessThan(Int(info.st_blocks) * 512, 1 << 20, "the file is sparse: no disk blocks for the hole")
    }

    func assertBounded(_ run: Measured, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThan(run.peak, Self.peakLimit, "peak resident memory \(run.peak) bytes", file: file, line: line)
    }

    func assertOneError(_ run: Measured, naming path: String, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(run.status, 1, run.standardError, file: file, line: line)
        XCTAssertEqual(run.standardOutput, "", file: file, line: line)
        let lines = run.standardError.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, run.standardError, file: file, line: line)
        XCTAssertTrue(lines.first?.hasPrefix("error: \(path): ") == true, run.standardError, file: file, line: line)
        XCTAssertTrue(run.standardError.contains(fragment), "'\(fragment)' not in: \(run.standardError)", file: file, line: line)
        assertBounded(run, file: file, line: line)
    }

    /// A valid image followed by a hole predicts as the image alone does.
    func testAnImageFollowedByAHoleIsPredictedAsTheImage() throws {
        let model = runtime.appendingPathComponent("image_scaler_rgb/model.mlmodel").path
        let folder = try temporaryFolder()
        let png = folder.appendingPathComponent("one.png"), jpeg = folder.appendingPathComponent("photo.jpg")
        try Data(Self.onePixelPNG).write(to: png)
        try FileManager.default.copyItem(at: images.appendingPathComponent("rgb.jpg"), to: jpeg)
        for image in [png, jpeg] {
            let plain = try runMeasured("coreml-predict", [model, image.path])
            XCTAssertEqual(plain.status, 0, plain.standardError)
            try extend(image)
            let sparse = try runMeasured("coreml-predict", [model, image.path])
            XCTAssertEqual(sparse.status, 0, sparse.standardError)
            XCTAssertEqual(sparse.standardOutput, plain.standardOutput)
            XCTAssertEqual(sparse.standardError, "")
            assertBounded(sparse)
        }
    }

    /// An image whose data runs into the hole is one error naming the file,
    /// after reading at most what its header lets it use.
    func testAnImageCutByAHoleIsOneError() throws {
        let model = runtime.appendingPathComponent("image_scaler_rgb/model.mlmodel").path
        let folder = try temporaryFolder()
        let jpeg = try Array(Data(contentsOf: images.appendingPathComponent("rgb.jpg")))
        XCTAssertEqual(jpeg.suffix(2), [0xFF, 0xD9])
        // No EOI: libjpeg looks for a marker in the zeros that follow.
        let noEnd = folder.appendingPathComponent("noend.jpg")
        try writeSparse(Array(jpeg.dropLast(2)), to: noEnd)
        assertOneError(try runMeasured("coreml-predict", [model, noEnd.path]), naming: noEnd.path,
                       "corrupt JPEG: Premature end of JPEG file (only the first ")
        // A text chunk declaring 2^31 - 1 bytes (libpng allocated them).
        let chunk = folder.appendingPathComponent("chunk.png")
        try writeSparse(Array(Self.onePixelPNG.prefix(33)) + [0x7F, 0xFF, 0xFF, 0xFF] + Array("tEXt".utf8), to: chunk)
        assertOneError(try runMeasured("coreml-predict", [model, chunk.path]), naming: chunk.path,
                       "corrupt PNG: chunk 'tEXt' at byte 33 declares 2147483647 bytes, past the ")
    }

    /// An .npy header over a hole: its shape is compared with the model's
    /// input before any data is read, and then the file's size with the shape.
    func testAnArrayOverAHoleIsRefusedBeforeItsDataIsRead() throws {
        let model = runtime.appendingPathComponent("classifier/model.mlmodel").path
        let folder = try temporaryFolder()
        // 2415919104 float32 values: exactly the 9 GiB hole (less the 128-byte header).
        let huge = folder.appendingPathComponent("huge.npy")
        try writeNpyHeader(shape: "(2415919104,)", to: huge, dataBytes: Int(Self.hole) - 128)
        assertOneError(try runMeasured("coreml-predict", [model, "--input", "x=" + huge.path]), naming: huge.path,
                       "shape [2415919104] does not fit input 'x', which takes [4, 3, 5]")
        // The model's shape, in a file 9 GiB long.
        let long = folder.appendingPathComponent("long.npy")
        try writeNpyHeader(shape: "(4, 3, 5)", to: long, dataBytes: Int(Self.hole) - 128)
        assertOneError(try runMeasured("coreml-predict", [model, "--input", "x=" + long.path]), naming: long.path,
                       "shape (4, 3, 5) needs 240 bytes of data, the file has 9663676288")
    }

    /// The same files as `coreml-convert --probe` inputs.
    func testProbesOverAHoleAreBounded() throws {
        let folder = try temporaryFolder()
        let output = folder.appendingPathComponent("out.mlmodel").path
        let png = folder.appendingPathComponent("probe.png")
        try Data(Self.onePixelPNG).write(to: png)
        let arguments = ["sample", "--quantize-weights", "8", "--probe", png.path, "-o", output]
        let plain = try runMeasured("coreml-convert", arguments)
        XCTAssertEqual(plain.status, 0, plain.standardError)
        XCTAssertTrue(plain.standardOutput.contains("Fidelity:     float32 -> 8-bit linear, on \(png.path)"), plain.standardOutput)
        try extend(png)
        let sparse = try runMeasured("coreml-convert", arguments)
        XCTAssertEqual(sparse.status, 0, sparse.standardError)
        XCTAssertEqual(sparse.standardOutput, plain.standardOutput)
        assertBounded(sparse)

        let float = repositoryRoot.appendingPathComponent("Tests/Fixtures/quantization/float.mlmodel").path
        let huge = folder.appendingPathComponent("huge.npy")
        try writeNpyHeader(shape: "(2415919104,)", to: huge, dataBytes: Int(Self.hole) - 128)
        assertOneError(try runMeasured("coreml-convert", ["mlmodel", float, "--precision", "float16", "--probe", "x=" + huge.path,
                                                          "-o", output]),
                       naming: huge.path, "shape [2415919104] does not fit input 'x', which takes [3, 8, 8]")
    }

    /// Caffe blobs (a mean image, a caffemodel layer) whose packed values
    /// run over a hole: a count that does not fit the blob's shape is refused
    /// before the values are copied (an unaligned payload is copied: 18.9 GB
    /// for the mean, 15.6 GB for an 8 GB layer blob before the check).
    func testCaffeBlobsOverAHoleAreCheckedBeforeTheirValuesAreCopied() throws {
        func varint(_ value: Int) -> [UInt8] {
            var value = UInt64(value), bytes: [UInt8] = []
            while value >= 0x80 { bytes.append(UInt8(value & 0x7F) | 0x80); value >>= 7 }
            return bytes + [UInt8(value)]
        }
        func field(_ number: Int, _ payload: [UInt8]) -> [UInt8] { varint(number << 3 | 2) + varint(payload.count) + payload }
        let values = 2_000_000_001  // odd: the payload lands unaligned
        // BlobProto: shape { dim: 1 dim: 3 dim: 24 dim: 24 } (packed), then `data` (5) declaring `values` floats.
        let mean = field(7, field(1, [1, 3, 24, 24])) + varint(5 << 3 | 2) + varint(4 * values)
        let folder = try temporaryFolder()
        let meanURL = folder.appendingPathComponent("mean.binaryproto")
        try Data(mean).write(to: meanURL)
        XCTAssertEqual(truncate(meanURL.path, off_t(mean.count + 4 * values)), 0)
        let caffe = repositoryRoot.appendingPathComponent("Tests/Fixtures/caffe/mean_file")
        let output = folder.appendingPathComponent("out.mlmodel").path
        assertOneError(try runMeasured("coreml-convert", ["caffe", caffe.appendingPathComponent("deploy.prototxt").path,
                                                          caffe.appendingPathComponent("weights.caffemodel").path, "--image-input", "data",
                                                          "--mean-image", meanURL.path, "-o", output]),
                       naming: meanURL.path, "shape [1, 3, 24, 24] needs 1728 values, the blob holds 2000000001")
        // NetParameter: name "xy" (the payload at byte 49: unaligned), layer { name "conv1" type "Convolution" blobs { shape { dim: 96 dim: 3 } data: ... } }.
        let blob = field(7, field(1, [96, 3])) + varint(5 << 3 | 2) + varint(4 * values)
        let layer = field(1, Array("conv1".utf8)) + field(2, Array("Convolution".utf8)) + varint(7 << 3 | 2) + varint(blob.count + 4 * values) + blob
        let net = field(1, Array("xy".utf8)) + varint(100 << 3 | 2) + varint(layer.count + 4 * values) + layer
        let weights = folder.appendingPathComponent("hole.caffemodel")
        try Data(net).write(to: weights)
        XCTAssertEqual(truncate(weights.path, off_t(net.count + 4 * values)), 0)
        assertOneError(try runMeasured("coreml-convert", ["caffe", repositoryRoot.appendingPathComponent("Samples/deploy_age.prototxt").path,
                                                          weights.path, "-o", output]),
                       naming: weights.path, "layer 'conv1' blob 0: shape [96, 3] needs 288 values, the blob holds 2000000001")
    }

    /// A .mlmodel whose inner product declares 2000000001 weights, unaligned,
    /// over a hole: predict and convert mlmodel validate the model's
    /// structure (weight counts, payloads skipped) before reading it whole
    /// (the copy took 15.6 GB).
    func testAModelsWeightsOverAHoleAreCountedBeforeTheyAreCopied() throws {
        func varint(_ value: Int) -> [UInt8] {
            var value = UInt64(value), bytes: [UInt8] = []
            while value >= 0x80 { bytes.append(UInt8(value & 0x7F) | 0x80); value >>= 7 }
            return bytes + [UInt8(value)]
        }
        func field(_ number: Int, _ payload: [UInt8]) -> [UInt8] { varint(number << 3 | 2) + varint(payload.count) + payload }
        func number(_ number: Int, _ value: Int) -> [UInt8] { varint(number << 3) + varint(value) }
        // FeatureDescription: name, type { multiArrayType { shape: [n], dataType: FLOAT32 (65568) } }.
        func feature(_ name: String, _ size: Int) -> [UInt8] {
            field(1, Array(name.utf8)) + field(3, field(5, field(1, varint(size)) + number(2, 65568)))
        }
        let values = 2_000_000_001
        // WeightParams { floatValue (1): packed, `values` floats } as the last field of each enclosing message.
        let weights = varint(1 << 3 | 2) + varint(4 * values)
        let product = number(1, 3) + number(2, 2) + varint(20 << 3 | 2) + varint(weights.count + 4 * values) + weights
        let layer = field(1, Array("fc".utf8)) + field(2, Array("x".utf8)) + field(3, Array("y".utf8))
            + varint(140 << 3 | 2) + varint(product.count + 4 * values) + product
        let network = varint(1 << 3 | 2) + varint(layer.count + 4 * values) + layer
        var model = number(1, 1) + field(2, field(1, feature("x", 3)) + field(10, feature("y", 2)))
        model += varint(500 << 3 | 2) + varint(network.count + 4 * values) + network
        XCTAssertNotEqual(model.count % 4, 0, "the weights start unaligned, so that reading them copies them")
        let folder = try temporaryFolder()
        let url = folder.appendingPathComponent("hole.mlmodel")
        try Data(model).write(to: url)
        XCTAssertEqual(truncate(url.path, off_t(model.count + 4 * values)), 0)
        let input = folder.appendingPathComponent("x.npy")
        try writeNpyHeader(shape: "(3,)", to: input, dataBytes: 12)
        assertOneError(try runMeasured("coreml-predict", [url.path, "--input", "x=" + input.path]), naming: url.path,
                       "layer 'fc': weights has 2000000001 values, expected 6")
        // Written again by convert: the same check first.
        assertOneError(try runMeasured("coreml-convert", ["mlmodel", url.path, "--precision", "float16",
                                                          "-o", folder.appendingPathComponent("half.mlmodel").path]),
                       naming: url.path, "layer 'fc': weights has 2000000001 values, expected 6")
    }

    /// A Keras kernel of [536870912, 4] float32 values stored in a hole
    /// (Tests/Fixtures/sparse/README.md): its shape is checked against the
    /// layer before any kernel is read (it was read whole, 8.4 GB, first).
    func testAKerasKernelInAHoleIsCheckedBeforeItIsRead() throws {
        let folder = try temporaryFolder()
        let model = folder.appendingPathComponent("model.h5")
        try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("Tests/Fixtures/sparse/keras_kernel_over_hole.h5.head"),
                                         to: model)
        XCTAssertEqual(truncate(model.path, 8_590_023_456), 0)
        assertOneError(try runMeasured("coreml-convert", ["keras", model.path, "-o", folder.appendingPathComponent("out.mlmodel").path]),
                       naming: model.path, "layer 'conv_a' (Conv2D): kernel shape [536870912, 4] is not [kH, kW, Cin, Cout]")
    }

    /// Caffe HDF5 weights whose conv1 blob 0 is a float32 dataset of
    /// [536870912] (2 GiB) stored in a hole (Tests/Fixtures/sparse/README.md):
    /// its shape is checked against the deploy layer before it is read (it
    /// was read whole first: 4.2 GB resident, 19 s, for the same error).
    /// Inspecting the deploy file with these weights, or the weights alone,
    /// stays bounded too.
    func testACaffeHDF5BlobInAHoleIsCheckedBeforeItIsRead() throws {
        let folder = try temporaryFolder()
        let weights = folder.appendingPathComponent("weights.caffemodel.h5")
        try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("Tests/Fixtures/sparse/caffe_blob_over_hole.caffemodel.h5.head"),
                                         to: weights)
        XCTAssertEqual(truncate(weights.path, 2_147_569_984), 0)
        let deploy = repositoryRoot.appendingPathComponent("Tests/Fixtures/caffe/resnet_bn_h5/deploy.prototxt").path
        let refusal = "layer 'conv1' (Convolution): weights (blob 0) has shape [536870912], the deploy definition needs [8, 3, 3, 3]"
        assertOneError(try runMeasured("coreml-convert", ["caffe", deploy, weights.path, "-o", folder.appendingPathComponent("out.mlmodel").path]),
                       naming: deploy + ":15", refusal)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.mlmodel").path))
        assertOneError(try runMeasured("coreml-inspect", [deploy, weights.path]), naming: deploy + ":15", refusal)
        let alone = try runMeasured("coreml-inspect", [weights.path])
        XCTAssertEqual(alone.status, 0, alone.standardError)
        XCTAssertTrue(alone.standardOutput.contains("536,876,112"), alone.standardOutput)  // conv1 blob 0 counted, not read
        assertBounded(alone)
    }

    /// A version 1.0 header of 128 bytes for float32 `shape`, then a hole
    /// of `dataBytes`.
    func writeNpyHeader(shape: String, to url: URL, dataBytes: Int) throws {
        var header = "{'descr': '<f4', 'fortran_order': False, 'shape': \(shape), }"
        header += String(repeating: " ", count: 128 - 10 - 1 - header.utf8.count) + "\n"
        try Data([0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count), 0] + Array(header.utf8)).write(to: url)
        XCTAssertEqual(truncate(url.path, off_t(128 + dataBytes)), 0)
    }
}

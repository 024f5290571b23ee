import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Long work on a terminal: a progress line on stderr (a pseudo-terminal
/// here) that appears after a second and is cleared when the work ends,
/// nothing of it on a pipe or with --json; and predict's results printed
/// as each image finishes, so that stopping the run keeps them.
final class ProgressTests: XCTestCase {
    /// A Darknet network of 12 3x3 convolutions of 128 channels (1.6 million
    /// weights, 6.5 MB written here): quantizing it with k-means takes
    /// seconds in a debug build, and so does predicting a few images of `size`
    /// 64.
    func makeSlowModel(in folder: URL, size: Int = 16) throws -> (cfg: String, weights: String) {
        let layers = 12, channels = 128
        var cfg = "[net]\nbatch=1\nwidth=\(size)\nheight=\(size)\nchannels=3\n\n"
        var count = 0, previous = 3
        for _ in 0..<layers {
            cfg += "[convolutional]\nfilters=\(channels)\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"
            count += channels + channels * previous * 9
            previous = channels
        }
        var random = SystemRandomNumberGenerator()
        var data = Data([0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 8))  // major 0, minor 2: a 64-bit seen
        let values = (0..<count).map { _ in Float.random(in: -1...1, using: &random) }
        values.withUnsafeBytes { data.append(contentsOf: $0) }
        let cfgURL = folder.appendingPathComponent("slow.cfg"), weightsURL = folder.appendingPathComponent("slow.weights")
        try cfg.write(to: cfgURL, atomically: false, encoding: .utf8)
        try data.write(to: weightsURL)
        return (cfgURL.path, weightsURL.path)
    }

    /// What went to the terminal, less each line's erasing.
    func drawnLines(_ terminal: String) -> [Substring] {
        terminal.split(separator: "\r\u{1B}[K", omittingEmptySubsequences: true).filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
    }

    func testKMeansQuantizationShowsItsProgressOnATerminalAndClearsIt() throws {
        let folder = try temporaryFolder()
        let model = try makeSlowModel(in: folder)
        let output = folder.appendingPathComponent("slow.mlmodel").path
        let arguments = ["darknet", model.cfg, model.weights, "-o", output, "--quantize-weights", "4", "--quantization", "kmeans-lut"]
        let result = try TerminalRunner.run("coreml-convert", arguments)
        XCTAssertEqual(result.status, 0, result.terminal)
        XCTAssertTrue(result.standardOutput.contains("Fidelity:     float32 -> 4-bit lookup table"), result.standardOutput)
        XCTAssertFalse(result.standardOutput.contains("\u{1B}"), "the progress goes to stderr only")
        let lines = drawnLines(result.terminal)
        XCTAssertTrue(lines.contains { $0.hasPrefix("quantizing weights: ") && $0.hasSuffix("/24 tensors") }, result.terminal.debugDescription)
        XCTAssertTrue(lines.allSatisfy { $0.count <= 100 }, result.terminal.debugDescription)
        XCTAssertTrue(result.terminal.hasSuffix("\r\u{1B}[K"), "cleared when done: \(result.terminal.debugDescription)")

        // --json and --quiet print no progress, on a terminal too.
        for quiet in ["--json", "-q"] {
            let quieted = try TerminalRunner.run("coreml-convert", arguments + [quiet])
            XCTAssertEqual(quieted.status, 0, quieted.terminal)
            XCTAssertEqual(quieted.terminal, "", quiet)
        }
    }

    /// The fidelity report runs the float and the compressed model: on
    /// 128x128 pixels, seconds.
    func testTheFidelityReportShowsItsProgressOnATerminal() throws {
        let folder = try temporaryFolder()
        let model = try makeSlowModel(in: folder, size: 128)
        let output = folder.appendingPathComponent("slow.mlmodel").path
        let result = try TerminalRunner.run("coreml-convert", ["darknet", model.cfg, model.weights, "-o", output, "--quantize-weights", "8"])
        XCTAssertEqual(result.status, 0, result.terminal)
        XCTAssertTrue(result.standardOutput.contains("Fidelity:     float32 -> 8-bit linear"), result.standardOutput)
        let lines = drawnLines(result.terminal)
        XCTAssertTrue(lines.contains { $0.hasPrefix("fidelity report: ") && $0.hasSuffix(" layers run") }, result.terminal.debugDescription)
        XCTAssertTrue(result.terminal.hasSuffix("\r\u{1B}[K"), "cleared when done: \(result.terminal.debugDescription)")
    }

    func testNothingOfTheProgressGoesToAPipeOrAFile() throws {
        let folder = try temporaryFolder()
        let model = try makeSlowModel(in: folder)
        let output = folder.appendingPathComponent("slow.mlmodel").path
        let result = try ProgramRunner.run("coreml-convert", ["darknet", model.cfg, model.weights, "-o", output,
                                                              "--quantize-weights", "4", "--quantization", "kmeans-lut"])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertEqual(result.standardError, "", "stderr is a pipe: no progress line")
        let images = try imageFolder(count: 8, in: folder)
        let sample = folder.appendingPathComponent("Sample.mlmodel").path
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ["sample", "-o", sample, "-q"]).status, 0)
        let predicted = try ProgramRunner.run("coreml-predict", [sample, images.path, "--benchmark", "3"])
        XCTAssertEqual(predicted.status, 0, predicted.standardError)
        XCTAssertFalse(predicted.standardError.contains("\r") || predicted.standardError.contains("\u{1B}"), predicted.standardError)
    }

    /// The slow network as a .mlmodel whose image input is 64x64: half a second an image.
    func makeSlowPredictor(in folder: URL) throws -> String {
        let model = try makeSlowModel(in: folder, size: 64)
        let path = folder.appendingPathComponent("slow64.mlmodel").path
        let converted = try ProgramRunner.run("coreml-convert", ["darknet", model.cfg, model.weights, "-o", path, "-q"])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        return path
    }

    /// `count` copies of Samples/face.png named img00.png, img01.png...
    func imageFolder(count: Int, in folder: URL) throws -> URL {
        let images = folder.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let face = try Data(contentsOf: repositoryRoot.appendingPathComponent("Samples/face.png"))
        for index in 0..<count { try face.write(to: images.appendingPathComponent(String(format: "img%02d.png", index))) }
        return images
    }

    func testPredictOverAFolderShowsItsProgressOnATerminal() throws {
        let folder = try temporaryFolder()
        let images = try imageFolder(count: 16, in: folder)
        let model = try makeSlowPredictor(in: folder)
        let result = try TerminalRunner.run("coreml-predict", [model, images.path])
        XCTAssertEqual(result.status, 0, result.terminal)
        let lines = drawnLines(result.terminal)
        XCTAssertTrue(lines.contains { $0.hasPrefix("predicting: ") && $0.hasSuffix("/16 images") }, result.terminal.debugDescription)
        XCTAssertTrue(lines.allSatisfy { $0.count <= 100 }, result.terminal.debugDescription)
        XCTAssertTrue(result.terminal.hasSuffix("\r\u{1B}[K"), result.terminal.debugDescription)
        XCTAssertEqual(result.standardOutput.components(separatedBy: ".png\n  ").count, 1 + 16, "every image's result")
    }

    /// Ctrl-C while the line shows erases it before the program ends, and
    /// --benchmark's runs have their line too.
    func testCtrlCErasesTheLineAndTheBenchmarkShowsItsRuns() throws {
        let folder = try temporaryFolder()
        let images = try imageFolder(count: 16, in: folder)
        let model = try makeSlowPredictor(in: folder)
        let stopped = try TerminalRunner.run("coreml-predict", [model, images.path]) { $0.contains("predicting: ") }
        XCTAssertTrue(stopped.interrupted, stopped.terminal.debugDescription)
        XCTAssertTrue(stopped.terminal.hasSuffix("\r\u{1B}[K"), "the line erased: \(stopped.terminal.debugDescription)")

        // 40 runs: well over the line's one-second delay on a fast machine too (8 took 0.9 s on one).
        let timed = try TerminalRunner.run("coreml-predict", [model, images.appendingPathComponent("img00.png").path, "--benchmark", "40"])
        XCTAssertEqual(timed.status, 0, timed.terminal)
        XCTAssertTrue(drawnLines(timed.terminal).contains { $0.hasPrefix("benchmark: ") && $0.hasSuffix("/40 runs") }, timed.terminal.debugDescription)
        XCTAssertTrue(timed.terminal.contains("\r\u{1B}[Kbenchmark: 40 runs, median "), "the report starts at the left edge: \(timed.terminal.debugDescription)")
    }

    /// A failure after the line appeared: the error line starts at the left edge.
    func testAnErrorAfterTheLineStartsClean() throws {
        let folder = try temporaryFolder()
        let model = try makeSlowModel(in: folder)
        // A NaN as the very last weight: every tensor is quantized (seconds), then the conversion fails.
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: model.weights))
        try handle.seek(toOffset: try handle.seekToEnd() - 4)
        try handle.write(contentsOf: withUnsafeBytes(of: Float.nan) { Data($0) })
        try handle.close()
        let output = folder.appendingPathComponent("slow.mlmodel").path
        let result = try TerminalRunner.run("coreml-convert", ["darknet", model.cfg, model.weights, "-o", output,
                                                               "--quantize-weights", "4", "--quantization", "kmeans-lut"])
        XCTAssertEqual(result.status, 1, result.terminal)
        XCTAssertTrue(result.terminal.contains("quantizing weights: "), result.terminal.debugDescription)
        XCTAssertTrue(result.terminal.contains("\r\u{1B}[Kerror: "), "the line erased before the error: \(result.terminal.debugDescription)")
        XCTAssertEqual(result.terminal.components(separatedBy: "error: ").count, 2, result.terminal.debugDescription)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    /// Ctrl-C after the first results keeps them: each image's result is
    /// printed (and flushed) once it and those before it are done.
    func testResultsPrintedBeforeAnInterruptStay() throws {
        let folder = try temporaryFolder()
        let images = try imageFolder(count: 16, in: folder)
        let model = try makeSlowPredictor(in: folder)

        let process = Process()
        process.executableURL = ProgramRunner.productsDirectory.appendingPathComponent("coreml-predict")
        process.arguments = [model, images.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var printed = Data()
        var runningAtFirstResult = false
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }  // the end: the program printed nothing before it exited
            printed.append(chunk)
            if String(decoding: printed, as: UTF8.self).contains("img00.png\n  ") {  // the first image's labels
                runningAtFirstResult = process.isRunning
                kill(process.processIdentifier, SIGINT)
                break
            }
        }
        printed.append(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        let text = String(decoding: printed, as: UTF8.self)
        XCTAssertTrue(runningAtFirstResult, "the first result is printed while the other images still run: \(text)")
        XCTAssertEqual(process.terminationReason, .uncaughtSignal, "stopped by SIGINT")
        XCTAssertTrue(text.hasPrefix("images: scaleFill to 64x64"), text)
        XCTAssertTrue(text.contains(images.appendingPathComponent("img00.png").path + "\n  "), text)
        XCTAssertFalse(text.contains("img15.png"), "stopped before the last image: \(text)")
    }

    /// A complete run prints what it printed before streaming: the fit lines,
    /// then each image's labels in name order, as the images one at a time would.
    func testACompleteRunPrintsTheImagesInNameOrder() throws {
        let folder = try temporaryFolder()
        let images = try imageFolder(count: 12, in: folder)
        let sample = folder.appendingPathComponent("Sample.mlmodel").path
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ["sample", "-o", sample, "-q"]).status, 0)
        let all = try ProgramRunner.run("coreml-predict", [sample, images.path])
        XCTAssertEqual(all.status, 0, all.standardError)
        var expected = ""
        for index in 0..<12 {
            let one = try ProgramRunner.run("coreml-predict", [sample, images.appendingPathComponent(String(format: "img%02d.png", index)).path])
            let lines = one.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
            if index == 0 { expected += lines.prefix(2).joined(separator: "\n") + "\n" }
            expected += lines.dropFirst(2).joined(separator: "\n")
        }
        XCTAssertEqual(all.standardOutput, expected)
    }
}

/// Runs a program with its stderr on a pseudo-terminal (so that it is a
/// terminal to the program, as in a person's shell) and its stdout on a pipe.
enum TerminalRunner {
    struct Result {
        var status: Int32
        var standardOutput: String
        /// Everything the program wrote to the terminal (stderr).
        var terminal: String
        /// Whether SIGINT ended the program.
        var interrupted = false
    }

    /// - Parameter interruptWhen: sends SIGINT (Ctrl-C) once the terminal's
    ///   bytes so far satisfy it.
    static func run(_ program: String, _ arguments: [String], timeout: TimeInterval = 120,
                    interruptWhen: (@Sendable (String) -> Bool)? = nil) throws -> Result {
        let primary = posix_openpt(O_RDWR | O_NOCTTY)
        guard primary >= 0, grantpt(primary) == 0, unlockpt(primary) == 0, let name = ptsname(primary) else {
            throw XCTSkip("no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        let secondary = open(name, O_RDWR | O_NOCTTY)
        guard secondary >= 0 else { throw XCTSkip("cannot open \(String(cString: name))") }
        let process = Process()
        process.executableURL = ProgramRunner.productsDirectory.appendingPathComponent(program)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm"
        // The line at once: a fast machine finishes the tests' slow steps within the default second.
        environment["COREML_PROGRESS_DELAY"] = "0"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(fileDescriptor: secondary, closeOnDealloc: false)
        try process.run()
        close(secondary)  // the child's copy stays: reading ends (EIO) once it exits
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        let terminal = TerminalBytes()
        let reading = DispatchGroup()
        DispatchQueue.global().async(group: reading) {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(primary, &buffer, buffer.count)
                if count <= 0 { break }
                terminal.data.append(contentsOf: buffer[0..<count])
                if let interruptWhen, !terminal.interrupted, interruptWhen(String(decoding: terminal.data, as: UTF8.self)) {
                    terminal.interrupted = true
                    kill(process.processIdentifier, SIGINT)
                }
            }
        }
        let standardOutput = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        reading.wait()
        close(primary)
        return Result(status: process.terminationStatus, standardOutput: String(decoding: standardOutput, as: UTF8.self),
                      terminal: String(decoding: terminal.data, as: UTF8.self),
                      interrupted: process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT)
    }
}

// The pseudo-terminal calls of <stdlib.h>, which the Glibc module leaves out (they need _XOPEN_SOURCE).
@_silgen_name("posix_openpt") private func posix_openpt(_ flags: Int32) -> Int32
@_silgen_name("grantpt") private func grantpt(_ descriptor: Int32) -> Int32
@_silgen_name("unlockpt") private func unlockpt(_ descriptor: Int32) -> Int32
@_silgen_name("ptsname") private func ptsname(_ descriptor: Int32) -> UnsafeMutablePointer<CChar>?

/// Bytes one thread reads while another waits for it (read after `wait`).
private final class TerminalBytes: @unchecked Sendable {
    var data = Data()
    var interrupted = false
}

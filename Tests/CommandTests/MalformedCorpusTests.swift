import Foundation
import TestSupport
import XCTest

/// Every file of Tests/Fixtures/malformed (scripts/fixtures/make_malformed_corpus.py
/// writes them and manifest.json) through the program its manifest entry
/// names, as a user would run it. A malformed file must end the program with
/// exit status 1 and exactly one stderr line that names the file and says
/// where (line:column in text, the byte offset in binary files, where the
/// manifest asks for it); never a crash, never a hang (each run is killed
/// after 10 s), never more than the fuzzers' 512 MB of memory; no output
/// file appears, and one that was there before stays byte for byte. Entries with exit 0 (NaN and Inf weights, CRLF labels,
/// fields the text parser skips by design) must succeed.
///
/// Entries with a "bug" are what the programs get wrong today (found by the
/// corpus or by the fuzzers in Fuzzing/): their failures are collected and
/// reported as one XCTSkip("BUG: ...") per format, so the suite stays green
/// until they are fixed, and says so when one is.
final class MalformedCorpusTests: XCTestCase {
    struct Entry: Decodable {
        var file: String
        var program: String
        var arguments: [String]
        var exit: Int32
        var message: String
        var location: String?
        var why: String
        var names: String?
        var bug: String?
        /// false: the run itself would do harm today (a hang that leaves a
        /// spinning child behind); the entry is reported as its bug, unrun.
        var run: Bool?
    }

    struct Manifest: Decodable {
        var entries: [Entry]
    }

    static let manifest: [Entry] = {
        let url = repositoryRoot.appendingPathComponent("Tests/Fixtures/malformed/manifest.json")
        guard let data = try? Data(contentsOf: url), let manifest = try? JSONDecoder().decode(Manifest.self, from: data) else {
            return []
        }
        return manifest.entries
    }()

    static let timeout: TimeInterval = 10

    func testManifestCoversEveryFile() throws {
        let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/malformed")
        XCTAssertGreaterThan(Self.manifest.count, 100, "manifest.json is missing or unreadable")
        let listed = Set(Self.manifest.map(\.file))
        let formats = ["mlmodel", "prototxt", "caffemodel", "pbtxt", "pb", "labels", "h5", "npy", "image", "hostile"]
        for format in formats {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(format).path)
            XCTAssertTrue(names.contains { listed.contains("Tests/Fixtures/malformed/\(format)/\($0)") }, "no entry for \(format)")
        }
        for entry in Self.manifest {
            XCTAssertTrue(FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(entry.file).path), entry.file)
        }
    }

    func testMLModel() throws { try check(format: "mlmodel") }
    func testPrototxt() throws { try check(format: "prototxt") }
    func testCaffemodel() throws { try check(format: "caffemodel") }
    func testPbtxt() throws { try check(format: "pbtxt") }
    func testPb() throws { try check(format: "pb") }
    func testLabels() throws { try check(format: "labels") }
    func testHDF5() throws { try check(format: "h5") }
    func testNpy() throws { try check(format: "npy") }
    func testImages() throws { try check(format: "image") }
    func testFuzzerRegressions() throws { try check(format: "regressions") }
    func testHostileNumbers() throws { try check(format: "hostile") }

    /// Every malformed and hostile deploy definition, given to inspect on
    /// its own (structure only, stand-in weights): a summary, or one error
    /// line naming the file; never a crash, a hang or a run past 512 MB.
    func testDeployDefinitionsAloneThroughInspect() throws {
        let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/malformed")
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".prototxt") }.sorted()
        XCTAssertGreaterThan(files.count, 30)
        for name in files {
            let path = folder.appendingPathComponent(name).path
            for extra in [[], ["--json"], ["--graph", "dot", "--graph-output", "-"]] {
                let result = try runWithTimeout("coreml-inspect", [path] + extra)
                let what = "\(name) \(extra)"
                XCTAssertFalse(result.timedOut, "\(what): still ran after \(Self.timeout) s")
                XCTAssertFalse(result.signaled, "\(what): crashed: \(result.standardError.suffix(300))")
                if let peak = result.peakKB { XCTAssertLessThanOrEqual(peak, Self.memoryLimitKB, what) }
                if result.status == 0 {
                    XCTAssertEqual(result.standardError, "", what)
                } else {
                    XCTAssertEqual(result.status, 1, what)
                    let lines = result.standardError.split(separator: "\n")
                    XCTAssertEqual(lines.count, 1, "\(what): \(result.standardError)")
                    XCTAssertTrue(lines.first?.hasPrefix("error: ") == true && lines.first!.contains(name.split(separator: "/").last!),
                                  "\(what): \(result.standardError)")
                }
            }
        }
    }

    /// Runs the entries of one format folder; known bugs end in one XCTSkip.
    func check(format: String) throws {
        let entries = Self.manifest.filter { $0.file.hasPrefix("Tests/Fixtures/malformed/\(format)/") }
        XCTAssertFalse(entries.isEmpty, "no manifest entries for \(format)")
        var knownBugs: [String] = []
        for entry in entries {
            if entry.run == false, let bug = entry.bug {
                knownBugs.append("\(entry.file): \(bug) [not run]")
                continue
            }
            let problems = try run(entry)
            if let bug = entry.bug {
                if problems.isEmpty {
                    print("note: \(entry.file) now behaves as the manifest expects; its bug looks fixed (drop \"bug\")")
                } else {
                    knownBugs.append("\(entry.file): \(bug) [\(problems.joined(separator: "; "))]")
                }
            } else {
                for problem in problems { XCTFail("\(entry.file) (\(entry.why)): \(problem)") }
            }
        }
        if !knownBugs.isEmpty {
            throw XCTSkip("BUG: \(knownBugs.count) known bug(s):\n" + knownBugs.joined(separator: "\n"))
        }
    }

    /// What is wrong with how the program handles `entry`; empty if nothing.
    func run(_ entry: Entry) throws -> [String] {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.mlmodel")
        let file = repositoryRoot.appendingPathComponent(entry.file).path
        let arguments = entry.arguments.map { argument -> String in
            if argument == "{file}" { return file }
            if argument == "{out}" { return output.path }
            if argument.hasSuffix("={file}") { return argument.replacingOccurrences(of: "{file}", with: file) }
            // Repository paths (other fixtures).
            if !argument.hasPrefix("-"), argument.contains("/"),
               FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(argument).path) {
                return repositoryRoot.appendingPathComponent(argument).path
            }
            return argument
        }
        let writesOutput = entry.arguments.contains("{out}")
        var problems: [String] = []

        // 1. No output file before: none after (and no temporary files left).
        let first = try runWithTimeout(entry.program, arguments)
        problems += judge(first, entry, file: file)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        if entry.exit == 0 {
            if writesOutput && !left.contains("out.mlmodel") { problems.append("exit 0 but no output file") }
            return problems
        }
        if !left.isEmpty { problems.append("left files behind: \(left.sorted())") }

        // 2. An output file there before: untouched.
        if writesOutput && first.status == 1 {
            let old = Data("an older model, which must survive\n".utf8)
            try old.write(to: output)
            let second = try runWithTimeout(entry.program, arguments)
            problems += judge(second, entry, file: file).map { "with an existing output: \($0)" }
            if (try? Data(contentsOf: output)) != old { problems.append("the existing output file was changed") }
            let after = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            if after != ["out.mlmodel"] { problems.append("with an existing output, left files behind: \(after.sorted())") }
        }
        return problems
    }

    /// The fuzzers' memory limit, which every run here must keep too.
    static let memoryLimitKB = 512 * 1024

    func judge(_ result: TimedResult, _ entry: Entry, file: String) -> [String] {
        if result.timedOut { return ["still running after \(Int(Self.timeout)) s (killed)"] }
        if let peak = result.peakKB, peak > Self.memoryLimitKB {
            return ["used \(peak / 1024) MB, more than the fuzzers' \(Self.memoryLimitKB / 1024) MB"]
        }
        if result.signaled { return ["crashed (signal \(result.status)): \(result.standardError.suffix(400))"] }
        guard result.status == entry.exit else {
            return ["exit status \(result.status), expected \(entry.exit): \(result.standardError.suffix(400))"]
        }
        if entry.exit == 0 { return [] }
        var problems: [String] = []
        let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: true)
        guard lines.count == 1, let line = lines.first.map(String.init) else {
            return ["\(lines.count) stderr lines, expected 1: \(result.standardError.prefix(400))"]
        }
        let named = entry.names.map { repositoryRoot.appendingPathComponent($0).path } ?? file
        if !line.contains(named) { problems.append("the error does not name \(named): \(line)") }
        if !entry.message.isEmpty && !line.contains(entry.message) {
            problems.append("the error does not say '\(entry.message)': \(line)")
        }
        if let location = entry.location, line.range(of: location, options: .regularExpression) == nil {
            problems.append("the error has no location (/\(location)/): \(line)")
        }
        if !line.hasPrefix("error: ") { problems.append("not an 'error:' line: \(line)") }
        return problems
    }

    struct TimedResult {
        var status: Int32
        var signaled: Bool
        var timedOut: Bool
        var standardError: String
        /// The run's peak resident memory, when known: the children's
        /// high-water mark rose during it (RUSAGE_CHILDREN keeps the largest
        /// child reaped so far, so a run below an earlier peak is not measured).
        var peakKB: Int?
    }

    static func childrenPeakKB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }

    /// Runs a built program; kills it after `timeout` seconds.
    func runWithTimeout(_ program: String, _ arguments: [String]) throws -> TimedResult {
        let peakBefore = Self.childrenPeakKB()
        let process = Process()
        process.executableURL = ProgramRunner.productsDirectory.appendingPathComponent(program)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment["SWIFT_BACKTRACE"] = "enable=no"  // a crash is reported as a signal, at once
        process.environment = environment
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        // Drain both pipes while the program runs, so a chatty one cannot block.
        let group = DispatchGroup()
        let errorData = DataBox()
        DispatchQueue.global().async(group: group) { _ = output.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errorData.data = error.fileHandleForReading.readDataToEndOfFile() }
        var timedOut = false
        if done.wait(timeout: .now() + Self.timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            done.wait()
        }
        // Children the program forked (HDF5 reads) may hold the pipes open a little longer.
        _ = group.wait(timeout: .now() + 5)
        let peakAfter = Self.childrenPeakKB()
        return TimedResult(status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
                           timedOut: timedOut, standardError: String(decoding: errorData.data, as: UTF8.self),
                           peakKB: peakAfter > peakBefore ? peakAfter : nil)
    }
}

/// Bytes one reader thread fills and the test reads after `group.wait`.
private final class DataBox: @unchecked Sendable {
    var data = Data()
}

extension MalformedCorpusTests {
    /// Hostile TFLite flatbuffers: cut, offsets out of range or to
    /// themselves, a vtable cycle, a vector of 4e9 tables.
    func testTFLite() throws { try check(format: "tflite") }
}

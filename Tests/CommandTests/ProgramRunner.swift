import Foundation
import TestSupport
import XCTest

/// Runs the built command-line programs (`convert`, `inspect`) as a user
/// would, and compares their output with recorded snapshots.
enum ProgramRunner {
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Where SwiftPM put the executables: beside the test bundle.
    static var productsDirectory: URL { TestSupport.productsDirectory }

    /// Runs `program`; with `fileSizeLimit`, under `ulimit -f` of that many
    /// KiB (through /bin/sh, SIGXFSZ ignored: a write past it fails with
    /// EFBIG instead of killing the program), which fails writes as root too.
    /// A run that has not ended after `timeout` seconds is killed and fails
    /// the calling test (a hang is a bug too). `currentDirectory`: where
    /// it runs (relative paths in its arguments are read and written there).
    static func run(_ program: String, _ arguments: [String], fileSizeLimit: Int? = nil, timeout: TimeInterval = 120,
                    environment extra: [String: String] = [:], currentDirectory: URL? = nil,
                    file: StaticString = #filePath, line: UInt = #line) throws -> Result {
        let process = Process()
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let executable = productsDirectory.appendingPathComponent(program)
        if let fileSizeLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            // POSIX sh counts ulimit -f in 512-byte blocks.
            process.arguments = ["-c", "trap '' XFSZ; ulimit -f \(2 * fileSizeLimit) && exec \"$0\" \"$@\"", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment.merging(extra) { $1 }
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let watchdog = DispatchWorkItem { [process] in
            guard process.isRunning else { return }
            XCTFail("\(program) \(arguments.joined(separator: " ")) still ran after \(timeout) s: killed", file: file, line: line)
            kill(process.processIdentifier, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        // Both pipes at once: a program that fills one while we wait on the other would block.
        let errorData = Collected()
        let errorRead = DispatchGroup()
        DispatchQueue.global().async(group: errorRead) { errorData.data = error.fileHandleForReading.readDataToEndOfFile() }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        errorRead.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
                      standardError: String(decoding: errorData.data, as: UTF8.self))
    }
}

extension ProgramRunner {
    /// Runs `program`, which must end with `status`, print nothing on stdout
    /// and exactly one `error:` line containing `fragment` (for a usage
    /// error, followed by one hint line naming `--help`).
    static func assertOneError(_ program: String, _ arguments: [String], _ fragment: String, status: Int32 = 1,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try run(program, arguments, timeout: 60, file: file, line: line)
        XCTAssertEqual(result.status, status, result.standardError, file: file, line: line)
        XCTAssertEqual(result.standardOutput, "", file: file, line: line)
        let lines = result.standardError.split(separator: "\n")
        XCTAssertEqual(lines.filter { $0.hasPrefix("error: ") }.count, 1, result.standardError, file: file, line: line)
        XCTAssertTrue(lines.first?.hasPrefix("error: ") == true && lines.first!.contains(fragment),
                      "'\(fragment)' not in: \(result.standardError)", file: file, line: line)
        if status != 64 { XCTAssertEqual(lines.count, 1, result.standardError, file: file, line: line) }
        if status == 64 {
            XCTAssertEqual(lines.count, 2, result.standardError, file: file, line: line)
            XCTAssertTrue(lines.last?.hasSuffix(" --help' for its usage") == true, result.standardError, file: file, line: line)
        }
    }
}

/// Bytes one thread reads while another waits for it (read after `wait`).
private final class Collected: @unchecked Sendable {
    var data = Data()
}

/// Compares `text` with `Tests/CommandTests/Snapshots/<name>.txt`; with
/// `RECORD_SNAPSHOTS=1` in the environment, rewrites the snapshot instead.
func assertSnapshot(_ text: String, named name: String, file: StaticString = #filePath, line: UInt = #line) throws {
    let url = repositoryRoot.appendingPathComponent("Tests/CommandTests/Snapshots/\(name).txt")
    if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
        try text.write(to: url, atomically: false, encoding: .utf8)
        return
    }
    let recorded = try String(contentsOf: url, encoding: .utf8)
    XCTAssertEqual(text, recorded, "snapshot \(name) differs (RECORD_SNAPSHOTS=1 re-records it)", file: file, line: line)
}

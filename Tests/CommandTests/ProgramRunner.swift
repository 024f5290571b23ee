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
    static let productsDirectory: URL = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("convert").path) { return url }
        }
        return repositoryRoot.appendingPathComponent(".build/debug")
    }()

    /// Runs `program`; with `fileSizeLimit`, under `ulimit -f` of that many
    /// KiB (through /bin/sh, SIGXFSZ ignored: a write past it fails with
    /// EFBIG instead of killing the program), which fails writes as root too.
    static func run(_ program: String, _ arguments: [String], fileSizeLimit: Int? = nil) throws -> Result {
        let process = Process()
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
        process.environment = environment
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
                      standardError: String(decoding: errorData, as: UTF8.self))
    }
}

/// Compares `text` with `Tests/CommandTests/Snapshots/<name>.txt`; with
/// `RECORD_SNAPSHOTS=1` in the environment, rewrites the snapshot instead.
func assertSnapshot(_ text: String, named name: String, file: StaticString = #filePath, line: UInt = #line) throws {
    let url = repositoryRoot.appendingPathComponent("Tests/CommandTests/Snapshots/\(name).txt")
    if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
        try text.write(to: url, atomically: true, encoding: .utf8)
        return
    }
    let recorded = try String(contentsOf: url, encoding: .utf8)
    XCTAssertEqual(text, recorded, "snapshot \(name) differs (RECORD_SNAPSHOTS=1 re-records it)", file: file, line: line)
}

import Foundation
import XCTest
@testable import CLI

final class CommandRunnerTests: XCTestCase {
    private let caffeArguments = ["caffe", "m.prototxt", "m.caffemodel", "-o", "out.mlmodel"]

    private func invocation(_ arguments: [String]) throws(CommandLineError) -> Invocation {
        try CommandRunner.parse(ConvertCommand.self, arguments: arguments)
    }

    func testSubcommandDispatch() throws {
        guard case .run(let command, let args) = try invocation(caffeArguments + ["--is-bgr"]) else {
            return XCTFail("expected a run")
        }
        XCTAssertTrue(command == CaffeCommand.self)
        XCTAssertEqual(args.commandPath, ["convert", "caffe"])
        XCTAssertTrue(args.flag("is-bgr"))

        guard case .run(let tf, let tfArgs) = try invocation(["tensorflow", "g.pb", "-o", "x"]) else {
            return XCTFail("expected a run")
        }
        XCTAssertTrue(tf == TensorflowCommand.self)
        XCTAssertEqual(try tfArgs.string("graph"), "g.pb")
    }

    func testHelpForms() throws {
        let caffeHelp = HelpFormatter.help(for: CaffeCommand.self, path: ["convert", "caffe"])
        let rootHelp = HelpFormatter.help(for: ConvertCommand.self, path: ["convert"])
        let cases: [(arguments: [String], expected: String)] = [
            (["--help"], rootHelp),
            (["-h"], rootHelp),
            (["help"], rootHelp),
            (["help", "caffe"], caffeHelp),
            (["caffe", "--help"], caffeHelp),
            (["caffe", "-h"], caffeHelp),
            (["caffe", "--bogus", "--help"], caffeHelp),
            (["caffe", "m.prototxt", "-h"], caffeHelp),
        ]
        for (arguments, expected) in cases {
            XCTAssertEqual(CommandRunner.execute(ConvertCommand.self, arguments: arguments), .output(expected), "\(arguments)")
        }
        // After `--`, `--help` is an ordinary argument.
        guard case .run(_, let args) = try invocation(["caffe", "-o", "x", "--", "--help", "w"]) else {
            return XCTFail("expected a run")
        }
        XCTAssertEqual(try args.string("prototxt"), "--help")
    }

    /// The program's name, the version, and the program's own lines.
    func testVersion() {
        XCTAssertEqual(ToolkitVersion.string, "0.2.0")
        for arguments in [["--version"], ["caffe", "--version"]] {
            let outcome = CommandRunner.execute(ConvertCommand.self, arguments: arguments)
            XCTAssertEqual(outcome, .output("convert 0.2.0 (ModelToolkit)\nwrites specification versions 1 to 5"))
            XCTAssertEqual(outcome.exitCode, .success)
        }
    }

    func testOutcomes() {
        let caffeUsage = "see 'convert caffe --help' for its usage"
        let rootUsage = "see 'convert --help' for its usage"
        let cases: [(arguments: [String], outcome: Outcome)] = [
            (caffeArguments, .success),
            (["tensorflow", "g.pb", "-o", "x", "--input", "a=1,2"], .success),
            ([], .usageError(message: "missing subcommand; expected one of: caffe, tensorflow", usage: rootUsage)),
            (["cafe"], .usageError(message: "unknown subcommand 'cafe'; did you mean 'caffe'?", usage: rootUsage)),
            (["onnx"], .usageError(message: "unknown subcommand 'onnx'; expected one of: caffe, tensorflow", usage: rootUsage)),
            (["help", "onnx"], .usageError(message: "unknown subcommand 'onnx'; expected one of: caffe, tensorflow", usage: rootUsage)),
            (["--bogus"], .usageError(message: "unknown option '--bogus'", usage: rootUsage)),
            (caffeArguments + ["--is-brg"],
             .usageError(message: "unknown option '--is-brg'; did you mean '--is-bgr'?", usage: caffeUsage)),
            (["caffe", "m.prototxt", "m.caffemodel"],
             .usageError(message: "missing required option '--output'", usage: caffeUsage)),
            (caffeArguments + ["--image-scale", "abc"],
             .usageError(message: "invalid value 'abc' for '--image-scale': expected a finite number, or a fraction such as 2/255", usage: caffeUsage)),
            (["tensorflow", "g.pb", "-o", "x", "--input", "fail=1"], .failure(message: "unsupported layer 'Foo'")),
        ]
        for (arguments, expected) in cases {
            XCTAssertEqual(CommandRunner.execute(ConvertCommand.self, arguments: arguments), expected, "\(arguments)")
        }
    }

    func testExitCodeMapping() {
        XCTAssertEqual(ExitCode(error: nil), .success)
        XCTAssertEqual(ExitCode(error: UsageError("x")), .usage)
        XCTAssertEqual(ExitCode(error: ConversionError.unsupported("y")), .failure)
        XCTAssertEqual(ExitCode(error: CocoaError(.fileNoSuchFile)), .failure)
        XCTAssertEqual(ExitCode.usage.rawValue, 64)

        let cases: [(Outcome, Int32)] = [
            (.success, 0),
            (.output("help"), 0),
            (.usageError(message: "m", usage: "usage: x"), 64),
            (.failure(message: "m"), 1),
        ]
        for (outcome, code) in cases {
            XCTAssertEqual(outcome.exitCode.rawValue, code, "\(outcome)")
        }
    }

    func testStreamText() {
        let usage = Outcome.usageError(message: "unknown option '--x'", usage: "usage: convert caffe <prototxt>")
        XCTAssertEqual(usage.standardError, "error: unknown option '--x'\nusage: convert caffe <prototxt>\n")
        XCTAssertEqual(usage.standardOutput, "")
        let failure = Outcome.failure(message: "cannot open 'a.caffemodel'")
        XCTAssertEqual(failure.standardError, "error: cannot open 'a.caffemodel'\n")
        XCTAssertEqual(Outcome.success.standardError, "")
        XCTAssertEqual(Outcome.output("usage: x\n").standardOutput, "usage: x\n")
    }

    func testMainReturnsExitStatus() {
        XCTAssertEqual(ConvertCommand.main(arguments: caffeArguments), 0)
        XCTAssertEqual(ConvertCommand.main(arguments: ["tensorflow", "g.pb", "-o", "x", "--input", "fail=1"]), 1)
        XCTAssertEqual(CaffeCommand.main(arguments: ["m.prototxt"]), 64)
    }

    func testErrorLine() {
        struct Described: Error, CustomStringConvertible { var description: String }
        struct Localized: LocalizedError { var errorDescription: String? { "localized text" } }
        let cases: [(any Error, String)] = [
            (Described(description: "plain"), "plain"),
            (Described(description: "error: already prefixed"), "already prefixed"),
            (Described(description: "line one\n  line two\n"), "line one line two"),
            (Described(description: ""), "unknown error"),
            (Localized(), "localized text"),
            (UsageError("bad"), "bad"),
            (CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "/x/m.caffemodel"]),
             "/x/m.caffemodel: The file doesn’t exist."),
            (POSIXError(.ENOENT), "No such file or directory"),
            (NSError(domain: "D", code: 3, userInfo: [NSLocalizedDescriptionKey: "custom"]), "custom"),
        ]
        for (error, expected) in cases {
            XCTAssertEqual(errorLine(for: error), expected)
        }
        do {
            _ = try Data(contentsOf: URL(fileURLWithPath: "/nonexistent/m.caffemodel"))
            XCTFail("expected a read error")
        } catch {
            XCTAssertEqual(errorLine(for: error), "/nonexistent/m.caffemodel: No such file or directory")
        }
    }
}

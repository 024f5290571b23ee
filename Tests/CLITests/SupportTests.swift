import XCTest
@testable import CLI

final class SupportTests: XCTestCase {
    func testUseColor() {
        let cases: [(interactive: Bool, environment: [String: String], expected: Bool)] = [
            (true, [:], true),
            (false, [:], false),
            (true, ["NO_COLOR": "1"], false),
            (true, ["NO_COLOR": ""], true),
            (true, ["TERM": "dumb"], false),
            (true, ["TERM": "xterm-256color"], true),
        ]
        for (interactive, environment, expected) in cases {
            XCTAssertEqual(Terminal.useColor(isInteractive: interactive, environment: environment), expected,
                           "\(interactive) \(environment)")
        }
    }

    func testTerminalOnNonTTY() throws {
        let pipe = Pipe()
        let stream = Terminal.Stream(fileDescriptor: pipe.fileHandleForWriting.fileDescriptor)
        XCTAssertFalse(Terminal.isInteractive(stream))
        XCTAssertFalse(Terminal.useColor(for: stream, environment: [:]))
        XCTAssertEqual(Terminal.Stream.stderr.fileDescriptor, 2)
    }

    func testBuilderControlFlow() {
        let withBatch = true
        let options = Options {
            Positional("input", help: "Input.")
            if withBatch {
                Option("batch", help: "Batch.")
            }
            for channel in ["red", "green"] {
                Option("\(channel)-bias", default: "0", help: "Bias.")
            }
            OptionSpec(kind: .flag, name: "dry-run", help: "Do nothing.")
        }
        XCTAssertEqual(options.specs.map(\.name), ["input", "batch", "red-bias", "green-bias", "dry-run"])
        XCTAssertEqual(options.positionals.map(\.name), ["input"])
        XCTAssertEqual(options.spec(named: "red-bias")?.defaultValue, "0")
    }

    func testSpecNormalisation() {
        let positional = OptionSpec(kind: .positional, name: "file", short: "f", help: "", isRequired: true)
        XCTAssertNil(positional.short)
        XCTAssertEqual(positional.displayName, "<file>")
        let defaulted = Option("scale", default: "1", required: true, help: "").spec
        XCTAssertFalse(defaulted.isRequired, "a default satisfies a requirement")
        XCTAssertEqual(Flag("x", help: "").spec.valueName, "x")
    }
}

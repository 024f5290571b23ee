import XCTest
@testable import CLI

/// Arguments keep the bytes they were given (`ProgramArguments` reads argv
/// raw; a byte that is not UTF-8 is held as U+10FC00 + byte): a path
/// option's value reaches the command unchanged, a text option refuses
/// such a byte, and every message shows it as `\xff`.
final class ArgumentPathBytesTests: XCTestCase {
    /// `out\xff.mlmodel` as `ProgramArguments` holds it.
    let rawPath = "out\u{10FCFF}.mlmodel"

    func testAPathValueIsKeptAndShownEscaped() throws {
        let parsed = try ArgumentParser(options: CaffeCommand.options).parse(["p\u{10FC80}", "w", "-o", rawPath])
        XCTAssertEqual(try parsed.string("output"), rawPath)
        XCTAssertEqual(try parsed.string("prototxt"), "p\u{10FC80}")
        let outcome = CommandRunner.execute(ConvertCommand.self, arguments: ["caffe", "p", "w", "-o", rawPath, "--image-scale", "x\u{10FCFF}"])
        XCTAssertTrue(outcome.standardError.hasPrefix(#"error: invalid value 'x\xff' for '--image-scale'"#), outcome.standardError)
    }

    func testATextOptionRefusesBytesThatAreNotUTF8() throws {
        let options = Options {
            Option("output", short: "o", valueName: "path", help: "Where to write the model.")
            Option("author", valueName: "text", text: true, help: "Metadata: author.")
        }
        let parser = ArgumentParser(options: options)
        XCTAssertEqual(try parser.parse(["--author", "Zoë 猫"]).optionalString("author"), "Zoë 猫")
        XCTAssertThrowsError(try parser.parse(["-o", rawPath, "--author=a\u{10FCFF}b"])) { error in
            let message = Outcome.usageError(message: (error as! UsageError).message, usage: "").standardError
            XCTAssertEqual(message, #"error: '--author' takes UTF-8 text, and 'a\xffb' has bytes that are not UTF-8 (shown as \xNN)"# + "\n\n")
        }
    }
}

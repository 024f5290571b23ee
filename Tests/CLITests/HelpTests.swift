import XCTest
@testable import CLI

final class HelpTests: XCTestCase {
    func testUsageLineMatchesDeclaration() {
        XCTAssertEqual(
            HelpFormatter.usage(for: SmallCaffeCommand.self, path: ["convert", "caffe"]),
            "usage: convert caffe <prototxt> <weights> [--image-input <name> ...] -o <path>")
        XCTAssertEqual(HelpFormatter.usage(for: ConvertCommand.self, path: ["convert"]), "usage: convert <subcommand>")
        XCTAssertEqual(HelpFormatter.usage(for: ListCommand.self, path: ["list"]), "usage: list <first> [<rest> ...]")
    }

    func testLongUsageWrapsWithHangingIndent() {
        let usage = HelpFormatter.usage(for: CaffeCommand.self, path: ["convert", "caffe"])
        let lines = usage.split(separator: "\n")
        XCTAssertGreaterThan(lines.count, 1)
        XCTAssertTrue(lines[0].hasPrefix("usage: convert caffe <prototxt> <weights> [--image-input <name> ...]"))
        for line in lines {
            XCTAssertLessThanOrEqual(line.count, HelpFormatter.width)
        }
        for line in lines.dropFirst() {
            XCTAssertTrue(line.hasPrefix(String(repeating: " ", count: "usage: convert caffe ".count)))
        }
        let joined = lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        XCTAssertTrue(joined.hasSuffix("[--batch <n>] [-v] [-q] -o <path>"), joined)
    }

    func testSmallHelpVerbatim() {
        let expected = """
            usage: convert caffe <prototxt> <weights> [--image-input <name> ...] -o <path>

            Convert a Caffe model to Core ML.

            ARGUMENTS:
              <prototxt>            Deploy definition (.prototxt).
              <weights>             Trained weights (.caffemodel).

            OPTIONS:
              --image-input <name>  Treat this input as an image. (repeatable)
              -o, --output <path>   Where to write the model.
              --version             Show the version.
              -h, --help            Show help information.

            """
        XCTAssertEqual(HelpFormatter.help(for: SmallCaffeCommand.self, path: ["convert", "caffe"]), expected)
    }

    func testHelpListsEveryOptionAndDefault() {
        let help = HelpFormatter.help(for: CaffeCommand.self, path: ["convert", "caffe"])
        XCTAssertTrue(help.hasPrefix("usage: convert caffe <prototxt> <weights>"))
        XCTAssertTrue(help.contains("\n\nConvert a Caffe model to Core ML.\n\nReads a deploy prototxt"))
        for spec in CaffeCommand.options.specs {
            XCTAssertTrue(help.contains(spec.help), spec.name)
            XCTAssertTrue(help.contains(spec.kind == .positional ? "<\(spec.valueName)>" : "--\(spec.name)"), spec.name)
        }
        XCTAssertTrue(help.contains("  --image-scale <scale>  Multiply pixel values by this. (default: 1.0)\n"), help)
        XCTAssertTrue(help.contains("(default: 0.0)"))
        XCTAssertTrue(help.contains("  -v, --verbose "))
        XCTAssertTrue(help.contains("  -o, --output <path> "))
        XCTAssertTrue(help.contains("\nARGUMENTS:\n"))
        XCTAssertTrue(help.contains("\nOPTIONS:\n"))
        XCTAssertFalse(help.contains("SUBCOMMANDS"))
    }

    func testRootHelpListsSubcommands() {
        let help = HelpFormatter.help(for: ConvertCommand.self, path: ["convert"])
        XCTAssertTrue(help.contains("""
            SUBCOMMANDS:
              caffe       Convert a Caffe model to Core ML.
              tensorflow  Convert a frozen TensorFlow graph to Core ML.

              See 'convert help <subcommand>' for detailed help.
            """), help)
        XCTAssertFalse(help.contains("ARGUMENTS"))
    }

    func testLongLabelsAndWrapping() {
        let options = Options {
            Option("a-really-quite-long-option-name", valueName: "value", help: "Short help.")
            Option("n", help: String(repeating: "word ", count: 30))
        }
        let rows = options.specs.map { (HelpFormatter.label(for: $0), HelpFormatter.helpText(for: $0)) }
        let text = HelpFormatter.section("OPTIONS", rows)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines[1], "  --a-really-quite-long-option-name <value>")
        XCTAssertEqual(lines[2].trimmingCharacters(in: .whitespaces), "Short help.")
        XCTAssertTrue(lines.allSatisfy { $0.count <= HelpFormatter.width }, text)
        XCTAssertGreaterThan(lines.count, 4)
    }

    func testWrap() {
        XCTAssertEqual(HelpFormatter.wrap("aa bb cc", width: 5), ["aa bb", "cc"])
        XCTAssertEqual(HelpFormatter.wrap("averyverylongword x", width: 5), ["averyverylongword", "x"])
        XCTAssertEqual(HelpFormatter.wrap("one\ntwo", width: 80), ["one", "two"])
    }

    /// EXAMPLES: `# task`, then the command, wrapped with ` \\` where it is
    /// wider than the help, never between an option and its value.
    func testExamplesWrapAsShellLines() {
        let text = HelpFormatter.examples([
            ("Short", "convert caffe a.prototxt b.caffemodel -o M.mlmodel"),
            ("Long", "convert caffe deploy.prototxt weights.caffemodel --image-input data --is-bgr --red-bias -123.68 "
                 + "--green-bias -116.78 --blue-bias -103.94 -o Model.mlmodel"),
        ])
        XCTAssertEqual(text, """
            EXAMPLES:
              # Short
              convert caffe a.prototxt b.caffemodel -o M.mlmodel
              # Long
              convert caffe deploy.prototxt weights.caffemodel --image-input data --is-bgr \\
                  --red-bias -123.68 --green-bias -116.78 --blue-bias -103.94 \\
                  -o Model.mlmodel
            """)
    }
}

import Foundation
import XCTest

/// The library targets mention options by `OptionName` (`"\(option: .inputShape)"`),
/// never by a program's flag: no string literal in their sources spells one
/// (`--input-shape`). The programs (convert, inspect, predict, generate) and
/// their shared command-line layer (CLI) are where flags are spelled.
final class FlagSpellingTests: XCTestCase {
    static let programTargets: Set<String> = ["convert", "inspect", "predict", "generate", "CLI"]

    func testNoLibraryStringLiteralSpellsAFlag() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let targets = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { !Self.programTargets.contains($0) }
        XCTAssertTrue(targets.contains("Conversion") && targets.contains("ModelFiles"), "\(targets)")
        let flag = try NSRegularExpression(pattern: "--[a-z][a-z-]*")
        var scanned = 0, found: [String] = []
        for target in targets {
            let folder = sources.appendingPathComponent(target)
            guard let files = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                scanned += 1
                for literal in SwiftLiterals.pieces(in: text)
                where flag.firstMatch(in: literal, range: NSRange(literal.startIndex..., in: literal)) != nil {
                    found.append("Sources/\(target)/\(file): \"\(literal)\"")
                }
            }
        }
        XCTAssertGreaterThan(scanned, 100)
        XCTAssertEqual(found, [], "flag spellings in library string literals: name the option with \\(option: ...)")
    }

    /// The scanner finds literals past comments, inside interpolations and in raw strings.
    func testTheScannerReadsLiteralsAsSwiftDoes() {
        let source = #"""
        // "--comment" is not a literal
        /* "--block" neither */
        let a = "x \(f("--nested")) y", b = #"raw "--raw" text"#
        let c = """
            many --lines
            """
        let d = "escaped \" --after-quote"
        """#
        XCTAssertEqual(SwiftLiterals.pieces(in: source),
                       ["x ", "--nested", " y", #"raw "--raw" text"#, "\n    many --lines\n    ", #"escaped \" --after-quote"#])
    }
}

/// The text of the string literals in Swift source, each piece between
/// interpolations apart (escapes left as written); comments skipped.
enum SwiftLiterals {
    static func pieces(in source: String) -> [String] {
        var scanner = Scanner(characters: Array(source))
        scanner.code(untilClosingParenthesis: false)
        return scanner.pieces
    }

    struct Scanner {
        let characters: [Character]
        var index = 0
        var pieces: [String] = []

        init(characters: [Character]) { self.characters = characters }

        func at(_ offset: Int) -> Character? { index + offset < characters.count ? characters[index + offset] : nil }

        func starts(with text: String) -> Bool {
            for (offset, character) in text.enumerated() where at(offset) != character { return false }
            return true
        }

        /// Code up to its end, or to the `)` closing an interpolation.
        mutating func code(untilClosingParenthesis: Bool) {
            var depth = 0
            while let character = at(0) {
                if starts(with: "//") {
                    while let next = at(0), next != "\n" { index += 1 }
                } else if starts(with: "/*") {
                    index += 2
                    while at(0) != nil, !starts(with: "*/") { index += 1 }
                    index += 2
                } else if character == "#" || character == "\"" {
                    var hashes = 0
                    while at(hashes) == "#" { hashes += 1 }
                    guard at(hashes) == "\"" else { index += max(hashes, 1); continue }
                    index += hashes
                    string(hashes: hashes)
                } else if character == "(" {
                    depth += 1
                    index += 1
                } else if character == ")" {
                    index += 1
                    if depth == 0, untilClosingParenthesis { return }
                    depth -= 1
                } else {
                    index += 1
                }
            }
        }

        /// A literal from its opening quote (after any #), through its closing one.
        mutating func string(hashes: Int) {
            let marks = String(repeating: "#", count: hashes)
            let multiline = starts(with: "\"\"\"")
            let closing = (multiline ? "\"\"\"" : "\"") + marks
            index += multiline ? 3 : 1
            var piece = ""
            while let character = at(0) {
                if starts(with: closing) {
                    index += closing.count
                    break
                }
                if character == "\\", starts(with: "\\" + marks) {
                    index += 1 + hashes
                    if at(0) == "(" {
                        if !piece.isEmpty { pieces.append(piece) }
                        piece = ""
                        index += 1
                        code(untilClosingParenthesis: true)
                        continue
                    }
                    piece += "\\" + marks + (at(0).map { String($0) } ?? "")
                    index += 1
                    continue
                }
                piece.append(character)
                index += 1
            }
            if !piece.isEmpty { pieces.append(piece) }
        }
    }
}

/// Lines of source with their indentation, written by several functions
/// of one generator.
final class SourceText {
    private(set) var text = ""
    private var depth = 0

    func line(_ line: String = "") {
        text += line.isEmpty ? "\n" : String(repeating: "    ", count: depth) + line + "\n"
    }

    func lines(_ lines: [String]) {
        for line in lines { self.line(line) }
    }

    /// `opener`, then lines one level in until `close`.
    func open(_ opener: String) {
        line(opener)
        depth += 1
    }

    func close(_ closer: String = "}") {
        depth -= 1
        line(closer)
    }

    /// `opener`, the body one level in, then `closer`.
    func block(_ opener: String, closer: String = "}", _ body: (SourceText) -> Void) {
        line(opener)
        depth += 1
        body(self)
        depth -= 1
        line(closer)
    }

    /// `///` comment lines for `text`.
    func documentation(_ text: String) {
        lines(Identifiers.commentLines(text).map { $0.isEmpty ? "///" : "/// " + $0 })
    }
}

/// One generated file: `write()` fills `source` from the generator.
protocol SourceWriter {
    var generator: ClassGenerator { get }
    var source: SourceText { get }
    init(generator: ClassGenerator)
    func write()
}

extension SourceWriter {
    /// The file's text for `generator`.
    static func text(_ generator: ClassGenerator) -> String {
        let writer = Self(generator: generator)
        writer.write()
        return writer.source.text
    }

    var name: String { generator.className }
    var inputs: [GeneratedFeature] { generator.inputs }
    var outputs: [GeneratedFeature] { generator.outputs }
}

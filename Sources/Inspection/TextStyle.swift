/// ANSI styling for terminal output; plain text when color is off (a pipe,
/// `NO_COLOR`, `TERM=dumb`: see `CLI.Terminal.useColor(for:)`).
public struct TextStyle: Equatable, Sendable {
    public var color: Bool

    public init(color: Bool) {
        self.color = color
    }

    public static let plain = TextStyle(color: false)

    /// Field labels and table headings.
    public func heading(_ text: String) -> String { wrap(text, "1") }
    /// Layer types.
    public func type(_ text: String) -> String { wrap(text, "36") }
    /// Counts that signal trouble (NaN, Inf).
    public func warning(_ text: String) -> String { wrap(text, "1;31") }
    /// Secondary text (hidden values, placeholders).
    public func dim(_ text: String) -> String { wrap(text, "2") }

    private func wrap(_ text: String, _ code: String) -> String {
        color && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

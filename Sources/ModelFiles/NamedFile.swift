/// `name=path`, an input's name and a file for it (predict's `--input`,
/// convert's `--probe`).
public struct NamedFile: Sendable {
    public var name: String
    public var path: String

    /// Nil unless `text` holds a name, `=` and a path, neither empty.
    public init?(parsing text: String) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex, text.index(after: equals) != text.endIndex else { return nil }
        name = String(text[..<equals])
        path = String(text[text.index(after: equals)...])
    }
}

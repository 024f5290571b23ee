import Naming

/// A JSON value with object members in a fixed order, so that `--json`
/// output is stable and diffable. Numbers keep their text: a Float prints
/// as its shortest round-trip form (`-114.89585`, not `-114.89584350585938`).
public indirect enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSON])
    case object([Member])

    public struct Member: Equatable, Sendable {
        public var key: String
        public var value: JSON

        public init(_ key: String, _ value: JSON) {
            self.key = key
            self.value = value
        }
    }

    public static func int(_ value: Int) -> JSON { .number(String(value)) }

    /// A finite Float as its shortest text; NaN and infinities are null (JSON has no such numbers).
    public static func float(_ value: Float) -> JSON { value.isFinite ? .number(value.description) : .null }

    public static func double(_ value: Double) -> JSON { value.isFinite ? .number(value.description) : .null }

    public static func ints(_ values: [Int]) -> JSON { .array(values.map(JSON.int)) }

    public static func strings(_ values: [String]) -> JSON { .array(values.map(JSON.string)) }

    /// Builds an object from key/value pairs, dropping nil values.
    public static func object(_ pairs: KeyValuePairs<String, JSON?>) -> JSON {
        .object(pairs.compactMap { key, value in value.map { Member(key, $0) } })
    }

    /// The member `key` of an object.
    public subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members.first { $0.key == key }?.value }
        return nil
    }

    /// Pretty-printed text, two spaces per level; an array or object whose
    /// one-line form is short (`[8, 3, 7, 7]`, `{"type": "lrn", "count": 2}`)
    /// stays on one line.
    public func rendered() -> String {
        var output = ""
        write(to: &output, indent: "", isRoot: true)
        return output + "\n"
    }

    /// Longest one-line form of a nested array or object.
    static let inlineWidth = 80

    /// The value on one line.
    public var compact: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .number(let text): text
        case .string(let text): JSON.quoted(text)
        case .array(let items): "[" + items.map(\.compact).joined(separator: ", ") + "]"
        case .object(let members): "{" + members.map { JSON.quoted($0.key) + ": " + $0.value.compact }.joined(separator: ", ") + "}"
        }
    }

    private func write(to output: inout String, indent: String, isRoot: Bool = false) {
        // An array is an object without keys: one way to lay out both.
        let entries: [(key: String?, value: JSON)]
        let brackets: (open: String, close: String)
        switch self {
        case .array(let items) where !items.isEmpty:
            (entries, brackets) = (items.map { (nil, $0) }, ("[", "]"))
        case .object(let members) where !members.isEmpty:
            (entries, brackets) = (members.map { ($0.key, $0.value) }, ("{", "}"))
        default:
            output += compact
            return
        }
        if !isRoot, case let line = compact, line.count <= JSON.inlineWidth {
            output += line
            return
        }
        let inner = indent + "  "
        output += brackets.open + "\n"
        for (index, entry) in entries.enumerated() {
            output += inner + (entry.key.map { JSON.quoted($0) + ": " } ?? "")
            entry.value.write(to: &output, indent: inner)
            output += index < entries.count - 1 ? ",\n" : "\n"
        }
        output += indent + brackets.close
    }

    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            // A path's byte that is not UTF-8 (`PathBytes`): `\xff` as text,
            // since a JSON string holds Unicode only.
            case _ where PathBytes.rawByte(scalar) != nil:
                result += "\\\\x" + String(PathBytes.rawByte(scalar)!, radix: 16)
            // C0 controls must be escaped; the other characters a terminal
            // acts on (DEL, C1 controls, bidirectional overrides) may be raw
            // in JSON, but are escaped too.
            case _ where TextEscaping.needsEscape(scalar):
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

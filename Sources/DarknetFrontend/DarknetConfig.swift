import FileIO
import ModelFormat

public typealias DarknetError = MessageError<DarknetErrorKind>
public enum DarknetErrorKind {}

/// A Darknet network definition (`.cfg`): sections in brackets (`[net]`,
/// `[convolutional]`, `[maxpool]`, `[route]`, `[region]`, ...), each a list
/// of `key=value` lines; `#` and `;` start comments. The first section
/// describes the input; every other one is a layer, in order.
public struct DarknetConfig {
    struct Section {
        var type: String
        /// Each key's first value: Darknet's `option_find` walks the list
        /// from its head (OpenCV's reader keeps the last; a key repeated at
        /// another value is refused, `DarknetLedgers`).
        var options: [String: String]
        /// Every `key=value` line, in order, repeats included.
        var entries: [(key: String, value: String)] = []
        /// 1-based line of the `[type]` header, for `file:line` errors.
        var line: Int
        var path: String

        func int(_ key: String, _ fallback: Int? = nil) throws -> Int {
            guard let text = options[key] else {
                if let fallback { return fallback }
                throw error("has no \(key)")
            }
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)), (0...ShapeInference.maximumSize).contains(value) else {
                throw error("\(key)=\(text) is not a whole number from 0 to \(ShapeInference.maximumSize)")
            }
            return value
        }

        func string(_ key: String, _ fallback: String) -> String { options[key]?.trimmingCharacters(in: .whitespaces) ?? fallback }

        /// Comma-separated numbers (`anchors`, `layers`).
        func list<Value: LosslessStringConvertible>(_ key: String) throws -> [Value] {
            guard let text = options[key] else { return [] }
            return try text.split(separator: ",").map { part in
                guard let value = Value(part.trimmingCharacters(in: .whitespaces)) else { throw error("\(key)=\(text) is not a list of numbers") }
                return value
            }
        }

        func error(_ message: String) -> DarknetError {
            DarknetError("\(path):\(line): [\(type)] \(message)")
        }
    }

    var sections: [Section]

    /// The longest file read: a network definition is a few kilobytes.
    static let maximumBytes = 16 << 20

    init(path: String) throws {
        let file = try MappedFile(path: path)
        guard file.bytes.count <= Self.maximumBytes else {
            throw DarknetError("\(path): \(file.bytes.count) bytes is too large for a Darknet .cfg (at most \(Self.maximumBytes))")
        }
        try self.init(text: String(decoding: file.bytes, as: UTF8.self), path: path)
    }

    /// A line without its comment (from `#` or `;`) and surrounding blanks.
    static func content(_ line: Substring) -> String {
        line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
            .split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0].trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether `bytes` read as a Darknet definition: the first line with
    /// content is `[net]` or `[network]` (content detection, by the rules
    /// the reader applies).
    public static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for line in lines(String(decoding: bytes.prefix(65536), as: UTF8.self)) {
            let text = content(line)
            if !text.isEmpty { return ["[net]", "[network]"].contains(text.lowercased()) }
        }
        return false
    }

    /// The lines of `text`, LF or CRLF ended (Swift reads "\r\n" as one
    /// Character, not a "\n"); OpenCV's reader and AlexeyAB's Darknet drop
    /// the CR, pjreddie's keeps it and then fails on "[net]\r".
    static func lines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    }

    /// A line as an error quotes it: at most 80 characters (a binary file
    /// or a megabyte line is not repeated whole).
    static func excerpt(_ line: some StringProtocol) -> String {
        line.count <= 80 ? String(line) : String(line.prefix(77)) + "..."
    }

    init(text: String, path: String) throws {
        var sections: [Section] = []
        for (index, raw) in Self.lines(text).enumerated() {
            // Carriage returns alone (classic Mac OS): Darknet and OpenCV read the whole file as one line too.
            if raw.contains("\r") {
                throw DarknetError("\(path):\(index + 1): lines end in carriage returns alone, which Darknet does not read as line ends; "
                                   + "save the file with LF or CRLF line endings")
            }
            let line = Self.content(raw)
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else { throw DarknetError("\(path):\(index + 1): '\(Self.excerpt(line))' is not a [section] header") }
                sections.append(Section(type: String(line.dropFirst().dropLast()).lowercased(), options: [:], line: index + 1, path: path))
                continue
            }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty else { throw DarknetError("\(path):\(index + 1): '\(Self.excerpt(line))' is not key=value") }
            guard !sections.isEmpty else { throw DarknetError("\(path):\(index + 1): '\(Self.excerpt(line))' comes before any [section]") }
            // Darknet takes '#' and ';' as comments only at a line's start: after a value they are part of it
            // (atoi and atof stop there, so numbers read the same; a name does not: "leaky#x" is no activation
            // Darknet knows, and it runs ReLU instead).
            let rest = raw.drop(while: { $0 == " " || $0 == "\t" })
            if parts[0] == "activation", rest.first != "#", rest.first != ";", raw.contains(where: { $0 == "#" || $0 == ";" }) {
                throw DarknetError("\(path):\(index + 1): '\(Self.excerpt(raw.trimmingCharacters(in: .whitespacesAndNewlines)))': a comment after the activation "
                                   + "is part of its name to Darknet (which then runs ReLU); put the comment on a line of its own")
            }
            sections[sections.count - 1].entries.append((parts[0], parts[1]))
            if sections[sections.count - 1].options[parts[0]] == nil { sections[sections.count - 1].options[parts[0]] = parts[1] }
        }
        guard let first = sections.first, first.type == "net" || first.type == "network" else {
            throw DarknetError("\(path): a Darknet .cfg starts with a [net] section")
        }
        self.sections = sections
    }
}

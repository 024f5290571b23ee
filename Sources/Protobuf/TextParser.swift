import CProtobufC

/// A message parsed from text, before it becomes a C struct: its fields in
/// order of appearance, with the byte offset of each for errors.
final class TextMessage {
    let descriptor: UnsafePointer<ProtobufCMessageDescriptor>
    let offset: Int
    var fields: [(field: UnsafePointer<ProtobufCFieldDescriptor>, value: TextValue, offset: Int)] = []

    init(descriptor: UnsafePointer<ProtobufCMessageDescriptor>, offset: Int) {
        self.descriptor = descriptor
        self.offset = offset
    }
}

enum TextValue {
    /// Raw wire bits of a scalar, as the binary decoder would store them.
    case scalar(UInt64)
    case bytes([UInt8])
    case message(TextMessage)
}

/// Parses protobuf text format against a message descriptor:
/// `name: value`, `name { ... }` or `name: { ... }` (also `< ... >`),
/// `name: [v1, v2]` for repeated fields, optional `,` / `;` separators,
/// `#` comments. Unknown fields are skipped whatever their value, since
/// deploy files carry many fields a converter does not need.
struct TextParser {
    var scanner: TextScanner
    let maxDepth: Int

    mutating func message(_ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, offset: Int, depth: Int,
                          closing: UInt8?) throws(DecodeError) -> TextMessage {
        guard depth < maxDepth else { throw scanner.error("messages nested deeper than \(maxDepth) levels") }
        let message = TextMessage(descriptor: descriptor, offset: offset)
        while true {
            let token = try scanner.next()
            switch token {
            case .end:
                if let closing { throw scanner.error("expected '\(Character(UnicodeScalar(closing)))' before the end of the file") }
                return message
            case .symbol(let c) where c == closing:
                return message
            case .symbol(UInt8(ascii: "[")):
                throw scanner.error("extensions and Any fields ([...]) are not supported")
            case .identifier(let name):
                let start = scanner.tokenStart
                let field = protobuf_c_message_descriptor_get_field_by_name(descriptor, name)
                try value(for: field, named: name, into: message, at: start, depth: depth)
                if case .symbol(let s) = try scanner.peek(), s == UInt8(ascii: ",") || s == UInt8(ascii: ";") {
                    _ = try scanner.next()
                }
            default:
                throw scanner.error(closing.map { "expected a field name or '\(Character(UnicodeScalar($0)))'" } ?? "expected a field name")
            }
        }
    }

    /// Reads what follows a field name: `: scalar`, `: [list]`, or a block.
    private mutating func value(for field: UnsafePointer<ProtobufCFieldDescriptor>?, named name: String, into message: TextMessage,
                                at offset: Int, depth: Int) throws(DecodeError) {
        var token = try scanner.next()
        var sawColon = false
        if token == .symbol(UInt8(ascii: ":")) {
            sawColon = true
            token = try scanner.next()
        }
        if case .symbol(let open) = token, open == UInt8(ascii: "{") || open == UInt8(ascii: "<") {
            let closing = open == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: ">")
            try block(for: field, named: name, into: message, at: offset, closing: closing, depth: depth)
            return
        }
        guard sawColon else { throw scanner.error("expected ':' or '{' after '\(name)'") }
        if token == .symbol(UInt8(ascii: "[")) {
            if case .symbol(UInt8(ascii: "]")) = try scanner.peek() {
                _ = try scanner.next()
                return
            }
            repeat {
                let element = try scanner.next()
                if case .symbol(let open) = element, open == UInt8(ascii: "{") || open == UInt8(ascii: "<") {
                    try block(for: field, named: name, into: message, at: offset,
                              closing: open == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: ">"), depth: depth)
                } else {
                    try scalar(element, for: field, named: name, into: message)
                }
                let separator = try scanner.next()
                if separator == .symbol(UInt8(ascii: "]")) { return }
                guard separator == .symbol(UInt8(ascii: ",")) else { throw scanner.error("expected ',' or ']'") }
            } while true
        }
        try scalar(token, for: field, named: name, into: message)
    }

    private mutating func block(for field: UnsafePointer<ProtobufCFieldDescriptor>?, named name: String, into message: TextMessage,
                                at offset: Int, closing: UInt8, depth: Int) throws(DecodeError) {
        guard let field else {
            try skipBlock(closing: closing, depth: depth)
            return
        }
        guard field.pointee.type == PROTOBUF_C_TYPE_MESSAGE else {
            throw scanner.error("'\(name)' is a \(field.pointee.typeName) field, not a message", at: offset)
        }
        let nested = field.pointee.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self)
        let child = try self.message(nested, offset: offset, depth: depth + 1, closing: closing)
        message.fields.append((field, .message(child), offset))
    }

    /// Skips an unknown field's block, keeping track of nesting.
    private mutating func skipBlock(closing: UInt8, depth: Int) throws(DecodeError) {
        var open = [closing]
        while let expected = open.last {
            guard open.count + depth < maxDepth else { throw scanner.error("messages nested deeper than \(maxDepth) levels") }
            switch try scanner.next() {
            case .end: throw scanner.error("expected '\(Character(UnicodeScalar(expected)))' before the end of the file")
            case .symbol(let c) where c == expected: open.removeLast()
            case .symbol(UInt8(ascii: "{")): open.append(UInt8(ascii: "}"))
            case .symbol(UInt8(ascii: "<")): open.append(UInt8(ascii: ">"))
            case .symbol(let c) where c == UInt8(ascii: "}") || c == UInt8(ascii: ">"):
                throw scanner.error("unbalanced '\(Character(UnicodeScalar(c)))'")
            default: break
            }
        }
    }

    private mutating func scalar(_ token: TextScanner.Token, for field: UnsafePointer<ProtobufCFieldDescriptor>?, named name: String,
                                 into message: TextMessage) throws(DecodeError) {
        let offset = scanner.tokenStart
        guard let field else {
            switch token {
            case .identifier, .number, .string: return  // an unknown field's value: skipped
            default: throw scanner.error("expected a value for '\(name)'")
            }
        }
        let value = try TextValues.convert(token, for: field.pointee) { message in scanner.error("\(message) for '\(name)'", at: offset) }
        message.fields.append((field, value, offset))
    }
}

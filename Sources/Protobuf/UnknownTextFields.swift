import CProtobufC

/// The fields a text-format file names that the schema does not know. The
/// text decoder skips them (deploy files carry many fields a converter does
/// not need); a frontend that must not pass over a setting unseen asks for
/// them here and judges each by the message it sits in.
public enum UnknownTextFields {
    public struct Field: Sendable, Equatable {
        /// The full name of the message the field sits in (`caffe.PoolingParameter`).
        public let message: String
        public let name: String
        /// Byte offset of the field's name, for `file:line:column`.
        public let offset: Int
    }

    /// The unknown fields of `bytes`, read as `descriptor`'s message, in
    /// file order; fields nested inside an unknown field are not listed.
    /// - Throws: `DecodeError` for text the decoder refuses too.
    public static func list(descriptor: UnsafePointer<ProtobufCMessageDescriptor>, bytes: UnsafeRawBufferPointer,
                            maxDepth: Int = DecodeOptions().maxDepth) throws(DecodeError) -> [Field] {
        var walker = Walker(scanner: TextScanner(bytes: bytes), maxDepth: maxDepth)
        try walker.message(descriptor, depth: 0, closing: nil)
        return walker.found
    }

    /// TextParser's grammar, keeping names only.
    struct Walker {
        var scanner: TextScanner
        let maxDepth: Int
        var found: [Field] = []

        mutating func message(_ descriptor: UnsafePointer<ProtobufCMessageDescriptor>?, depth: Int, closing: UInt8?) throws(DecodeError) {
            guard depth < maxDepth else { throw scanner.error("messages nested deeper than \(maxDepth) levels") }
            while true {
                switch try scanner.next() {
                case .end:
                    return
                case .symbol(let c) where c == closing:
                    return
                case .identifier(let name):
                    let start = scanner.tokenStart
                    var field: UnsafePointer<ProtobufCFieldDescriptor>?
                    if let descriptor {
                        field = protobuf_c_message_descriptor_get_field_by_name(descriptor, name)
                        if field == nil { found.append(Field(message: String(cString: descriptor.pointee.name), name: name, offset: start)) }
                    }
                    let nested = field.flatMap { $0.pointee.type == PROTOBUF_C_TYPE_MESSAGE
                        ? $0.pointee.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self) : nil }
                    try value(nested, depth: depth)
                    if case .symbol(let s) = try scanner.peek(), s == UInt8(ascii: ",") || s == UInt8(ascii: ";") { _ = try scanner.next() }
                default:
                    throw scanner.error("expected a field name")
                }
            }
        }

        /// What follows a field name: `: scalar`, `: [list]`, or a block.
        mutating func value(_ nested: UnsafePointer<ProtobufCMessageDescriptor>?, depth: Int) throws(DecodeError) {
            var token = try scanner.next()
            if token == .symbol(UInt8(ascii: ":")) { token = try scanner.next() }
            if let closing = Self.closing(token) {
                try message(nested, depth: depth + 1, closing: closing)
                return
            }
            guard token == .symbol(UInt8(ascii: "[")) else { return }  // a scalar
            if case .symbol(UInt8(ascii: "]")) = try scanner.peek() {
                _ = try scanner.next()
                return
            }
            while true {
                let element = try scanner.next()
                if let closing = Self.closing(element) { try message(nested, depth: depth + 1, closing: closing) }
                let separator = try scanner.next()
                if separator == .symbol(UInt8(ascii: "]")) { return }
                guard separator == .symbol(UInt8(ascii: ",")) else { throw scanner.error("expected ',' or ']'") }
            }
        }

        static func closing(_ token: TextScanner.Token) -> UInt8? {
            switch token {
            case .symbol(UInt8(ascii: "{")): UInt8(ascii: "}")
            case .symbol(UInt8(ascii: "<")): UInt8(ascii: ">")
            default: nil
            }
        }
    }
}

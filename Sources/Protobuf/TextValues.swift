import CProtobufC

/// Converts text-format scalar tokens to the wire bits of a field's type,
/// with range checks: integers in decimal, hex or octal, floats with
/// exponents and `inf` / `nan` (either sign), booleans, enum names.
enum TextValues {
    static func convert(_ token: TextScanner.Token, for field: ProtobufCFieldDescriptor,
                        fail: (String) -> DecodeError) throws(DecodeError) -> TextValue {
        switch field.type {
        case PROTOBUF_C_TYPE_STRING, PROTOBUF_C_TYPE_BYTES:
            guard case .string(let bytes) = token else { throw fail("expected a quoted string") }
            return .bytes(bytes)
        case PROTOBUF_C_TYPE_MESSAGE:
            throw fail("expected '{'")
        case PROTOBUF_C_TYPE_BOOL:
            switch token {
            case .identifier("true"), .identifier("True"), .identifier("t"), .number("1"): return .scalar(1)
            case .identifier("false"), .identifier("False"), .identifier("f"), .number("0"): return .scalar(0)
            default: throw fail("expected true or false")
            }
        case PROTOBUF_C_TYPE_ENUM:
            let enumeration = field.descriptor.assumingMemoryBound(to: ProtobufCEnumDescriptor.self)
            switch token {
            case .identifier(let name):
                guard let value = protobuf_c_enum_descriptor_get_value_by_name(enumeration, name) else {
                    let names = (0..<Int(enumeration.pointee.n_values)).map { String(cString: enumeration.pointee.values[$0].name) }
                    throw fail("unknown value \(name) (expected one of \(names.joined(separator: ", ")))")
                }
                return .scalar(UInt64(bitPattern: Int64(value.pointee.value)))
            case .number(let text):
                guard let value = integer(text), let small = Int32(exactly: value) else { throw fail("bad enum number \(text)") }
                return .scalar(UInt64(bitPattern: Int64(small)))
            default:
                throw fail("expected an enum value")
            }
        case PROTOBUF_C_TYPE_FLOAT, PROTOBUF_C_TYPE_DOUBLE:
            let value: Double
            switch token {
            case .number(let text): guard let parsed = floating(text) else { throw fail("bad number \(text)") }; value = parsed
            case .identifier(let text): guard let parsed = floating(text) else { throw fail("expected a number, got \(text)") }; value = parsed
            default: throw fail("expected a number")
            }
            return .scalar(field.type == PROTOBUF_C_TYPE_FLOAT ? UInt64(Float(value).bitPattern) : value.bitPattern)
        default:
            guard case .number(let text) = token, let value = integer(text) else { throw fail("expected an integer") }
            return .scalar(try integerBits(value, for: field, text: text, fail: fail))
        }
    }

    /// Range-checks an integer for the field's type and encodes it as the
    /// binary decoder's stored bits (zigzag for sint types).
    private static func integerBits(_ value: Int128, for field: ProtobufCFieldDescriptor, text: String,
                                    fail: (String) -> DecodeError) throws(DecodeError) -> UInt64 {
        let (low, high): (Int128, Int128)
        switch field.type {
        case PROTOBUF_C_TYPE_INT32, PROTOBUF_C_TYPE_SINT32, PROTOBUF_C_TYPE_SFIXED32: (low, high) = (Int128(Int32.min), Int128(Int32.max))
        case PROTOBUF_C_TYPE_UINT32, PROTOBUF_C_TYPE_FIXED32: (low, high) = (0, Int128(UInt32.max))
        case PROTOBUF_C_TYPE_UINT64, PROTOBUF_C_TYPE_FIXED64: (low, high) = (0, Int128(UInt64.max))
        default: (low, high) = (Int128(Int64.min), Int128(Int64.max))
        }
        guard value >= low, value <= high else { throw fail("\(text) is out of range for \(field.typeName)") }
        switch field.type {
        case PROTOBUF_C_TYPE_SINT32, PROTOBUF_C_TYPE_SINT64:
            let signed = Int64(value)
            return UInt64(bitPattern: (signed << 1) ^ (signed >> 63))
        case PROTOBUF_C_TYPE_UINT64, PROTOBUF_C_TYPE_FIXED64:
            return UInt64(value)
        default:
            return UInt64(bitPattern: Int64(value))
        }
    }

    static func integer(_ text: String) -> Int128? {
        var digits = Substring(text)
        var negative = false
        if digits.first == "-" || digits.first == "+" {
            negative = digits.first == "-"
            digits = digits.dropFirst()
        }
        let magnitude: UInt64?
        if digits.lowercased().hasPrefix("0x") {
            magnitude = UInt64(digits.dropFirst(2), radix: 16)
        } else if digits.count > 1 && digits.first == "0" {
            magnitude = UInt64(digits.dropFirst(), radix: 8)
        } else {
            magnitude = UInt64(digits, radix: 10)
        }
        guard let magnitude else { return nil }
        return negative ? -Int128(magnitude) : Int128(magnitude)
    }

    static func floating(_ text: String) -> Double? {
        var body = Substring(text.lowercased())
        var sign = 1.0
        if body.first == "-" || body.first == "+" {
            sign = body.first == "-" ? -1 : 1
            body = body.dropFirst()
        }
        if body == "inf" || body == "infinity" { return sign * .infinity }
        if body == "nan" { return .nan }
        if body.hasSuffix("f") && !body.hasPrefix("0x") { body = body.dropLast() }
        if let value = Double(body), body.first != "+" && body.first != "-" { return sign * value }
        if let value = integer(String(body)) { return sign * Double(value) }
        return nil
    }
}

import CProtobufC

/// Protobuf wire types (the low three bits of a field tag).
enum WireType: UInt8 {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5
}

/// A bounds-checked reader of protobuf wire primitives over a byte range.
/// Positions are offsets from the start of the whole input, so every error
/// can say where it happened.
struct WireCursor {
    let base: UnsafeRawPointer
    var position: Int
    let end: Int

    var isAtEnd: Bool { position >= end }


    func error(_ message: String, at offset: Int? = nil) -> DecodeError {
        DecodeError(message, offset: offset ?? position)
    }

    mutating func varint() throws(DecodeError) -> UInt64 {
        let start = position
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw error("truncated varint", at: start) }
            let byte = base.load(fromByteOffset: position, as: UInt8.self)
            position += 1
            // The tenth byte may only hold the 64th bit.
            if shift == 63 && byte > 1 { throw error("varint longer than 64 bits", at: start) }
            result |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// Reads a field tag: the field number and the wire type.
    mutating func tag() throws(DecodeError) -> (number: UInt32, wireType: WireType) {
        let start = position
        let raw = try varint()
        let number = raw >> 3
        guard number > 0, number <= 0x1FFF_FFFF else {
            throw error("invalid field number \(number)", at: start)
        }
        guard let wireType = WireType(rawValue: UInt8(raw & 7)) else {
            throw error("invalid wire type \(raw & 7) for field \(number)", at: start)
        }
        guard wireType != .startGroup && wireType != .endGroup else {
            // Deprecated since proto2 and absent from every schema here.
            throw error("groups are not supported (field \(number))", at: start)
        }
        return (UInt32(number), wireType)
    }

    mutating func fixed32() throws(DecodeError) -> UInt32 {
        guard end - position >= 4 else { throw error("truncated 4-byte value") }
        defer { position += 4 }
        return UInt32(littleEndian: base.loadUnaligned(fromByteOffset: position, as: UInt32.self))
    }

    mutating func fixed64() throws(DecodeError) -> UInt64 {
        guard end - position >= 8 else { throw error("truncated 8-byte value") }
        defer { position += 8 }
        return UInt64(littleEndian: base.loadUnaligned(fromByteOffset: position, as: UInt64.self))
    }

    /// Reads a length prefix and returns the payload's range, checking the
    /// length against the bytes that remain before anything trusts it.
    mutating func lengthDelimited() throws(DecodeError) -> Range<Int> {
        let start = position
        let length = try varint()
        guard length <= UInt64(end - position) else {
            throw error("length \(length) runs past the end of its message (\(end - position) bytes remain)", at: start)
        }
        let payload = position..<(position + Int(length))
        position = payload.upperBound
        return payload
    }

    /// Skips one field's value of the given wire type.
    mutating func skip(_ wireType: WireType, number: UInt32) throws(DecodeError) {
        switch wireType {
        case .varint: _ = try varint()
        case .fixed64: _ = try fixed64()
        case .fixed32: _ = try fixed32()
        case .lengthDelimited: _ = try lengthDelimited()
        case .startGroup, .endGroup:
            throw error("groups are not supported (field \(number))")  // tag() already refuses them
        }
    }
}

extension WireCursor {
    /// The next field of the message that `descriptor` knows, with its
    /// number, wire type and the offset of its tag, skipping unknown ones;
    /// nil at the end.
    mutating func nextKnownField(of descriptor: UnsafePointer<ProtobufCMessageDescriptor>) throws(DecodeError)
        -> (field: UnsafePointer<ProtobufCFieldDescriptor>, number: UInt32, wireType: WireType, tagOffset: Int)? {
        while !isAtEnd {
            let tagOffset = position
            let (number, wireType) = try tag()
            if let field = protobuf_c_message_descriptor_get_field(descriptor, number) {
                return (field, number, wireType, tagOffset)
            }
            try skip(wireType, number: number)
        }
        return nil
    }
}

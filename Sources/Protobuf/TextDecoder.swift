import CProtobufC

/// Decodes protobuf text format (a deploy `.prototxt`, a `.pbtxt`) into the
/// same protobuf-c structs the binary decoder fills, driven by the same
/// descriptors, so a frontend reads text and binary files through one code
/// path. Errors carry the byte offset of the offending token; use
/// `lineAndColumn(of:in:)` to turn it into `file:line:column`.
public enum TextDecoder {
    /// Decodes `bytes` as text for the message `descriptor` describes.
    /// - Parameter owner: keeps `bytes` alive (the text is copied where kept,
    ///   so this only matters while decoding).
    /// - Throws: `DecodeError` with the byte offset of the problem.
    public static func decode<Message>(
        _ type: Message.Type, descriptor: UnsafePointer<ProtobufCMessageDescriptor>,
        bytes: UnsafeRawBufferPointer, owner: AnyObject?, options: DecodeOptions = DecodeOptions()
    ) throws(DecodeError) -> Decoded<Message> {
        var parser = TextParser(scanner: TextScanner(bytes: bytes), maxDepth: options.maxDepth)
        let tree = try parser.message(descriptor, offset: 0, depth: 0, closing: nil)
        let arena = Arena(budget: options.memoryBudget ?? (64 << 20) + 16 * bytes.count)
        if let owner { arena.retain(owner) }
        let offsets = MessageOffsets()
        let root = try TextMaterializer(arena: arena, offsets: offsets).materialize(tree)
        return Decoded(arena: arena, root: root.bindMemory(to: Message.self, capacity: 1), offsets: offsets)
    }
}

/// Turns parsed text messages into protobuf-c structs in an arena.
struct TextMaterializer {
    let arena: Arena
    let offsets: MessageOffsets

    func allocate(_ size: Int, at offset: Int) throws(DecodeError) -> UnsafeMutableRawPointer {
        try arena.allocate(size, at: offset)
    }

    func materialize(_ text: TextMessage) throws(DecodeError) -> UnsafeMutableRawPointer {
        let descriptor = text.descriptor
        let message = try allocate(descriptor.pointee.sizeof_message, at: text.offset)
        descriptor.pointee.message_init(message.assumingMemoryBound(to: ProtobufCMessage.self))
        offsets.record(UnsafeRawPointer(message), at: text.offset)

        // Repeated fields: count, allocate, then fill in order of appearance.
        var counts: [UnsafePointer<ProtobufCFieldDescriptor>: Int] = [:]
        for entry in text.fields where entry.field.pointee.isRepeated { counts[entry.field, default: 0] += 1 }
        var filled: [UnsafePointer<ProtobufCFieldDescriptor>: Int] = [:]
        for (field, count) in counts {
            let array = try allocate(count * field.pointee.storageSize, at: text.offset)
            (message + Int(field.pointee.quantifier_offset)).storeBytes(of: count, as: Int.self)
            (message + Int(field.pointee.offset)).storeBytes(of: array, as: UnsafeMutableRawPointer.self)
        }
        for (field, value, offset) in text.fields {
            let f = field.pointee
            if f.isRepeated {
                let array = (message + Int(f.offset)).load(as: UnsafeMutableRawPointer.self)
                let index = filled[field, default: 0]
                filled[field] = index + 1
                try store(value, as: f, at: array + index * f.storageSize, offset: offset)
            } else {
                try store(value, as: f, at: message + Int(f.offset), offset: offset)
                markPresent(f, in: message)
            }
        }
        return message
    }

    private func store(_ value: TextValue, as field: ProtobufCFieldDescriptor, at address: UnsafeMutableRawPointer,
                       offset: Int) throws(DecodeError) {
        switch value {
        case .scalar(let bits):
            storeScalar(bits, as: field, to: address)
        case .bytes(let bytes):
            let copy = try allocate(bytes.count + 1, at: offset)
            bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(copy), byteCount: bytes.count) }
            if field.type == PROTOBUF_C_TYPE_STRING {
                address.storeBytes(of: copy, as: UnsafeMutableRawPointer.self)
            } else {
                address.storeBytes(of: ProtobufCBinaryData(len: bytes.count, data: copy.assumingMemoryBound(to: UInt8.self)),
                                   as: ProtobufCBinaryData.self)
            }
        case .message(let child):
            address.storeBytes(of: try materialize(child), as: UnsafeMutableRawPointer.self)
        }
    }
}

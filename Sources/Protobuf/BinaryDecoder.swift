import CProtobufC
import Threads

/// How much of a message to decode.
public struct DecodeOptions: Sendable {
    /// Leave the payloads of packed fixed-width fields (float weights) and of
    /// bytes fields unread: their counts are set but their pointers are nil.
    /// For summaries that must not touch the weights of a large file.
    public var structureOnly = false
    /// Fixed-width fields read all the same in a structure-only decode, by
    /// their proto names: small attributes that shapes depend on (an
    /// upsample's fractionalScalingFactor), not weights.
    public var readInStructure: Set<String> = []
    /// Deepest message nesting accepted.
    public var maxDepth = 64
    /// Most bytes the decoded structs may take; nil means 64 MB plus four
    /// times the input size.
    public var memoryBudget: Int? = nil

    public init(structureOnly: Bool = false, readInStructure: Set<String> = []) {
        self.structureOnly = structureOnly
        self.readInStructure = readInStructure
    }
}

/// Decodes protobuf binary data into protobuf-c's generated C structs,
/// driven by their descriptors, without protobuf-c's copying unpacker.
///
/// Packed float and double arrays that arrive in one aligned chunk are not
/// copied: the struct points straight into the input (a memory-mapped file),
/// so a 500 MB model costs no second 500 MB. Unaligned or split payloads are
/// copied into the arena. Strings are copied (C wants them NUL-terminated).
/// Every length is checked against the bytes that remain before it is used,
/// nesting depth is bounded, and the total allocation is capped, so a
/// malformed input is an error with its byte offset, never a crash.
public enum BinaryDecoder {
    /// Decodes `bytes` as the message `descriptor` describes.
    /// - Parameters:
    ///   - owner: the object that keeps `bytes` alive (e.g. a `MappedFile`);
    ///     the result retains it.
    /// - Throws: `DecodeError` with the byte offset and field path.
    public static func decode<Message>(
        _ type: Message.Type, descriptor: UnsafePointer<ProtobufCMessageDescriptor>,
        bytes: UnsafeRawBufferPointer, owner: AnyObject?, options: DecodeOptions = DecodeOptions()
    ) throws(DecodeError) -> Decoded<Message> {
        let budget = options.memoryBudget ?? (64 << 20) + 4 * bytes.count
        let arena = Arena(budget: budget)
        let offsets = MessageOffsets()
        if let owner { arena.retain(owner) }
        // An empty buffer still needs a valid base pointer for the cursor.
        var empty: UInt8 = 0
        let root: UnsafeMutableRawPointer = try withUnsafeMutablePointer(to: &empty) { (placeholder) throws(DecodeError) in
            let base = bytes.baseAddress ?? UnsafeRawPointer(placeholder)
            let decoding = BinaryDecoding(base: base, arena: arena, options: options, offsets: offsets, tallies: TallyStack())
            return try decoding.message(descriptor, in: 0..<bytes.count, depth: 0)
        }
        return Decoded(arena: arena, root: root.bindMemory(to: Message.self, capacity: 1), offsets: offsets)
    }
}

/// One decoding run: the input, the arena, the options.
struct BinaryDecoding {
    let base: UnsafeRawPointer
    let arena: Arena
    let options: DecodeOptions
    let offsets: MessageOffsets
    /// Scratch for the tallies of the messages being decoded, one level of
    /// nesting each.
    let tallyStack: TallyStack

    init(base: UnsafeRawPointer, arena: Arena, options: DecodeOptions, offsets: MessageOffsets, tallies: TallyStack) {
        self.base = base
        self.arena = arena
        self.options = options
        self.offsets = offsets
        self.tallyStack = tallies
    }

    /// Per repeated field, what the first pass over a message found.
    struct RepeatedTally {
        var count = 0
        var packedChunks = 0
        var unpackedValues = 0
        var firstPayload = 0
        var firstPayloadRange = 0..<0
        var filled = 0
        var inPlace = false
    }

    func allocate(_ size: Int, at offset: Int) throws(DecodeError) -> UnsafeMutableRawPointer {
        try arena.allocate(size, at: offset, overBudget: "; the input is corrupt or hostile")
    }

    func message(_ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, in range: Range<Int>,
                 depth: Int) throws(DecodeError) -> UnsafeMutableRawPointer {
        guard depth < options.maxDepth else {
            throw DecodeError("messages nested deeper than \(options.maxDepth) levels", offset: range.lowerBound)
        }
        let message = try allocate(descriptor.pointee.sizeof_message, at: range.lowerBound)
        descriptor.pointee.message_init(message.assumingMemoryBound(to: ProtobufCMessage.self))
        offsets.record(UnsafeRawPointer(message), at: range.lowerBound)
        // Empty messages (ActivationReLU, ...) have no field table at all.
        guard let fields = descriptor.pointee.fields else {
            try skipAll(in: range)
            return message
        }
        let tallies = tallyStack.tallies(count: Int(descriptor.pointee.n_fields), depth: depth)
        var parts: [Int: [Range<Int>]] = [:]  // singular messages that arrived in several parts

        // Pass 1: validate tags and wire types, count repeated values.
        var cursor = WireCursor(base: base, position: range.lowerBound, end: range.upperBound)
        while let (field, number, wireType, tagOffset) = try cursor.nextKnownField(of: descriptor) {
            let index = fields.distance(to: field)
            do throws(DecodeError) {
                try checkWireType(wireType, for: field.pointee, at: tagOffset)
                if field.pointee.isRepeated {
                    try tally(&tallies[index], field.pointee, wireType, &cursor)
                } else if field.pointee.type == PROTOBUF_C_TYPE_MESSAGE {
                    // A singular message may arrive in parts, which merge.
                    let payload = try cursor.lengthDelimited()
                    if tallies[index].count > 0 { parts[index, default: [tallies[index].firstPayloadRange]].append(payload) }
                    tallies[index].count += 1
                    tallies[index].firstPayloadRange = payload
                } else {
                    try cursor.skip(wireType, number: number)
                }
            } catch {
                throw error.inField(field.pointee.fieldName)
            }
        }

        try allocateRepeated(tallies, fields, message, at: range.lowerBound)

        // Pass 2: store the values.
        cursor = WireCursor(base: base, position: range.lowerBound, end: range.upperBound)
        while let (field, _, wireType, _) = try cursor.nextKnownField(of: descriptor) {
            let index = fields.distance(to: field)
            do throws(DecodeError) {
                if field.pointee.isRepeated {
                    try storeRepeated(&tallies[index], field.pointee, wireType, &cursor, message, depth: depth)
                } else if let ranges = parts[index] {
                    _ = try cursor.lengthDelimited()
                    if tallies[index].filled == 0 {
                        try storeMerged(field.pointee, ranges, message, depth: depth)
                        tallies[index].filled = 1
                    }
                } else {
                    try storeSingular(field.pointee, &cursor, message, depth: depth)
                }
            } catch {
                let name = field.pointee.fieldName
                throw error.inField(field.pointee.isRepeated ? "\(name)[\(tallies[index].filled)]" : name)
            }
        }
        return message
    }

    /// Decodes a singular message field that arrived in several parts as the
    /// concatenation of the parts, which is what protobuf's merge means.
    /// The parts are copied together into the arena; offsets in errors
    /// inside it count from the start of the concatenation.
    private func storeMerged(_ field: ProtobufCFieldDescriptor, _ ranges: [Range<Int>],
                             _ message: UnsafeMutableRawPointer, depth: Int) throws(DecodeError) {
        let total = ranges.reduce(0) { $0 + $1.count }
        let joined = try allocate(total, at: ranges[0].lowerBound)
        var position = 0
        for range in ranges {
            (joined + position).copyMemory(from: base + range.lowerBound, byteCount: range.count)
            position += range.count
        }
        let merged = BinaryDecoding(base: UnsafeRawPointer(joined), arena: arena, options: options, offsets: offsets, tallies: tallyStack)
        let nested = field.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self)
        let child = try merged.message(nested, in: 0..<total, depth: depth + 1)
        (message + Int(field.offset)).storeBytes(of: child, as: UnsafeMutableRawPointer.self)
        markPresent(field, in: message)
    }

    /// Skips every field of a message that has no known fields.
    private func skipAll(in range: Range<Int>) throws(DecodeError) {
        var cursor = WireCursor(base: base, position: range.lowerBound, end: range.upperBound)
        while !cursor.isAtEnd {
            let (number, wireType) = try cursor.tag()
            try cursor.skip(wireType, number: number)
        }
    }

    private func checkWireType(_ wireType: WireType, for field: ProtobufCFieldDescriptor, at offset: Int) throws(DecodeError) {
        let expected = field.wireType
        if wireType == expected { return }
        if wireType == .lengthDelimited && field.isRepeated && field.isPackable { return }
        throw DecodeError("wire type \(wireType.rawValue) does not fit \(field.typeName) field \(field.fieldName) (\(field.id)), "
                          + "which needs wire type \(expected.rawValue)", offset: offset)
    }

    private func tally(_ tally: inout RepeatedTally, _ field: ProtobufCFieldDescriptor, _ wireType: WireType,
                       _ cursor: inout WireCursor) throws(DecodeError) {
        guard wireType == .lengthDelimited, field.isPackable else {
            try cursor.skip(wireType, number: field.id)
            tally.count += 1
            tally.unpackedValues += 1
            return
        }
        let payload = try cursor.lengthDelimited()
        if let width = field.fixedWidth {
            guard payload.count % width == 0 else {
                throw DecodeError("packed \(field.typeName) payload of \(payload.count) bytes is not a multiple of \(width)",
                                  offset: payload.lowerBound)
            }
            tally.count += payload.count / width
        } else {
            tally.count += try countVarints(in: payload)
        }
        if tally.packedChunks == 0 { tally.firstPayload = payload.lowerBound }
        tally.packedChunks += 1
    }

    private func countVarints(in payload: Range<Int>) throws(DecodeError) -> Int {
        var count = 0
        for offset in payload where base.load(fromByteOffset: offset, as: UInt8.self) < 0x80 {
            count += 1
        }
        if !payload.isEmpty && base.load(fromByteOffset: payload.upperBound - 1, as: UInt8.self) >= 0x80 {
            throw DecodeError("truncated varint at the end of a packed field", offset: payload.upperBound - 1)
        }
        return count
    }

    /// Sets each repeated field's count and array: a pointer into the input
    /// when a fixed-width array arrived in one aligned chunk, nil when
    /// payloads are skipped, otherwise zeroed arena memory for pass 2.
    private func allocateRepeated(_ tallies: UnsafeMutableBufferPointer<RepeatedTally>, _ fields: UnsafePointer<ProtobufCFieldDescriptor>,
                                  _ message: UnsafeMutableRawPointer, at offset: Int) throws(DecodeError) {
        for index in tallies.indices where tallies[index].count > 0 && fields[index].isRepeated {
            let field = fields[index]
            let count = tallies[index].count
            (message + Int(field.quantifier_offset)).storeBytes(of: count, as: Int.self)
            var array: UnsafeRawPointer?
            if let width = field.fixedWidth, tallies[index].unpackedValues == 0 {
                if options.structureOnly, !options.readInStructure.contains(String(cString: field.name)) {
                    tallies[index].inPlace = true
                } else if tallies[index].packedChunks == 1, littleEndianHost,
                          Int(bitPattern: base + tallies[index].firstPayload) % width == 0 {
                    array = base + tallies[index].firstPayload
                    tallies[index].inPlace = true
                }
            }
            if !tallies[index].inPlace {
                array = UnsafeRawPointer(try allocate(count * field.storageSize, at: offset))
            }
            (message + Int(field.offset)).storeBytes(of: array, as: UnsafeRawPointer?.self)
        }
    }

    private func storeRepeated(_ tally: inout RepeatedTally, _ field: ProtobufCFieldDescriptor, _ wireType: WireType,
                               _ cursor: inout WireCursor, _ message: UnsafeMutableRawPointer, depth: Int) throws(DecodeError) {
        if tally.inPlace {
            try cursor.skip(wireType, number: field.id)
            return
        }
        let array = (message + Int(field.offset)).load(as: UnsafeMutableRawPointer.self)
        let size = field.storageSize
        if wireType == .lengthDelimited && field.isPackable {
            let payload = try cursor.lengthDelimited()
            if let width = field.fixedWidth {
                // Same byte layout on a little-endian host: one copy per chunk.
                (array + tally.filled * size).copyMemory(from: base + payload.lowerBound, byteCount: payload.count)
                tally.filled += payload.count / width
            } else {
                var inner = WireCursor(base: base, position: payload.lowerBound, end: payload.upperBound)
                while !inner.isAtEnd {
                    storeScalar(try inner.varint(), as: field, to: array + tally.filled * size)
                    tally.filled += 1
                }
            }
            return
        }
        try storeValue(field, &cursor, at: array + tally.filled * size, depth: depth)
        tally.filled += 1
    }

    private func storeSingular(_ field: ProtobufCFieldDescriptor, _ cursor: inout WireCursor,
                               _ message: UnsafeMutableRawPointer, depth: Int) throws(DecodeError) {
        try storeValue(field, &cursor, at: message + Int(field.offset), depth: depth)
        markPresent(field, in: message)
    }

    /// Reads one value from the wire and stores it in C form at `address`.
    private func storeValue(_ field: ProtobufCFieldDescriptor, _ cursor: inout WireCursor,
                            at address: UnsafeMutableRawPointer, depth: Int) throws(DecodeError) {
        switch field.type {
        case PROTOBUF_C_TYPE_STRING:
            let payload = try cursor.lengthDelimited()
            // protobuf-c's strings end at their first NUL: a name holding one
            // would be read cut short, and silently mean another name.
            if UnsafeRawBufferPointer(start: base + payload.lowerBound, count: payload.count).contains(0) {
                throw DecodeError("string field \(field.fieldName) (\(field.id)) holds a NUL byte", offset: payload.lowerBound)
            }
            let string = try allocate(payload.count + 1, at: payload.lowerBound)
            string.copyMemory(from: base + payload.lowerBound, byteCount: payload.count)
            address.storeBytes(of: string, as: UnsafeMutableRawPointer.self)
        case PROTOBUF_C_TYPE_BYTES:
            let payload = try cursor.lengthDelimited()
            let data = options.structureOnly || payload.isEmpty ? nil : UnsafeMutableRawPointer(mutating: base + payload.lowerBound)
            address.storeBytes(of: ProtobufCBinaryData(len: payload.count, data: data?.assumingMemoryBound(to: UInt8.self)),
                               as: ProtobufCBinaryData.self)
        case PROTOBUF_C_TYPE_MESSAGE:
            let payload = try cursor.lengthDelimited()
            let nested = field.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self)
            let child = try message(nested, in: payload, depth: depth + 1)
            address.storeBytes(of: child, as: UnsafeMutableRawPointer.self)
        default:
            let bits: UInt64
            switch field.wireType {
            case .fixed32: bits = UInt64(try cursor.fixed32())
            case .fixed64: bits = try cursor.fixed64()
            default: bits = try cursor.varint()
            }
            storeScalar(bits, as: field, to: address)
        }
    }
}

/// Byte counts in words for messages.
enum SizeText {
    static func bytes(_ count: Int) -> String {
        count >= 1 << 20 ? "\(count >> 20) MB" : count >= 1 << 10 ? "\(count >> 10) KB" : "\(count) bytes"
    }
}

#if _endian(little)
let littleEndianHost = true
#else
let littleEndianHost = false
#endif

extension DecodeError {
    /// The same error, one field further from the root.
    func inField(_ name: String) -> DecodeError {
        var copy = self
        copy.fieldPath.insert(name, at: 0)
        return copy
    }
}

/// The tallies of the messages being decoded: one buffer per level of
/// nesting, reused by each message at that level (a message is done before
/// its next sibling starts), so that decoding a graph of a hundred thousand
/// messages allocates a handful of buffers rather than one per message.
final class TallyStack {
    private var levels: [UnsafeMutableBufferPointer<BinaryDecoding.RepeatedTally>] = []

    deinit { levels.forEach { $0.deallocate() } }

    /// `count` fresh tallies for a message at `depth`, valid until the next
    /// message at that depth asks.
    func tallies(count: Int, depth: Int) -> UnsafeMutableBufferPointer<BinaryDecoding.RepeatedTally> {
        while levels.count <= depth { levels.append(.allocate(capacity: 0)) }
        if levels[depth].count < count {
            levels[depth].deallocate()
            levels[depth] = .allocate(capacity: max(count, 2 * levels[depth].count))
        }
        let tallies = UnsafeMutableBufferPointer(rebasing: levels[depth][..<count])
        tallies.initialize(repeating: BinaryDecoding.RepeatedTally())
        return tallies
    }
}

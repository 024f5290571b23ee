import ModelFormat

/// Why a `.tflite` file cannot be read or converted: one sentence that names
/// the file and, for a malformed flatbuffer, the byte where it fails.
public typealias TFLiteError = MessageError<TFLiteErrorKind>
public enum TFLiteErrorKind {}

/// A read-only view of a flatbuffer (the FlatBuffers binary format TFLite
/// files use), over bytes someone else keeps alive (a mapped file). Nothing
/// is copied: scalars are loaded where they lie, vectors of bytes are handed
/// out as slices.
///
/// Every position is checked before it is read: a table's vtable, each
/// field inside the table's inline size, each offset's target, each
/// vector's length against the bytes left after it. A malformed file gets
/// one `TFLiteError` naming the byte, never a trap or an allocation sized
/// by the file (a vector's length is checked against the buffer before any
/// array is made of it, so the largest is bounded by the file's size).
///
/// The format's facts: the file opens with the root table's offset (u32)
/// and a 4-byte file identifier; a table opens with a signed offset (i32)
/// back to its vtable (table - value); a vtable is u16 byte size, u16 table
/// inline size, then one u16 offset per field id (0: absent, the default
/// applies); a reference field holds a u32 offset from its own position,
/// forward only; a vector and a string open with a u32 count.
struct FlatBuffer {
    let bytes: UnsafeRawBufferPointer
    let path: String

    func fail(_ position: Int, _ message: String) -> TFLiteError {
        TFLiteError("\(path): byte \(position): \(message)")
    }

    /// `count` bytes at `position` lie in the buffer.
    func check(_ position: Int, _ count: Int, _ what: String) throws(TFLiteError) {
        guard position >= 0, count >= 0, position <= bytes.count, count <= bytes.count - position else {
            let span = count == 0 ? "lies" : "(\(count) bytes) runs"
            throw fail(position, "\(what) \(span) past the end of the file (\(bytes.count) bytes): the file is cut or corrupt")
        }
    }

    func u8(_ position: Int) -> UInt8 { bytes[position] }
    func u16(_ position: Int) -> UInt16 { UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt16.self)) }
    func u32(_ position: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)) }
    func u64(_ position: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)) }

    /// The 4-byte file identifier ("TFL3"), nil when the file is shorter.
    var identifier: String? {
        bytes.count >= 8 ? String(decoding: bytes[4..<8], as: UTF8.self) : nil
    }

    /// The root table.
    func root(_ what: String) throws(TFLiteError) -> FlatTable {
        try check(0, 8, "the root offset and file identifier")
        return try table(referencedAt: 0, what)
    }

    /// The table a u32 offset at `position` refers to.
    func table(referencedAt position: Int, _ what: String) throws(TFLiteError) -> FlatTable {
        let target = try reference(at: position, what)
        try check(target, 4, what)
        let vtable = target - Int(Int32(bitPattern: u32(target)))
        try check(vtable, 4, "the vtable of \(what)")
        let vtableSize = Int(u16(vtable)), inlineSize = Int(u16(vtable + 2))
        guard vtableSize >= 4, vtableSize % 2 == 0 else { throw fail(vtable, "the vtable of \(what) has the size \(vtableSize), not an even number >= 4") }
        try check(vtable, vtableSize, "the vtable of \(what)")
        guard inlineSize >= 4 else { throw fail(vtable, "\(what) has the inline size \(inlineSize), less than its vtable offset") }
        try check(target, inlineSize, what)
        return FlatTable(buffer: self, position: target, vtable: vtable, fieldCount: (vtableSize - 4) / 2, inlineSize: inlineSize, what: what)
    }

    /// The position a u32 offset at `position` refers to (forward, never itself).
    func reference(at position: Int, _ what: String) throws(TFLiteError) -> Int {
        try check(position, 4, "the offset of \(what)")
        let offset = Int(u32(position))
        guard offset != 0 else { throw fail(position, "the offset of \(what) is 0: it refers to itself") }
        let target = position + offset
        try check(target, 0, what)
        return target
    }

    /// A vector's element count and first element, `elementSize` bytes each.
    func vector(referencedAt position: Int, elementSize: Int, _ what: String) throws(TFLiteError) -> (start: Int, count: Int) {
        let target = try reference(at: position, what)
        try check(target, 4, "the length of \(what)")
        let count = Int(u32(target))
        let (bytes, overflow) = count.multipliedReportingOverflow(by: elementSize)
        guard !overflow, bytes <= self.bytes.count - (target + 4) else {
            throw fail(target, "\(what) says it holds \(count) elements of \(elementSize) bytes, more than the \(self.bytes.count - target - 4) "
                       + "bytes left in the file")
        }
        return (target + 4, count)
    }
}

/// One table of a `FlatBuffer`: fields by id, absent ones nil (the schema's
/// default applies).
struct FlatTable {
    let buffer: FlatBuffer
    let position: Int
    let vtable: Int
    /// How many field ids the vtable lists.
    let fieldCount: Int
    let inlineSize: Int
    /// What the table is, for messages ("tensor 3 of subgraph 0").
    let what: String

    /// The field's position, nil when absent; its `size` bytes inside the table.
    func field(_ id: Int, size: Int) throws(TFLiteError) -> Int? {
        guard id < fieldCount else { return nil }
        let offset = Int(buffer.u16(vtable + 4 + 2 * id))
        guard offset != 0 else { return nil }
        guard offset >= 4, offset <= inlineSize - size else {
            throw buffer.fail(vtable + 4 + 2 * id, "field \(id) of \(what) lies at \(offset), outside the table's \(inlineSize) bytes")
        }
        return position + offset
    }

    /// The ids of the fields present beyond `known` (a newer schema's, or garbage).
    func presentFields(from known: Int) -> [Int] {
        (max(known, 0)..<max(fieldCount, known)).filter { buffer.u16(vtable + 4 + 2 * $0) != 0 }
    }

    func has(_ id: Int) -> Bool { id < fieldCount && buffer.u16(vtable + 4 + 2 * id) != 0 }

    func u8(_ id: Int) throws(TFLiteError) -> UInt8? { try field(id, size: 1).map(buffer.u8) }
    func i32(_ id: Int) throws(TFLiteError) -> Int32? { try field(id, size: 4).map { Int32(bitPattern: buffer.u32($0)) } }
    func u32(_ id: Int) throws(TFLiteError) -> UInt32? { try field(id, size: 4).map(buffer.u32) }
    func u64(_ id: Int) throws(TFLiteError) -> UInt64? { try field(id, size: 8).map(buffer.u64) }
    func f32(_ id: Int) throws(TFLiteError) -> Float? { try u32(id).map { Float(bitPattern: $0) } }

    func table(_ id: Int, _ what: String) throws(TFLiteError) -> FlatTable? {
        guard let at = try field(id, size: 4) else { return nil }
        return try buffer.table(referencedAt: at, what)
    }

    func string(_ id: Int, _ what: String) throws(TFLiteError) -> String? {
        guard let at = try field(id, size: 4) else { return nil }
        let (start, count) = try buffer.vector(referencedAt: at, elementSize: 1, what)
        return String(decoding: buffer.bytes[start..<start + count], as: UTF8.self)
    }

    /// A vector of i32 (shapes, tensor indices).
    func int32s(_ id: Int, _ what: String) throws(TFLiteError) -> [Int32] {
        guard let at = try field(id, size: 4) else { return [] }
        let (start, count) = try buffer.vector(referencedAt: at, elementSize: 4, what)
        return (0..<count).map { Int32(bitPattern: buffer.u32(start + 4 * $0)) }
    }

    /// A vector of bytes, as a slice of the buffer; nil when absent.
    func bytes(_ id: Int, _ what: String) throws(TFLiteError) -> UnsafeRawBufferPointer? {
        guard let at = try field(id, size: 4) else { return nil }
        let (start, count) = try buffer.vector(referencedAt: at, elementSize: 1, what)
        return UnsafeRawBufferPointer(rebasing: buffer.bytes[start..<start + count])
    }

    /// The element count of a vector field (0 when absent), its contents unread.
    func count(_ id: Int, elementSize: Int, _ what: String) throws(TFLiteError) -> Int {
        guard let at = try field(id, size: 4) else { return 0 }
        return try buffer.vector(referencedAt: at, elementSize: elementSize, what).count
    }

    /// A vector of tables, each read by `read` with its index.
    func tables<T>(_ id: Int, _ what: String, _ read: (FlatTable, Int) throws(TFLiteError) -> T) throws(TFLiteError) -> [T] {
        guard let at = try field(id, size: 4) else { return [] }
        let (start, count) = try buffer.vector(referencedAt: at, elementSize: 4, "the \(what) list")
        var result: [T] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            let table = try buffer.table(referencedAt: start + 4 * index, "\(what) \(index)")
            result.append(try read(table, index))
        }
        return result
    }
}

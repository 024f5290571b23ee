/// The zip archive of associated files (labels, vocabularies) that
/// tflite-support's metadata writers append to a model (Python's zipfile
/// in append mode), read from its central directory over the mapped file,
/// bounded like the flatbuffer: every record checked against the bytes
/// before it is read, nothing allocated by a size the file states.
///
/// The format's facts (PKWARE APPNOTE 4.3): the end of central directory
/// record (signature 0x06054b50, 22 bytes and a comment of up to 65535)
/// ends the file: entry count at 10 (u16), directory size at 12 (u32),
/// directory offset at 16 (u32), comment length at 20 (u16). Each central
/// directory header (0x02014b50, 46 bytes): flags at 8, method at 10,
/// compressed size at 20, uncompressed size at 24, name length at 28,
/// extra length at 30, comment length at 32, local header offset at 42.
/// A local header (0x04034b50, 30 bytes): name length at 26, extra length
/// at 28, then the data. Offsets are counted from the archive's start:
/// the model before it shifts them by the difference between where the
/// directory lies and where the record says it does (as zip readers do
/// for self-extracting archives).
///
/// Stored entries (method 0, as tflite-support writes them) and deflated
/// ones (method 8, as a zip tool or Python's ZIP_DEFLATED writes them,
/// inflated by `Inflate`, bounded by the stated size) are read, each
/// checked against its CRC-32 (at 16 of the directory header); other
/// methods and encrypted entries are refused by name.
struct AssociatedFiles {
    /// Each file's name and bytes, and its size in the zip when it is deflated (nil: stored).
    let entries: [(name: String, data: [UInt8], deflated: Int?)]

    /// An empty archive: the model has no zip appended.
    init() { entries = [] }

    /// Reads the archive at the end of `bytes`, none when the file does
    /// not end in an end of central directory record.
    /// - Throws: `TFLiteError` naming the byte of a malformed record or a
    ///   compressed entry.
    init(bytes: UnsafeRawBufferPointer, path: String) throws(TFLiteError) {
        let buffer = FlatBuffer(bytes: bytes, path: path)
        guard let end = Self.endRecord(buffer) else { entries = []; return }
        let count = Int(buffer.u16(end + 10)), size = Int(buffer.u32(end + 12)), stated = Int(buffer.u32(end + 16))
        let directory = end - size
        guard directory >= 0, stated <= directory else {
            throw buffer.fail(end, "the associated files' zip directory (\(size) bytes at \(stated)) does not fit before its end record")
        }
        let shift = directory - stated
        var entries: [(name: String, data: [UInt8], deflated: Int?)] = []
        var position = directory
        for index in 0..<count {
            let what = "the zip directory entry \(index) of the associated files"
            try buffer.check(position, 46, what)
            guard position + 46 <= end, buffer.u32(position) == 0x0201_4b50 else { throw buffer.fail(position, "\(what) has no header signature") }
            let method = buffer.u16(position + 10), flags = buffer.u16(position + 8)
            let compressed = Int(buffer.u32(position + 20)), uncompressed = Int(buffer.u32(position + 24))
            let nameLength = Int(buffer.u16(position + 28)), skip = Int(buffer.u16(position + 30)) + Int(buffer.u16(position + 32))
            try buffer.check(position + 46, nameLength + skip, "the name of \(what)")
            let name = String(decoding: bytes[position + 46..<position + 46 + nameLength], as: UTF8.self)
            guard method == 0 || method == 8, flags & 1 == 0 else {
                let how = flags & 1 != 0 ? "encrypted" : "compressed with method \(method)"
                throw buffer.fail(position, "associated file '\(name)' is \(how); stored (0) and deflated (8) files are read")
            }
            guard method == 8 || compressed == uncompressed else {
                throw buffer.fail(position, "associated file '\(name)' is stored, yet its sizes differ (\(compressed) bytes stored, \(uncompressed) unpacked)")
            }
            let local = Int(buffer.u32(position + 42)) + shift
            try buffer.check(local, 30, "the local header of associated file '\(name)'")
            guard buffer.u32(local) == 0x0403_4b50 else { throw buffer.fail(local, "associated file '\(name)' has no local header signature") }
            let start = local + 30 + Int(buffer.u16(local + 26)) + Int(buffer.u16(local + 28))
            try buffer.check(start, compressed, "associated file '\(name)'")
            guard start + compressed <= directory else { throw buffer.fail(start, "associated file '\(name)' runs into the zip directory") }
            let stored = UnsafeRawBufferPointer(rebasing: bytes[start..<start + compressed])
            let data: [UInt8]
            if method == 8 {
                do { data = try Inflate.inflate(stored, size: uncompressed) } catch {
                    throw buffer.fail(start + error.offset, "associated file '\(name)': \(error.message)")
                }
            } else {
                data = Array(stored)
            }
            let crc = buffer.u32(position + 16), computed = data.withUnsafeBytes(Inflate.crc32)
            guard crc == computed else {
                throw buffer.fail(start, "associated file '\(name)' has the CRC-32 \(Self.hex(computed)), and its directory entry states \(Self.hex(crc))")
            }
            entries.append((name, data, method == 8 ? compressed : nil))
            position += 46 + nameLength + skip
        }
        self.entries = entries
    }

    /// The end of central directory record's position: the last signature
    /// whose comment reaches exactly the file's end.
    private static func endRecord(_ buffer: FlatBuffer) -> Int? {
        let count = buffer.bytes.count
        guard count >= 22 else { return nil }
        for position in stride(from: count - 22, through: max(0, count - 22 - 65535), by: -1)
        where buffer.u32(position) == 0x0605_4b50 && position + 22 + Int(buffer.u16(position + 20)) == count {
            return position
        }
        return nil
    }

    private static func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16, uppercase: false) }

    func data(named name: String) -> [UInt8]? {
        entries.first { $0.name == name }?.data
    }
}

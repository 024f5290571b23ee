#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CProtobufFile
import FileIO
import ModelFormat
import Naming
import Protobuf

/// The package's weight file in MIL blob storage (version 2), as Core ML's
/// `MILBlob::Blob::StorageWriter` lays it out: a 64-byte header (blob count,
/// version 2, reserved zeros), then per blob, each at a 64-byte aligned
/// offset, a 64-byte metadata record (sentinel 0xDEADBEEF, data type,
/// size in bytes, offset of the data, the unused bits of a sub-byte blob's
/// last byte, reserved zeros) followed by the data
/// at the next 64-byte boundary; the file ends with the last blob's data.
/// All numbers little-endian. A program's
/// constant refers to a blob by the offset of its metadata record.
struct BlobFile {
    /// The name a program's constants use for the file.
    static let referenceName = "@model_path/weights/weight.bin"
    static let alignment = 64
    /// `BlobDataType::Float32` and `Float16` (integer types: `PackedInteger.blobType`).
    static let float32Type: UInt32 = 2, float16Type: UInt32 = 1
    static let sentinel: UInt32 = 0xDEAD_BEEF

    /// A blob's values: floats stored as float32 or float16 (cast as `HalfRounding` casts a constant, `name`
    /// its constant's), or `count` integers of `type` packed in bytes (a compressed constant's levels).
    enum Content {
        case floats(Weights, float16: Bool, name: String)
        case integers([UInt8], PackedInteger, count: Int)
    }

    /// A blob: its metadata record's offset and its values.
    typealias Blob = (offset: Int, content: Content)
    /// The blobs in file order.
    private(set) var blobs: [Blob] = []
    private var end = alignment
    /// The blobs `reserve` set aside and `fill` has not filled yet, by offset: their size and place in `blobs`.
    private var unfilled: [Int: (size: Int, index: Int)] = [:]

    /// Adds `weights` as a float32 blob, or float16 (cast as `HalfRounding`
    /// casts a constant), the constant `name`.
    /// - Returns: the offset of its metadata record.
    mutating func add(_ weights: Weights, float16: Bool = false, name: String = "") -> Int {
        add(.floats(weights, float16: float16, name: name))
    }

    /// Sets aside the place of a blob of `size` bytes whose values `fill`
    /// gives later (a compressed constant's, computed with the others on
    /// every core once the program is built).
    /// - Returns: the offset of its metadata record.
    mutating func reserve(size: Int) -> Int {
        let offset = add(.integers([], .uint8, count: 0), size: size)
        unfilled[offset] = (size, blobs.count - 1)
        return offset
    }

    /// The values of the blob `reserve` set aside at `offset`, of the size it set aside.
    mutating func fill(at offset: Int, with content: Content) {
        let reserved = unfilled.removeValue(forKey: offset)
        precondition(reserved?.size == Self.size(of: content), "a blob filled with other than its reserved size")
        blobs[reserved!.index].content = content
    }

    private mutating func add(_ content: Content, size: Int? = nil) -> Int {
        let offset = end
        blobs.append((offset, content))
        end = Self.aligned(offset + Self.alignment + (size ?? Self.size(of: content)))
        return offset
    }

    static func aligned(_ offset: Int) -> Int {
        (offset + alignment - 1) / alignment * alignment
    }

    /// Writes the file to `path`: the header and the metadata records, then
    /// every blob's values in pieces, computed (and cast to float16) and
    /// written by one thread per core (`StretchFill`), as the
    /// NeuralNetwork writer streams its arrays. `startingWriteback`: start
    /// the disk every `PROTO_WRITEBACK_STRIDE` bytes (a file about to be synced).
    /// - Throws: `FileError` when it cannot be written; `ModelError` for a
    ///   float16 blob holding a value beyond float16's range
    ///   (`HalfRounding.overflows`), found as it is cast (the first such
    ///   blob in the file).
    func write(to path: String, startingWriteback: Bool = false) throws {
        precondition(unfilled.isEmpty, "blobs reserved and never filled")
        let descriptor = PathBytes.withCString(path) { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666) }
        guard descriptor >= 0 else { throw FileError(path: path, errno: errno, action: "cannot create") }
        defer { close(descriptor) }
        let failed = { FileError(path: path, errno: errno, action: "cannot write") }
        // The file ends with the last blob's data (StorageWriter aligns each record's start only); the gaps read as zeros.
        guard ftruncate(descriptor, off_t(blobs.last.map { $0.offset + Self.alignment + Self.size(of: $0.content) } ?? Self.alignment)) == 0 else {
            throw failed()
        }
        var header = [UInt8](repeating: 0, count: Self.alignment)
        Self.put(UInt32(blobs.count), into: &header, at: 0)
        Self.put(UInt32(2), into: &header, at: 4)
        guard proto_write_at(descriptor, header, header.count, 0) == 0 else { throw failed() }
        for blob in blobs {
            var metadata = [UInt8](repeating: 0, count: Self.alignment)
            Self.put(Self.sentinel, into: &metadata, at: 0)
            let size = Self.size(of: blob.content)
            switch blob.content {
            case .floats(_, let float16, _):
                Self.put(float16 ? Self.float16Type : Self.float32Type, into: &metadata, at: 4)
            case .integers(_, let type, let count):
                Self.put(type.blobType, into: &metadata, at: 4)
                Self.put(UInt64(size * 8 - count * type.bits), into: &metadata, at: 24)  // padding_size_in_bits
            }
            Self.put(UInt64(size), into: &metadata, at: 8)
            Self.put(UInt64(blob.offset + Self.alignment), into: &metadata, at: 16)
            guard proto_write_at(descriptor, metadata, metadata.count, Int64(blob.offset)) == 0 else { throw failed() }
        }
        guard try StretchFill.fill(blobs.map(Self.stretch), descriptor: descriptor, startingWriteback: startingWriteback) else {
            throw failed()
        }
    }

    private static func size(of content: Content) -> Int {
        switch content {
        case .floats(let weights, let float16, _): weights.count * (float16 ? 2 : 4)
        case .integers(let bytes, _, _): bytes.count
        }
    }

    /// Values per piece of weights in memory (computed weights come in their producer's chunks).
    static let piece = 1 << 16

    /// A blob's data as a stretch of the file: its values in pieces, cast
    /// as `HalfRounding` casts a constant for a float16 blob.
    private static func stretch(_ blob: Blob) -> FileStretch {
        let (weights, float16, name): (Weights, Bool, String)
        switch blob.content {
        case .integers(let bytes, _, _):
            return FileStretch(offset: Int64(blob.offset + alignment), length: bytes.count, pieces: 1) { _, write in
                try bytes.withUnsafeBytes { try write($0, 0) }
            }
        case .floats(let values, let half, let constant):
            (weights, float16, name) = (values, half, constant)
        }
        return FileStretch(offset: Int64(blob.offset + alignment), length: weights.count * (float16 ? 2 : 4),
                           pieces: weights.pieceCount(size: piece), finished: weights.releaseSource) { index, write in
            try weights.withPiece(index, size: piece) { first, part in
                guard float16 else {
                    // Float's in-memory bytes are little-endian on every platform Swift runs this on.
                    return try write(UnsafeRawBufferPointer(part), 4 * first)
                }
                var halfs = [UInt16](repeating: 0, count: part.count)
                for (offset, value) in part.enumerated() {
                    let half = HalfRounding.bits(value, count: weights.count)
                    if HalfRounding.mayOverflow(half), HalfRounding.overflows(value) { throw HalfRounding.overflowError(constant: name) }
                    halfs[offset] = half.littleEndian
                }
                try halfs.withUnsafeBytes { try write($0, 2 * first) }
            }
        }
    }

    private static func put<T: FixedWidthInteger>(_ value: T, into bytes: inout [UInt8], at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for (index, byte) in raw.enumerated() { bytes[offset + index] = byte }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CProtobufFile
import FileIO
import ModelFormat

/// The package's weight file in MIL blob storage (version 2), as Core ML's
/// `MILBlob::Blob::StorageWriter` lays it out: a 64-byte header (blob count,
/// version 2, reserved zeros), then per blob, each at a 64-byte aligned
/// offset, a 64-byte metadata record (sentinel 0xDEADBEEF, data type,
/// size in bytes, offset of the data, reserved zeros) followed by the data
/// at the next 64-byte boundary; the file ends with the last blob's data.
/// All numbers little-endian. A program's
/// constant refers to a blob by the offset of its metadata record.
struct BlobFile {
    /// The name a program's constants use for the file.
    static let referenceName = "@model_path/weights/weight.bin"
    static let alignment = 64
    /// `BlobDataType::Float32` and `Float16`.
    static let float32Type: UInt32 = 2, float16Type: UInt32 = 1
    static let sentinel: UInt32 = 0xDEAD_BEEF

    /// The blobs in file order, each with its metadata record's offset.
    private(set) var blobs: [(offset: Int, weights: Weights, float16: Bool, name: String)] = []
    private var end = alignment

    /// Adds `weights` as a float32 blob, or float16 (cast as `HalfRounding`
    /// casts a constant), the constant `name`.
    /// - Returns: the offset of its metadata record.
    mutating func add(_ weights: Weights, float16: Bool = false, name: String = "") -> Int {
        let offset = end
        blobs.append((offset, weights, float16, name))
        end = Self.aligned(offset + Self.alignment + weights.count * (float16 ? 2 : 4))
        return offset
    }

    static func aligned(_ offset: Int) -> Int {
        (offset + alignment - 1) / alignment * alignment
    }

    /// Writes the file to `path`, streaming each tensor's values in chunks.
    /// - Throws: `FileError` when it cannot be written; `ModelError` for a
    ///   float16 blob holding a value beyond float16's range
    ///   (`HalfRounding.overflows`), found as it is cast.
    func write(to path: String) throws {
        guard let stream = fopen(path, "wb") else { throw FileError(path: path, errno: errno, action: "cannot create") }
        var closed = false
        defer { if !closed { fclose(stream) } }
        var halfs = [UInt16](repeating: 0, count: 65536)
        let writeback = Writeback()
        var header = [UInt8](repeating: 0, count: Self.alignment)
        Self.put(UInt32(blobs.count), into: &header, at: 0)
        Self.put(UInt32(2), into: &header, at: 4)
        try put(header, stream, path, writeback)
        var position = Self.alignment
        for blob in blobs {
            try put([UInt8](repeating: 0, count: blob.offset - position), stream, path, writeback)
            let size = blob.weights.count * (blob.float16 ? 2 : 4)
            var metadata = [UInt8](repeating: 0, count: Self.alignment)
            Self.put(Self.sentinel, into: &metadata, at: 0)
            Self.put(blob.float16 ? Self.float16Type : Self.float32Type, into: &metadata, at: 4)
            Self.put(UInt64(size), into: &metadata, at: 8)
            Self.put(UInt64(blob.offset + Self.alignment), into: &metadata, at: 16)
            try put(metadata, stream, path, writeback)
            for chunk in 0..<blob.weights.chunkCount {
                try blob.weights.withChunk(chunk) { _, values in
                    if blob.float16 {
                        // Cast in pieces of 64K values into one buffer, so that no second copy of a large tensor is made.
                        for start in stride(from: 0, to: values.count, by: halfs.count) {
                            let piece = min(halfs.count, values.count - start)
                            for index in 0..<piece {
                                let value = values[start + index]
                                if HalfRounding.overflows(value) { throw HalfRounding.overflowError(constant: blob.name) }
                                halfs[index] = HalfRounding.bits(value, count: blob.weights.count).littleEndian
                            }
                            try halfs.withUnsafeBufferPointer { try put(UnsafeRawBufferPointer(rebound($0, count: piece)), stream, path, writeback) }
                        }
                        return
                    }
                    // Float's in-memory bytes are little-endian on every platform Swift runs this on.
                    try put(UnsafeRawBufferPointer(values), stream, path, writeback)
                }
            }
            position = blob.offset + Self.alignment + size
        }
        // No padding after the last blob: StorageWriter aligns each record's start only.
        closed = true
        guard fclose(stream) == 0 else { throw FileError(path: path, errno: errno, action: "cannot write") }
    }

    private func put(_ bytes: [UInt8], _ stream: UnsafeMutablePointer<FILE>, _ path: String, _ writeback: Writeback) throws {
        try bytes.withUnsafeBytes { try put($0, stream, path, writeback) }
    }

    /// Writes `bytes`; every `PROTO_WRITEBACK_STRIDE` bytes the disk is
    /// started on what was written, so that the package's final fsync
    /// waits for the last stretch only (as the NeuralNetwork writer does).
    private func put(_ bytes: UnsafeRawBufferPointer, _ stream: UnsafeMutablePointer<FILE>, _ path: String, _ writeback: Writeback) throws {
        guard bytes.isEmpty || fwrite(bytes.baseAddress!, 1, bytes.count, stream) == bytes.count else {
            throw FileError(path: path, errno: errno, action: "cannot write")
        }
        writeback.written += Int64(bytes.count)
        if writeback.written - writeback.started >= PROTO_WRITEBACK_STRIDE {
            guard fflush(stream) == 0 else { throw FileError(path: path, errno: errno, action: "cannot write") }
            proto_start_writeback(fileno(stream), writeback.started, writeback.written - writeback.started)
            writeback.started = writeback.written
        }
    }

    /// How far the file is written, and from where the disk has not been started on it.
    private final class Writeback {
        var written: Int64 = 0
        var started: Int64 = 0
    }

    private func rebound(_ buffer: UnsafeBufferPointer<UInt16>, count: Int) -> UnsafeBufferPointer<UInt16> {
        UnsafeBufferPointer(rebasing: buffer[..<count])
    }

    private static func put<T: FixedWidthInteger>(_ value: T, into bytes: inout [UInt8], at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for (index, byte) in raw.enumerated() { bytes[offset + index] = byte }
        }
    }
}

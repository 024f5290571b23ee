import CZlib

/// A deflated zip entry (method 8: raw deflate, RFC 1951) inflated by
/// zlib, bounded by the entry's stated uncompressed size: the output grows
/// by what zlib actually writes (64 KiB at a time), never past that size
/// plus one byte, so a stated size alone allocates nothing, and a stream
/// that inflates further is an error. The whole compressed entry must be
/// the one stream, the output exactly the stated size, its CRC-32 the
/// stated one.
enum Inflate {
    /// A malformed stream: the byte (from the entry's first) where zlib
    /// stopped reading, and what it found.
    struct Failure: Error {
        var offset: Int
        var message: String
    }

    static func inflate(_ input: UnsafeRawBufferPointer, size: Int) throws(Failure) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(offset: 0, message: "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        guard input.count <= Int(UInt32.max), let base = input.baseAddress ?? UnsafeRawPointer(bitPattern: 1) else {
            throw Failure(offset: 0, message: "the entry is over 4 GB")
        }
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
        stream.avail_in = UInt32(input.count)
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let room = min(chunk.count, size + 1 - output.count)
            let (status, written) = chunk.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
                stream.next_out = buffer.baseAddress
                stream.avail_out = UInt32(room)
                let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                return (status, room - Int(stream.avail_out))
            }
            output += chunk[0..<written]
            let at = input.count - Int(stream.avail_in)
            switch status {
            case Z_STREAM_END:
                guard output.count == size else {
                    throw Failure(offset: at, message: "the deflate stream ends after \(output.count) bytes, and the entry states \(size)")
                }
                guard stream.avail_in == 0 else {
                    throw Failure(offset: at, message: "the deflate stream ends \(stream.avail_in) bytes before the entry's compressed data does")
                }
                return output
            case Z_OK where output.count <= size:
                continue
            case Z_OK, Z_BUF_ERROR:
                if output.count > size {
                    throw Failure(offset: at, message: "the deflate stream inflates past the entry's stated size of \(size) bytes")
                }
                throw Failure(offset: at, message: "the deflate stream is cut short: it needs more than the entry's \(input.count) compressed bytes")
            default:
                let reason = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                throw Failure(offset: at, message: "the deflate stream is malformed (zlib: \(reason))")
            }
        }
    }

    /// The CRC-32 of `bytes` (zip's, ISO 3309).
    static func crc32(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CZlib.crc32(0, nil, 0)
        var start = 0
        while start < bytes.count {
            let count = min(bytes.count - start, 1 << 30)
            crc = CZlib.crc32(crc, bytes.baseAddress!.advanced(by: start).assumingMemoryBound(to: UInt8.self), UInt32(count))
            start += count
        }
        return UInt32(crc)
    }
}

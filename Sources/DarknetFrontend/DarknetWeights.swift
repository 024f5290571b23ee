import Conversion
import FileIO

/// A Darknet `.weights` file: a header (major, minor, revision as int32,
/// then the count of images seen: int64 when major * 10 + minor >= 2,
/// int32 before), then every layer's float32 arrays, little-endian, in
/// layer order with no names or sizes: the network definition says how
/// many each layer takes.
public struct DarknetWeights {
    let file: MappedFile
    /// Where the next array starts.
    private(set) var offset: Int

    init(path: String) throws {
        file = try MappedFile(path: path)
        guard file.bytes.count >= 16 else { throw DarknetError("\(path): \(file.bytes.count) bytes is too short for a Darknet .weights header") }
        guard let header = Self.headerSize(file.bytes) else {
            throw DarknetError("\(path): does not open with a Darknet .weights header (major version 0 or 1, minor below 100)")
        }
        offset = header
    }

    /// The size of the header `bytes` open with (20 when major * 10 + minor
    /// >= 2, as `seen` became 64-bit then; else 16), or nil when they do not
    /// open with one: major version 0 or 1, minor below 100, revision below 2^20.
    static func headerSize(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 16 else { return nil }
        let word = { (index: Int) in Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * index, as: Int32.self)) }
        let (major, minor, revision) = (word(0), word(1), word(2))
        guard (0...1).contains(major), (0..<100).contains(minor), (0..<1 << 20).contains(revision) else { return nil }
        return major * 10 + minor >= 2 ? 20 : 16
    }

    /// Whether `bytes` read as Darknet weights: a header, then whole float32 values.
    public static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let header = headerSize(bytes) else { return false }
        return (bytes.count - header) % 4 == 0
    }

    /// The next `count` values, for `what` (named in the error when the
    /// file ends first), borrowed from the mapped file: a kernel goes from
    /// here to the output file without a copy (`NHWCLayout.unchanged`).
    mutating func bytes(_ count: Int, _ what: String) throws -> FloatBytes {
        let (bytes, overflow) = count.multipliedReportingOverflow(by: 4)
        let end = offset + (overflow ? file.bytes.count : bytes)
        guard count >= 0, !overflow, end <= file.bytes.count else {
            throw DarknetError("\(file.path): ends at byte \(file.bytes.count) before \(what) (\(count) values from byte \(offset))")
        }
        defer { offset = end }
        return FloatBytes(borrowing: UnsafeRawBufferPointer(rebasing: file.bytes[offset..<end]), owner: file, isMappedFile: true)
    }

    /// The next `count` values as an array (biases, batch-norm vectors).
    mutating func read(_ count: Int, _ what: String) throws -> [Float] {
        try bytes(count, what).withBytes { raw in
            (0..<count).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
        }
    }

    /// Bytes left after the last array.
    var remaining: Int { file.bytes.count - offset }
}

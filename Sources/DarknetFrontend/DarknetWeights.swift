import FileIO

/// A Darknet `.weights` file: a header (major, minor, revision as int32,
/// then the count of images seen: int64 when major * 10 + minor >= 2,
/// int32 before), then every layer's float32 arrays, little-endian, in
/// layer order with no names or sizes: the network definition says how
/// many each layer takes.
struct DarknetWeights {
    let file: MappedFile
    /// Where the next array starts.
    private(set) var offset: Int
    let version: (major: Int32, minor: Int32, revision: Int32)

    init(path: String) throws {
        file = try MappedFile(path: path)
        guard file.bytes.count >= 16 else { throw DarknetError("\(path): \(file.bytes.count) bytes is too short for a Darknet .weights header") }
        let bytes = file.bytes
        let word = { (index: Int) in Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * index, as: Int32.self)) }
        version = (word(0), word(1), word(2))
        guard (0...1000).contains(version.major), (0...1000).contains(version.minor) else {
            throw DarknetError("\(path): version \(version.major).\(version.minor) is not a Darknet .weights header")
        }
        offset = version.major * 10 + version.minor >= 2 ? 20 : 16
    }

    /// The next `count` values, for `what` (named in the error when the file ends first).
    mutating func read(_ count: Int, _ what: String) throws -> [Float] {
        let (bytes, overflow) = count.multipliedReportingOverflow(by: 4)
        let end = offset + (overflow ? file.bytes.count : bytes)
        guard count >= 0, !overflow, end <= file.bytes.count else {
            throw DarknetError("\(file.path): ends at byte \(file.bytes.count) before \(what) (\(count) values from byte \(offset))")
        }
        let values = (0..<count).map { Float(bitPattern: UInt32(littleEndian: file.bytes.loadUnaligned(fromByteOffset: offset + 4 * $0, as: UInt32.self))) }
        offset = end
        return values
    }

    /// Bytes left after the last array.
    var remaining: Int { file.bytes.count - offset }
}

/// Paths kept as the exact bytes the user (or a folder listing) gave, inside
/// a `String`.
///
/// A Unix path is bytes, not text: `out\xff.mlmodel` is a valid name that
/// no UTF-8 decoding can hold. Swift's `CommandLine.arguments` and
/// `String(cString:)` replace such a byte with U+FFFD, so the program would
/// open or overwrite `out\xef\xbf\xbd.mlmodel`, another file. Here each byte
/// that is not part of valid UTF-8 is held as one private-use scalar,
/// U+10FC00 plus the byte (U+10FC80...U+10FCFF); every system call gets the
/// bytes back (`bytes(of:)`, `withCString`), and display escapes them as
/// `\xff` (`TextEscaping`).
///
/// The mapping loses nothing: a name whose valid UTF-8 encodes a scalar of
/// that reserved range is held byte by byte too, so `bytes(of: string(from:
/// b)) == b` for every byte sequence `b`, and no argument has to be refused.
public enum PathBytes {
    /// The scalars that hold raw bytes 0x80...0xFF.
    public static let reserved: ClosedRange<UInt32> = 0x10_FC80...0x10_FCFF
    private static let base: UInt32 = 0x10_FC00

    /// The raw byte `scalar` holds, or nil for an ordinary scalar.
    public static func rawByte(_ scalar: Unicode.Scalar) -> UInt8? {
        reserved.contains(scalar.value) ? UInt8(scalar.value - base) : nil
    }

    /// `bytes` as a string: valid UTF-8 as text, every other byte (and every
    /// byte of a reserved scalar's encoding) held as its reserved scalar.
    public static func string(from bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        var scalars = String.UnicodeScalarView()
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        func hold(_ count: Int) {
            for byte in bytes[offset..<offset + count] { scalars.append(Unicode.Scalar(base + UInt32(byte))!) }
        }
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if reserved.contains(scalar.value) { hold(encoded.count) } else { scalars.append(scalar) }
                offset += encoded.count
            case .error(let length):
                hold(length)
                offset += length
            case .emptyInput:
                return String(scalars)
            }
        }
    }

    /// The bytes `path` stands for: the raw byte of each reserved scalar,
    /// the UTF-8 of every other.
    public static func bytes(of path: String) -> [UInt8] {
        guard containsRawBytes(path) else { return Array(path.utf8) }
        var result: [UInt8] = []
        result.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if let byte = rawByte(scalar) { result.append(byte) } else { result += String(scalar).utf8 }
        }
        return result
    }

    /// Whether `path` holds a byte that is not UTF-8.
    public static func containsRawBytes(_ path: String) -> Bool {
        path.unicodeScalars.contains { reserved.contains($0.value) }
    }

    /// Calls `body` with `path`'s bytes as a NUL-terminated C string, for a
    /// system call (`open`, `stat`, `rename`, `mkdir`, ...).
    public static func withCString<Result>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        guard containsRawBytes(path) else { return try path.withCString(body) }
        let terminated = bytes(of: path).map { CChar(bitPattern: $0) } + [0]
        return try terminated.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// `path` with each held byte written `\xff`, other text as it is: for
    /// JSON, whose strings are Unicode (a terminal needs `TextEscaping`).
    public static func escapingRawBytes(_ path: String) -> String {
        guard containsRawBytes(path) else { return path }
        var result = ""
        for scalar in path.unicodeScalars {
            if let byte = rawByte(scalar) { result += "\\x" + String(byte, radix: 16) } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }

    /// A C string (a `readdir` name, a `realpath` result) as a path, bytes kept.
    public static func string(cString: UnsafePointer<CChar>) -> String {
        var count = 0
        while cString[count] != 0 { count += 1 }
        return string(from: UnsafeRawBufferPointer(start: cString, count: count))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FileIO
import Naming
import TestSupport
import XCTest

/// Paths are bytes: a name that is not UTF-8 is held losslessly in a
/// `String` (`PathBytes`), reaches every system call as the same bytes,
/// and is shown escaped.
final class PathBytesTests: XCTestCase {
    /// Every byte sequence comes back from its string unchanged: invalid
    /// bytes, truncated and overlong sequences, encoded surrogates, and the
    /// UTF-8 of the reserved scalars themselves.
    func testEveryByteSequenceRoundTrips() {
        let cases: [[UInt8]] = [
            [], Array("model.mlmodel".utf8), Array("café 猫 🐈".utf8), [0xFF], [0x80], [0xC3], [0xC3, 0x28], [0xE2, 0x82],
            [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xB2, 0x80], [0xF4, 0x8F, 0xB3, 0xBF],
            Array("out".utf8) + [0xFF] + Array(".mlmodel".utf8), [0xEF, 0xBF, 0xBD],
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        // Random bytes, biased to the high half where UTF-8 goes wrong.
        let random = (0..<2000).map { _ in (0..<Int(next() % 12)).map { _ in next() | (next() & 1 == 0 ? 0x80 : 0) } }
        for bytes in cases + random {
            let text = PathBytes.string(from: bytes)
            XCTAssertEqual(PathBytes.bytes(of: text), bytes, "\(bytes)")
            PathBytes.withCString(text) { XCTAssertEqual(Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))), bytes.prefix { $0 != 0 }) }
        }
        // Valid UTF-8 stays the text it is; U+FFFD is a character like any other.
        XCTAssertEqual(PathBytes.string(from: Array("café.png".utf8)), "café.png")
        XCTAssertEqual(PathBytes.string(from: [0xEF, 0xBF, 0xBD]), "\u{FFFD}")
        XCTAssertNotEqual(PathBytes.string(from: [0xFF]), PathBytes.string(from: [0xEF, 0xBF, 0xBD]))
        XCTAssertFalse(PathBytes.containsRawBytes("café"))
    }

    /// Shown escaped: `\xff` for a raw byte, as `ls -b` would, and control
    /// characters as `TextEscaping` shows them.
    func testRawBytesAreShownEscaped() {
        let path = PathBytes.string(from: Array("out".utf8) + [0xFF, 0x1B] + Array("[2J.mlmodel".utf8))
        XCTAssertEqual(TextEscaping.line(path), #"out\xff\u{1B}[2J.mlmodel"#)
        XCTAssertEqual(PathBytes.escapingRawBytes(path), "out\\xff\u{1B}[2J.mlmodel")
        XCTAssertEqual(TextEscaping.line(PathBytes.string(from: [0xF4, 0x8F, 0xB2, 0x80])), #"\xf4\x8f\xb2\x80"#)
    }

    /// Paths split at the byte `/`: a name that begins with a combining
    /// mark makes one Swift character of `/` and the mark, which once put
    /// the temporary file in the wrong folder.
    func testPathsSplitAtTheSlashByte() throws {
        XCTAssertEqual(FileSystem.folder(of: "a/\u{301}x.bin"), "a")
        XCTAssertEqual(FileSystem.name(of: "a/\u{301}x.bin"), "\u{301}x.bin")
        XCTAssertEqual(FileSystem.folder(of: "x.bin"), ".")
        XCTAssertEqual(FileSystem.folder(of: "/x.bin"), "/")
        XCTAssertEqual(FileSystem.name(of: "a/b/"), "b")
        XCTAssertEqual(FileSystem.name(of: "/"), "/")
        let folder = try temporaryFolder().path
        try AtomicFile.write(Array("x".utf8), to: folder + "/\u{301}x.bin")
        XCTAssertEqual(try FileSystem.names(inFolder: folder), ["\u{301}x.bin"])
        let nested = folder + "/\u{301}a/\u{301}b"
        try FileSystem.makeFolder(nested, intermediate: true)
        XCTAssertEqual(FileSystem.kind(of: nested), .folder)
    }

    /// The file library writes, reads, lists, checks and makes folders by
    /// the exact bytes, and never touches the name U+FFFD decoding gives.
    func testFilesAreWrittenReadAndListedByTheirBytes() throws {
        let folder = try temporaryFolder().path
        let decoy = folder + "/out\u{FFFD}.bin"
        try AtomicFile.write(Array("decoy".utf8), to: decoy)
        let raw = PathBytes.string(from: Array((folder + "/out").utf8) + [0xFF] + Array(".bin".utf8))
        try AtomicFile.write(Array("new".utf8), to: raw)
        try AtomicFile.write(Array("newer".utf8), to: raw)  // replaces it
        XCTAssertEqual(try ReadableFile.bytes(raw), Array("newer".utf8))
        XCTAssertEqual(try ReadableFile.bytes(decoy), Array("decoy".utf8))
        XCTAssertEqual(Set(try FileSystem.names(inFolder: folder).map { PathBytes.bytes(of: $0) }),
                       [Array("out".utf8) + [0xFF] + Array(".bin".utf8), [0x6F, 0x75, 0x74, 0xEF, 0xBF, 0xBD] + Array(".bin".utf8)])
        XCTAssertEqual(FileSystem.kind(of: raw), .regularFile)
        XCTAssertThrowsError(try AtomicFile.checkTarget(raw, inputs: [raw]))
        XCTAssertEqual(try MappedFile(path: raw).bytes.count, 5)

        let subfolder = PathBytes.string(from: Array((folder + "/a").utf8) + [0xFE] + Array("/b".utf8) + [0xFD])
        try FileSystem.makeFolder(subfolder, intermediate: true)
        XCTAssertEqual(FileSystem.kind(of: subfolder), .folder)
        XCTAssertEqual(try FileSystem.names(inFolder: folder).count, 3)
        XCTAssertEqual(FileSystem.resolved(subfolder).map { PathBytes.bytes(of: $0).suffix(4) }, [0xFE, 0x2F, 0x62, 0xFD])
        XCTAssertThrowsError(try FileSystem.makeFolder(raw)) { XCTAssertTrue("\($0)".hasSuffix("is not a folder")) }
        XCTAssertThrowsError(try ReadableFile.bytes(raw + "\u{10FCFF}")) {
            XCTAssertTrue(TextEscaping.line("\($0)").hasSuffix(#"out\xff.bin\xff: cannot open: No such file or directory"#), "\($0)")
        }
    }
}

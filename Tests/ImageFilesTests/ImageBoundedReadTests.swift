#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import ImageFiles
import Images
import XCTest

/// What a decoder is given: at most what the image's header declares it
/// can use (`PNGDecoder.usableLength`, `JPEGDecoder.usableLength`), the
/// declared size checked first, a PNG cut at the end of IEND.
final class ImageBoundedReadTests: XCTestCase {
    /// A 1x1 RGB PNG (200, 100, 50): signature, IHDR, IDAT, IEND.
    static let onePixelPNG: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
        0xDE, 0x00, 0x00, 0x00, 0x0C, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x38, 0x91, 0x62, 0x04,
        0x00, 0x03, 0x56, 0x01, 0x5F, 0xE8, 0x17, 0x84, 0x52, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E,
        0x44, 0xAE, 0x42, 0x60, 0x82,
    ]

    func usable(_ bytes: [UInt8], png: Bool = true) throws -> Int {
        try bytes.withUnsafeBytes { raw in
            try png ? PNGDecoder.usableLength(raw, name: "x") : JPEGDecoder.usableLength(raw, name: "x")
        }
    }

    func decodeError(_ bytes: [UInt8], name: String) -> String {
        do {
            _ = try ImageFile.decode(bytes, name: name)
            return "no error"
        } catch {
            return error.description
        }
    }

    /// Garbage after IEND is never given to libpng; the image decodes.
    func testAPNGIsCutAtTheEndOfIEND() throws {
        let garbage = Self.onePixelPNG + [UInt8](repeating: 0xFF, count: 1 << 20)
        XCTAssertEqual(try usable(garbage), Self.onePixelPNG.count)
        let image = try ImageFile.decode(garbage, name: "x.png")
        XCTAssertEqual([image.width, image.height, image.channels], [1, 1, 3])
        XCTAssertEqual(image.pixels, [200, 100, 50])
    }

    /// The file is mapped, not read: a 9 GiB hole after the image costs nothing.
    func testASparseFileIsReadAsItsImage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bounded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("hole.png")
        try Data(Self.onePixelPNG).write(to: url)
        XCTAssertEqual(truncate(url.path, 9 << 30), 0)
        let image = try ImageFile.read(path: url.path)
        XCTAssertEqual(image.pixels, [200, 100, 50])
    }

    /// A header declaring more pixels than its file could hold compressed
    /// (deflate packs at most 1032 bytes into one) is refused before libpng
    /// allocates the pixels (10000 x 10000 RGBA: 400 MB).
    func testAPNGTooShortForItsDeclaredSizeIsRefused() throws {
        var png = Array(Self.onePixelPNG.prefix(33))
        png[16...23] = [0x00, 0x00, 0x27, 0x10, 0x00, 0x00, 0x27, 0x10]  // 10000 x 10000
        png[25] = 6  // RGBA
        XCTAssertEqual(decodeError(png + [UInt8](repeating: 0, count: 67), name: "big.png"),
                       "big.png: corrupt PNG: 10000x10000 declared, whose pixel data needs at least 387606 bytes compressed; the file has 100")
    }

    /// A chunk declaring more than remains is refused naming it, before
    /// libpng allocates the declared size (it did, for a 2 GiB tEXt).
    func testAChunkLongerThanTheFileIsRefusedNamingIt() throws {
        let text = Array(Self.onePixelPNG.prefix(33)) + [0x7F, 0xFF, 0xFF, 0xFF] + Array("tEXt".utf8)
        XCTAssertEqual(decodeError(text, name: "t.png"),
                       "t.png: corrupt PNG: chunk 'tEXt' at byte 33 declares 2147483647 bytes, past the end of the file (41 bytes)")
        // Past what a 1x1 image may use (2 x 4 raw bytes + 16 MiB), though the file is longer.
        let long = text + [UInt8](repeating: 0, count: 17 << 20)
        XCTAssertEqual(decodeError(long, name: "t.png"),
                       "t.png: corrupt PNG: chunk 'tEXt' at byte 33 declares 2147483647 bytes, past the 16777224 bytes read (what a 1x1 PNG can use)")
    }

    /// A JPEG is given its frame's samples at 16 bytes each plus 16 MiB;
    /// without an EOI in that, the error says what was read.
    func testAJPEGIsGivenAtMostWhatItsFrameDeclares() throws {
        let jpeg = try Array(Data(contentsOf: imageFixtures.appendingPathComponent("rgb.jpg")))  // 16 x 12, 3 components
        let noEnd = Array(jpeg.dropLast(2)) + [UInt8](repeating: 0, count: 20 << 20)
        let limit = 16 * 16 * 12 * 3 + ImageFile.maximumMetadataBytes
        XCTAssertEqual(try usable(noEnd, png: false), limit)
        XCTAssertEqual(decodeError(noEnd, name: "cut.jpg"),
                       "cut.jpg: corrupt JPEG: Premature end of JPEG file (only the first \(limit) of the file's \(noEnd.count) bytes "
                       + "were read: all that a JPEG of its declared size can use)")
        // With its EOI, the trailing zeros change nothing.
        let trailing = jpeg + [UInt8](repeating: 0, count: 20 << 20)
        XCTAssertEqual(try ImageFile.decode(trailing, name: "x.jpg").pixels, try ImageFile.decode(jpeg, name: "x.jpg").pixels)
    }

    /// Without a frame header in the first 16 MiB, the decoder gets those only.
    func testAJPEGWithoutAFrameInReachGetsTheMetadataAllowance() throws {
        // APP1 segments of 65535 bytes, one after another, for 17 MiB.
        var segments: [UInt8] = [0xFF, 0xD8]
        while segments.count < 17 << 20 { segments += [0xFF, 0xE1, 0xFF, 0xFF] + [UInt8](repeating: 0x20, count: 65533) }
        XCTAssertEqual(try usable(segments, png: false), ImageFile.maximumMetadataBytes)
        XCTAssertTrue(decodeError(segments, name: "m.jpg").hasPrefix("m.jpg: corrupt JPEG: "))
    }
}

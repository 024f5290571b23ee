import FileIO
import Foundation
import ImageFiles
import Images
import Runtime
import XCTest

let imageFixtures = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/images")

/// The pixels OpenCV decoded or computed (`scripts/fixtures/make_image_fixtures.py`),
/// an H x W x C uint8 .npy, as an `Image`.
func expectedImage(_ name: String) throws -> Image {
    let array = try NumpyFile.read(path: imageFixtures.appendingPathComponent(name).path)
    guard array.shape.count == 3 else { throw RuntimeError("\(name): shape \(array.shape)") }
    return Image(width: array.shape[1], height: array.shape[0], channels: array.shape[2],
                 pixels: array.values.map { UInt8($0) })
}

/// Largest per-sample difference between two images of the same size.
func maximumDifference(_ a: Image, _ b: Image, file: StaticString = #filePath, line: UInt = #line) -> Int {
    XCTAssertEqual([a.width, a.height, a.channels], [b.width, b.height, b.channels], "size", file: file, line: line)
    guard a.pixels.count == b.pixels.count else { return .max }
    return zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
}

/// Decoding against OpenCV's `cv2.imdecode` of the same files.
final class ImageFileTests: XCTestCase {
    func path(_ name: String) -> String { imageFixtures.appendingPathComponent(name).path }

    func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: imageFixtures.appendingPathComponent(name))) }

    /// The one-line message decoding `bytes` as `name` fails with.
    func decodeError(_ bytes: [UInt8], name: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let image = try ImageFile.decode(bytes, name: name)
            XCTFail("decoded \(image.width)x\(image.height)", file: file, line: line)
            return ""
        } catch {
            XCTAssertEqual(error.file, name, file: file, line: line)
            XCTAssertFalse(error.description.contains("\n"), "one line: \(error)", file: file, line: line)
            return error.description
        }
    }

    func testPNGsDecodeExactlyAsOpenCV() throws {
        let cases = [("rgb", 3), ("gray", 1), ("rgba", 3), ("palette", 3), ("graya", 1), ("rgb16", 3), ("gray16", 1)]
        for (name, channels) in cases {
            let image = try ImageFile.read(path: path("\(name).png"))
            XCTAssertEqual(image.channels, channels, name)
            XCTAssertEqual(image, try expectedImage("\(name).png.expect.npy"), name)
        }
    }

    /// libjpeg-turbo builds (Debian's, the one in OpenCV's wheel) may round
    /// differently in the IDCT and upsampling: allow 2 per sample.
    func testJPEGsDecodeAsOpenCVWithinTwo() throws {
        for (name, channels) in [("rgb", 3), ("gray", 1), ("progressive", 3), ("cmyk", 3)] {
            let image = try ImageFile.read(path: path("\(name).jpg"))
            XCTAssertEqual(image.channels, channels, name)
            XCTAssertLessThanOrEqual(maximumDifference(image, try expectedImage("\(name).jpg.expect.npy")), 2, name)
        }
    }

    func testFormatComesFromContentNotExtension() throws {
        let jpeg = try bytes("rgb.jpg"), png = try bytes("rgb.png")
        XCTAssertEqual(try ImageFile.decode(jpeg, name: "photo.png"), try ImageFile.read(path: path("rgb.jpg")))
        XCTAssertEqual(try ImageFile.decode(png, name: "photo.jpg"), try ImageFile.read(path: path("rgb.png")))
        let fromPointer = try png.withUnsafeBytes { try ImageFile.decode($0, name: "noextension") }
        XCTAssertEqual(fromPointer, try expectedImage("rgb.png.expect.npy"))
    }

    func testGarbageEmptyAndMissingFiles() throws {
        XCTAssertEqual(decodeError(Array("GIF89a....".utf8), name: "photo.jpg"), "photo.jpg: not a PNG or JPEG image")
        XCTAssertEqual(decodeError([0xFF, 0xD8], name: "photo.jpg"), "photo.jpg: not a PNG or JPEG image")
        XCTAssertEqual(decodeError([], name: "photo.png"), "photo.png: empty file")
        let missing = path("missing.png")
        XCTAssertThrowsError(try ImageFile.read(path: missing)) { error in
            XCTAssertEqual("\(error)", "\(missing): cannot open: No such file or directory")
        }
        XCTAssertThrowsError(try ImageFile.read(path: imageFixtures.path)) { error in
            XCTAssertEqual("\(error)", "\(imageFixtures.path): not a regular file (a folder)")
        }
    }

    func testTruncatedAndCorruptPNG() throws {
        let png = try bytes("rgb.png")
        let truncated = decodeError(Array(png.prefix(png.count - 30)), name: "cut.png")
        XCTAssertTrue(truncated.hasPrefix("cut.png: corrupt PNG: "), truncated)
        let headerOnly = decodeError(Array(png.prefix(20)), name: "cut.png")
        XCTAssertTrue(headerOnly.hasPrefix("cut.png: corrupt PNG: "), headerOnly)
        var damaged = png
        damaged[20] ^= 0xFF // inside IHDR: its CRC no longer matches
        let crc = decodeError(damaged, name: "photo.png")
        XCTAssertTrue(crc.hasPrefix("photo.png: corrupt PNG: "), crc)
        XCTAssertTrue(crc.contains("CRC"), crc)
    }

    func testTruncatedAndCorruptJPEG() throws {
        let jpeg = try bytes("rgb.jpg")
        // Cut in the entropy-coded data: libjpeg's warning is an error here.
        XCTAssertEqual(decodeError(Array(jpeg.prefix(jpeg.count - 40)), name: "cut.jpg"),
                       "cut.jpg: corrupt JPEG: Premature end of JPEG file")
        XCTAssertEqual(decodeError(Array(jpeg.prefix(40)), name: "cut.jpg"),
                       "cut.jpg: corrupt JPEG: no image (the header is truncated or holds only tables)")
        let sosMissing = decodeError(Array(jpeg.prefix(jpeg.count / 2)), name: "cut.jpg")
        XCTAssertTrue(sosMissing.hasPrefix("cut.jpg: corrupt JPEG: "), sosMissing)
        let garbage = decodeError([0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0x42, count: 100), name: "photo.jpg")
        XCTAssertTrue(garbage.hasPrefix("photo.jpg: corrupt JPEG: "), garbage)
    }

    /// Headers claiming 20000 x 20000 pixels: refused from the header, before
    /// 1.2 GB of pixels would be allocated (the files hold almost no data).
    func testDecompressionBombsAreRefused() throws {
        for name in ["bomb.png", "bomb.jpg"] {
            XCTAssertEqual(decodeError(try bytes(name), name: name),
                           "\(name): image is 20000x20000 (400 megapixels), over the limit of 100 megapixels")
        }
        XCTAssertEqual(ImageFile.maximumPixels, 100_000_000)
    }

    func testErrorDescription() {
        let error = ImageFileError(file: "a.png", message: "corrupt PNG: bad\nthing\n")
        XCTAssertEqual(error.description, "a.png: corrupt PNG: bad thing")
    }
}

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

/// JPEG EXIF orientation (`ExifOrientation`) against OpenCV's imread, which
/// applies it (Tests/Fixtures/images/exif, scripts/fixtures/make_exif_fixtures.py).
final class ExifOrientationTests: XCTestCase {
    func exif(_ name: String) -> String { imageFixtures.appendingPathComponent("exif/\(name)").path }

    func testEachOrientationTurnsAsOpenCVTurnsIt() throws {
        for orientation in 1...8 {
            let path = exif("orientation_\(orientation).jpg")
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            XCTAssertEqual(bytes.withUnsafeBytes { ExifOrientation.orientation(ofJPEG: $0) }, orientation)
            let image = try ImageFile.read(path: path)
            XCTAssertEqual([image.width, image.height], orientation >= 5 ? [4, 7] : [7, 4], "\(orientation)")
            XCTAssertLessThanOrEqual(maximumDifference(image, try expectedImage("exif/orientation_\(orientation).jpg.expect.npy")), 2,
                                     "orientation \(orientation)")
            // Ignored: the pixels as stored (OpenCV's IMREAD_IGNORE_ORIENTATION).
            let stored = try ImageFile.read(path: path, orientation: .ignore)
            XCTAssertLessThanOrEqual(maximumDifference(stored, try expectedImage("exif/stored.jpg.expect.npy")), 2, "\(orientation)")
        }
    }

    /// A PNG's eXIf chunk too, exactly as OpenCV's imread turns it.
    func testPNGOrientationTurnsAsOpenCVTurnsIt() throws {
        for orientation in [3, 6, 7] {
            let path = exif("orientation_\(orientation).png")
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            XCTAssertEqual(bytes.withUnsafeBytes { ExifOrientation.orientation(ofPNG: $0) }, orientation)
            XCTAssertEqual(try ImageFile.read(path: path), try expectedImage("exif/orientation_\(orientation).png.expect.npy"))
            XCTAssertEqual([try ImageFile.read(path: path, orientation: .ignore)].map { [$0.width, $0.height] }, [[7, 4]])
            // Every prefix and a chunk length past the end: nil or an answer, never a crash.
            for end in 0..<bytes.count { _ = Array(bytes.prefix(end)).withUnsafeBytes { ExifOrientation.orientation(ofPNG: $0) } }
            var long = bytes
            long.replaceSubrange(8..<12, with: [0xFF, 0xFF, 0xFF, 0xFF])
            XCTAssertNil(long.withUnsafeBytes { ExifOrientation.orientation(ofPNG: $0) })
        }
    }

    /// Hostile EXIF: nothing crashes, loops or reads past the segment; the
    /// orientation is nil and the picture decodes as stored.
    func testMalformedExifIsIgnoredNeverACrash() throws {
        let good = Array(try Data(contentsOf: URL(fileURLWithPath: exif("orientation_6.jpg"))))
        // The APP1 segment (after PIL's APP0).
        let app1 = try XCTUnwrap((2..<good.count - 1).first { good[$0] == 0xFF && good[$0 + 1] == 0xE1 })
        let length = Int(good[app1 + 2]) << 8 | Int(good[app1 + 3])
        let tiff = app1 + 4 + 6  // after the length and "Exif\0\0"
        func orientation(_ bytes: [UInt8]) -> Int? { bytes.withUnsafeBytes { ExifOrientation.orientation(ofJPEG: $0) } }
        func with(_ changes: [(Int, [UInt8])]) -> [UInt8] {
            var bytes = good
            for (offset, values) in changes { bytes.replaceSubrange(offset..<offset + values.count, with: values) }
            return bytes
        }
        let cases: [(String, [UInt8])] = [
            ("IFD offset past the segment", with([(tiff + 4, [0xFF, 0xFF, 0xFF, 0x7F])])),
            ("IFD offset inside the header", with([(tiff + 4, [0x02, 0, 0, 0])])),
            ("segment length past the file", with([(app1 + 2, [0xFF, 0xFF])])),
            ("segment length 0", with([(app1 + 2, [0, 0])])),
            ("segment length 1", with([(app1 + 2, [0, 1])])),
            ("not II or MM", with([(tiff, [0x41, 0x41])])),
            ("not 42", with([(tiff + 2, [0x2B, 0])])),
            ("orientation 9", with([(tiff + 10 + 8, [9, 0])])),
            ("orientation 0", with([(tiff + 10 + 8, [0, 0])])),
            ("type LONG", with([(tiff + 10 + 2, [4, 0])])),
            ("count 2", with([(tiff + 10 + 4, [2, 0, 0, 0])])),
            ("cut in the IFD", Array(good.prefix(tiff + 12))),
            ("cut in the marker", Array(good.prefix(5))),
            ("only fill bytes", [0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 4096)),
        ]
        for (name, bytes) in cases {
            XCTAssertNil(orientation(bytes), name)
        }
        // A count of 65535 entries: read only those that fit in the segment (the one there is).
        XCTAssertEqual(orientation(with([(tiff + 8, [0xFF, 0xFF])])), 6)
        // Every prefix and every single-byte flip of the segment: an answer, never a crash.
        for end in 0..<min(good.count, app1 + 2 + length + 8) { _ = orientation(Array(good.prefix(end))) }
        for offset in 2..<(app1 + 2 + length) {
            for value: UInt8 in [0x00, 0x01, 0x7F, 0xFF] { _ = orientation(with([(offset, [value])])) }
        }
        // A damaged EXIF block leaves the picture readable, as stored.
        let damaged = with([(tiff + 4, [0xFF, 0xFF, 0xFF, 0x7F])])
        let image = try ImageFile.decode(damaged, name: "damaged.jpg")
        XCTAssertLessThanOrEqual(maximumDifference(image, try expectedImage("exif/stored.jpg.expect.npy")), 2)
    }
}

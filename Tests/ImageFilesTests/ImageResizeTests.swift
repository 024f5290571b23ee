import ImageFiles
import Images
import XCTest

/// Resizing against `cv2.resize` (`scripts/fixtures/make_image_fixtures.py`)
/// and against properties that hold for any image.
final class ImageResizeTests: XCTestCase {
    func source(_ name: String) throws -> Image {
        try ImageFile.read(path: imageFixtures.appendingPathComponent(name).path)
    }

    /// Floating-point weights against OpenCV's 11-bit fixed-point ones: at
    /// most 1 apart.
    func testStretchUpscaleMatchesOpenCVInterLinear() throws {
        let resized = ImageResize.resize(try source("rgb.png"), width: 17, height: 11, mode: .scaleFill)
        XCTAssertLessThanOrEqual(maximumDifference(resized, try expectedImage("resize_stretch_17x11.npy")), 1)
    }

    /// 6x4 -> 9x3: up in x, down (by less than 2x) in y.
    func testGrayMixedScalesMatchOpenCVInterLinear() throws {
        let resized = ImageResize.resize(try source("gray.png"), width: 9, height: 3)
        XCTAssertEqual(resized.channels, 1)
        XCTAssertLessThanOrEqual(maximumDifference(resized, try expectedImage("resize_gray_9x3.npy")), 1)
    }

    /// 4x6 -> 8x8 center crop = scale 2 to 8x12, keep rows 2..<10.
    func testCenterCropMatchesScaleThenCrop() throws {
        let resized = ImageResize.resize(try source("crop_src.png"), width: 8, height: 8, mode: .centerCrop)
        XCTAssertLessThanOrEqual(maximumDifference(resized, try expectedImage("resize_crop_8x8.npy")), 1)
    }

    /// Reductions beyond 2x average the area: 24x16 -> 6x4 is a 4x4 box mean.
    func testLargeDownscaleAveragesLikeOpenCVInterArea() throws {
        let resized = ImageResize.resize(try source("area_src.png"), width: 6, height: 4)
        XCTAssertEqual(resized, try expectedImage("resize_area_6x4.npy"))
    }

    func testSameSizeIsIdentityAndConstantsStayConstant() throws {
        let image = try source("rgb.png")
        XCTAssertEqual(ImageResize.resize(image, width: image.width, height: image.height), image)
        XCTAssertEqual(ImageResize.resize(image, width: image.width, height: image.height, mode: .centerCrop), image)
        let flat = Image(width: 5, height: 3, channels: 3, pixels: Array(repeating: [10, 200, 77], count: 15).flatMap { $0 })
        for (width, height) in [(1, 1), (2, 9), (13, 2), (40, 30)] {
            for mode in [ImageResize.Mode.scaleFill, .centerCrop] {
                let resized = ImageResize.resize(flat, width: width, height: height, mode: mode)
                XCTAssertEqual(resized.pixels, Array(repeating: [10, 200, 77], count: width * height).flatMap { $0 })
            }
        }
    }

    func testOnePixelSourceAndNonIntegerArea() {
        let dot = Image(width: 1, height: 1, channels: 1, pixels: [99])
        XCTAssertEqual(ImageResize.resize(dot, width: 3, height: 2).pixels, [UInt8](repeating: 99, count: 6))
        // 7 -> 2 (3.5x): outputs cover 0..<3.5 and 3.5..<7.
        let row = Image(width: 7, height: 1, channels: 1, pixels: [0, 10, 20, 30, 40, 50, 60])
        let reduced = ImageResize.resize(row, width: 2, height: 1)
        // (0 + 10 + 20 + 30 / 2) / 3.5 = 12.86; (30 / 2 + 40 + 50 + 60) / 3.5 = 47.14
        XCTAssertEqual(reduced.pixels, [13, 47])
    }

    /// Center crop keeps the middle of the longer side, whole shorter side.
    func testCenterCropKeepsTheMiddle() {
        // 6x2, columns 0..5 with value 10 * column: to 2x2 keeps columns 2 and 3.
        let pixels = (0..<2).flatMap { _ in (0..<6).map { UInt8($0 * 10) } }
        let wide = Image(width: 6, height: 2, channels: 1, pixels: pixels)
        XCTAssertEqual(ImageResize.resize(wide, width: 2, height: 2, mode: .centerCrop).pixels, [20, 30, 20, 30])
        XCTAssertEqual(ImageResize.resize(wide, width: 3, height: 1, mode: .scaleFill).pixels, [5, 25, 45])
    }

    /// scaleFit: the longer side fits, the image is centered, the bands
    /// left over are black (Vision's padding is undocumented; this is ours).
    func testScaleFitLetterboxesOnBlack() {
        let white = Image(width: 4, height: 2, channels: 1, pixels: [UInt8](repeating: 255, count: 8))
        XCTAssertEqual(ImageResize.resize(white, width: 4, height: 4, mode: .scaleFit).pixels,
                       [0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0])
        let tall = Image(width: 1, height: 3, channels: 3, pixels: [10, 20, 30, 10, 20, 30, 10, 20, 30])
        let fitted = ImageResize.resize(tall, width: 3, height: 3, mode: .scaleFit)
        XCTAssertEqual(fitted.pixels, (0..<3).flatMap { _ in [0, 0, 0, 10, 20, 30, 0, 0, 0] as [UInt8] })
        // A square target of a square image is a plain resize.
        let square = Image(width: 2, height: 2, channels: 1, pixels: [0, 100, 200, 50])
        XCTAssertEqual(ImageResize.resize(square, width: 4, height: 4, mode: .scaleFit),
                       ImageResize.resize(square, width: 4, height: 4, mode: .scaleFill))
    }

    func testGrayAndRGBConversions() {
        let rgb = Image(width: 3, height: 1, channels: 3, pixels: [255, 0, 0, 0, 255, 0, 10, 20, 30])
        let gray = rgb.toGray()
        XCTAssertEqual(gray.channels, 1)
        // 0.299 * 255 = 76.2, 0.587 * 255 = 149.7, 2.99 + 11.74 + 3.42 = 18.15
        XCTAssertEqual(gray.pixels, [76, 150, 18])
        XCTAssertEqual(gray.toGray(), gray)
        XCTAssertEqual(gray.toRGB().pixels, [76, 76, 76, 150, 150, 150, 18, 18, 18])
        XCTAssertEqual(rgb.toRGB(), rgb)
        let white = Image(width: 1, height: 1, channels: 3, pixels: [255, 255, 255])
        XCTAssertEqual(white.toGray().pixels, [255])
    }
}

import FrontendSupport
import ModelFormat
import XCTest

/// The layout moves against their element-by-element definitions, on sizes
/// that are not multiples of the tile, large enough to be split across
/// cores, and read from unaligned bytes (as tensors lie in a .pb file).
final class NHWCLayoutTests: XCTestCase {
    /// Distinct values, so any misplaced element shows.
    static func source(_ count: Int) -> [Float] { (0..<count).map { Float($0) * 0.5 - 7 } }

    /// `values` as little-endian bytes starting one byte into the buffer.
    static func unaligned<R>(_ values: [Float], _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let bytes = [UInt8](repeating: 0, count: 1) + values.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) }
        return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[1...])) }
    }

    func testConvolutionIsKHKWCinCoutToCoutCinKHKW() {
        for (kh, kw, cin, cout) in [(3, 3, 5, 7), (1, 1, 17, 33), (3, 2, 70, 130), (1, 7, 40, 1000)] {
            let source = Self.source(kh * kw * cin * cout)
            let weights = Self.unaligned(source) { NHWCLayout.convolution(kh: kh, kw: kw, cin: cin, cout: cout, from: $0) }
            var expected = [Float](repeating: .nan, count: source.count)
            for y in 0..<kh { for x in 0..<kw { for i in 0..<cin { for o in 0..<cout {
                expected[((o * cin + i) * kh + y) * kw + x] = source[((y * kw + x) * cin + i) * cout + o]
            } } } }
            XCTAssertEqual(weights.values, expected, "\(kh)x\(kw) \(cin) -> \(cout)")
        }
    }

    func testDepthwiseIsKHKWCinMultiplierToChannelsKHKW() {
        for (kh, kw, cin, multiplier) in [(3, 3, 19, 1), (5, 3, 300, 2), (3, 3, 4096, 8)] {
            let source = Self.source(kh * kw * cin * multiplier)
            let weights = Self.unaligned(source) { NHWCLayout.depthwise(kh: kh, kw: kw, cin: cin, multiplier: multiplier, from: $0) }
            var expected = [Float](repeating: .nan, count: source.count)
            for c in 0..<cin { for m in 0..<multiplier { for y in 0..<kh { for x in 0..<kw {
                expected[((c * multiplier + m) * kh + y) * kw + x] = source[((y * kw + x) * cin + c) * multiplier + m]
            } } } }
            XCTAssertEqual(weights.values, expected, "\(kh)x\(kw) \(cin) x \(multiplier)")
        }
    }

    func testDeconvolutionIsKHKWCoutCinToCinCoutKHKW() {
        let (kh, kw, cout, cin) = (4, 3, 6, 21)
        let source = Self.source(kh * kw * cout * cin)
        let weights = Self.unaligned(source) { NHWCLayout.deconvolution(kh: kh, kw: kw, cout: cout, cin: cin, from: $0) }
        var expected = [Float](repeating: .nan, count: source.count)
        for i in 0..<cin { for o in 0..<cout { for y in 0..<kh { for x in 0..<kw {
            expected[((i * cout + o) * kh + y) * kw + x] = source[((y * kw + x) * cout + o) * cin + i]
        } } } }
        XCTAssertEqual(weights.values, expected)
    }

    func testTransposedSwapsTheTwoAxes() {
        for (inputs, outputs) in [(1, 1), (3, 1), (1, 5), (600, 700)] {
            let source = Self.source(inputs * outputs)
            let weights = Self.unaligned(source) { NHWCLayout.transposed(inputs: inputs, outputs: outputs, from: $0) }
            var expected = [Float](repeating: .nan, count: source.count)
            for i in 0..<inputs { for o in 0..<outputs { expected[o * inputs + i] = source[i * outputs + o] } }
            XCTAssertEqual(weights.values, expected, "\(inputs) x \(outputs)")
        }
    }

    func testEmptyTensors() {
        XCTAssertEqual(NHWCLayout.convolution(kh: 3, kw: 3, cin: 0, cout: 4, from: UnsafeRawBufferPointer(start: nil, count: 0)).count, 0)
    }
}

import FileIO
import Conversion
import ModelFormat
import TestSupport
import XCTest

/// The layout moves against their element-by-element definitions, on sizes
/// that are not multiples of the tile, large enough to be split across
/// cores, and read from unaligned bytes (as tensors lie in a .pb file);
/// computed in full and chunk by chunk, as the writer streams them.
final class NHWCLayoutTests: XCTestCase {
    /// Distinct values, so any misplaced element shows.
    static func source(_ count: Int) -> [Float] { (0..<count).map { Float($0) * 0.5 - 7 } }

    /// `values` as little-endian bytes starting one byte into a buffer that
    /// lives as long as the returned bytes are referenced.
    static func unaligned(_ values: [Float]) -> FloatBytes {
        let buffer = UnalignedBuffer(values)
        return FloatBytes(borrowing: buffer.bytes, owner: buffer, isMappedFile: false)
    }


    func testConvolutionIsKHKWCinCoutToCoutCinKHKW() {
        for (kh, kw, cin, cout) in [(3, 3, 5, 7), (1, 1, 17, 33), (3, 2, 70, 130), (1, 7, 40, 1000)] {
            let source = Self.source(kh * kw * cin * cout)
            let weights = NHWCLayout.convolution(kh: kh, kw: kw, cin: cin, cout: cout, from: Self.unaligned(source))
            var expected = [Float](repeating: .nan, count: source.count)
            for y in 0..<kh { for x in 0..<kw { for i in 0..<cin { for o in 0..<cout {
                expected[((o * cin + i) * kh + y) * kw + x] = source[((y * kw + x) * cin + i) * cout + o]
            } } } }
            XCTAssertEqual(valuesByChunks(weights), expected, "\(kh)x\(kw) \(cin) -> \(cout), by chunks")
            XCTAssertEqual(weights.values, expected, "\(kh)x\(kw) \(cin) -> \(cout)")
        }
    }

    func testDepthwiseIsKHKWCinMultiplierToChannelsKHKW() {
        for (kh, kw, cin, multiplier) in [(3, 3, 19, 1), (5, 3, 300, 2), (3, 3, 4096, 8)] {
            let source = Self.source(kh * kw * cin * multiplier)
            let weights = NHWCLayout.depthwise(kh: kh, kw: kw, cin: cin, multiplier: multiplier, from: Self.unaligned(source))
            var expected = [Float](repeating: .nan, count: source.count)
            for c in 0..<cin { for m in 0..<multiplier { for y in 0..<kh { for x in 0..<kw {
                expected[((c * multiplier + m) * kh + y) * kw + x] = source[((y * kw + x) * cin + c) * multiplier + m]
            } } } }
            XCTAssertEqual(valuesByChunks(weights), expected, "\(kh)x\(kw) \(cin) x \(multiplier), by chunks")
            XCTAssertEqual(weights.values, expected, "\(kh)x\(kw) \(cin) x \(multiplier)")
        }
    }

    func testDeconvolutionIsKHKWCoutCinToCinCoutKHKW() {
        let (kh, kw, cout, cin) = (4, 3, 6, 21)
        let source = Self.source(kh * kw * cout * cin)
        let weights = NHWCLayout.deconvolution(kh: kh, kw: kw, cout: cout, cin: cin, from: Self.unaligned(source))
        var expected = [Float](repeating: .nan, count: source.count)
        for i in 0..<cin { for o in 0..<cout { for y in 0..<kh { for x in 0..<kw {
            expected[((i * cout + o) * kh + y) * kw + x] = source[((y * kw + x) * cout + o) * cin + i]
        } } } }
        XCTAssertEqual(valuesByChunks(weights), expected, "by chunks")
        XCTAssertEqual(weights.values, expected)
    }

    func testTransposedSwapsTheTwoAxes() {
        for (inputs, outputs) in [(1, 1), (3, 1), (1, 5), (600, 700)] {
            let source = Self.source(inputs * outputs)
            let weights = NHWCLayout.transposed(inputs: inputs, outputs: outputs, from: Self.unaligned(source))
            var expected = [Float](repeating: .nan, count: source.count)
            for i in 0..<inputs { for o in 0..<outputs { expected[o * inputs + i] = source[i * outputs + o] } }
            XCTAssertEqual(valuesByChunks(weights), expected, "\(inputs) x \(outputs), by chunks")
            XCTAssertEqual(weights.values, expected, "\(inputs) x \(outputs)")
        }
    }

    func testUnchangedKeepsTheValuesInOrder() {
        for count in [1, 5, 200_000] {  // 200,000 values make several chunks
            let source = Self.source(count)
            let weights = NHWCLayout.unchanged(from: Self.unaligned(source))
            XCTAssertTrue(weights.isComputed)
            XCTAssertEqual(valuesByChunks(weights), source, "\(count), by chunks")
            XCTAssertEqual(weights.values, source, "\(count)")
        }
    }

    func testEmptyTensors() {
        let weights = NHWCLayout.convolution(kh: 3, kw: 3, cin: 0, cout: 4, from: FloatBytes([]))
        XCTAssertEqual(weights.count, 0)
        XCTAssertEqual(weights.chunkCount, 0)
    }

    /// The moved weights read their source when asked, long after the
    /// frontend let go of it: the source must live as long as they do.
    func testWeightsKeepTheirSourceAlive() {
        weak var source: UnalignedBuffer?
        let weights: Weights = {
            let buffer = UnalignedBuffer(Self.source(6))
            source = buffer
            return NHWCLayout.transposed(inputs: 2, outputs: 3, from: FloatBytes(borrowing: buffer.bytes, owner: buffer, isMappedFile: false))
        }()
        XCTAssertNotNil(source, "the weights hold their source")
        XCTAssertTrue(weights.isComputed)
        XCTAssertEqual(weights.values, [-7, -5.5, -6.5, -5, -6, -4.5])
    }
}

/// Little-endian float bytes one byte into memory of their own.
final class UnalignedBuffer {
    private let memory: UnsafeMutableRawBufferPointer
    let bytes: UnsafeRawBufferPointer

    init(_ values: [Float]) {
        memory = .allocate(byteCount: 4 * values.count + 1, alignment: 16)
        for (index, value) in values.enumerated() {
            memory.storeBytes(of: value.bitPattern.littleEndian, toByteOffset: 1 + 4 * index, as: UInt32.self)
        }
        bytes = UnsafeRawBufferPointer(rebasing: memory[1...])
    }

    deinit { memory.deallocate() }
}

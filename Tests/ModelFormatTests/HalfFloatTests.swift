import ModelFormat
import XCTest

/// IEEE 754 half precision, from the standard's table of special values.
final class HalfFloatTests: XCTestCase {
    func testKnownValues() {
        let cases: [(UInt16, Float)] = [
            (0x0000, 0), (0x3C00, 1), (0xC000, -2), (0x3555, 0.333251953125), (0x7BFF, 65504),
            (0x0001, 0x1p-24), (0x03FF, 0x1.ff8p-15), (0x0400, 0x1p-14), (0x7C00, .infinity), (0xFC00, -.infinity),
        ]
        for (bits, value) in cases {
            XCTAssertEqual(Float(halfBits: bits), value, String(bits, radix: 16))
        }
        XCTAssertEqual(Float(halfBits: 0x8000).sign, .minus)
        XCTAssertEqual(Float(halfBits: 0x8000), 0)
        let nan = Float(halfBits: 0xFE01)
        XCTAssertTrue(nan.isNaN)
        XCTAssertEqual(nan.sign, .minus, "a NaN keeps its sign")
    }

    /// Every finite half widens to a float that narrows back to the same bits.
    func testEveryFiniteHalfRoundTrips() {
        for bits in UInt16.min...UInt16.max where (bits >> 10) & 0x1f != 31 {
            let value = Float(halfBits: bits)
            XCTAssertTrue(value.isFinite)
            // Narrowing by hand: the value is exactly representable, so sign, exponent and mantissa come back.
            let magnitude = abs(value)
            let expected: UInt16
            if magnitude < 0x1p-14 {
                expected = UInt16(magnitude * 0x1p24)
            } else {
                let exponent = Int(magnitude.exponent)
                expected = UInt16(exponent + 15) << 10 | UInt16((magnitude.significand - 1) * 1024)
            }
            XCTAssertEqual(expected | (value.sign == .minus ? 0x8000 : 0), bits, String(bits, radix: 16))
        }
    }

    /// Narrowing: every half comes back from its float; values between two
    /// halves go to the nearer, ties to the even one; overflow, underflow,
    /// infinity and NaN as numpy's `astype(float16)` does them.
    func testNarrowingRoundsToNearestEven() {
        for bits in UInt16.min...UInt16.max where (bits >> 10) & 0x1f != 31 || bits & 0x3ff == 0 {
            XCTAssertEqual(Float(halfBits: bits).halfBits, bits, String(bits, radix: 16))
        }
        let cases: [(Float, UInt16)] = [
            (65504, 0x7bff), (65519.996, 0x7bff), (65520, 0x7c00), (-65520, 0xfc00), (1e10, 0x7c00), (.infinity, 0x7c00),
            (1 + 0x1p-11, 0x3c00), (1 + 0x1p-11 + 0x1p-23, 0x3c01), (1 + 3 * 0x1p-11, 0x3c02),  // a tie down to even, just above it, a tie up to even
            (0x1p-24, 0x0001), (0x1p-25, 0x0000), (0x1p-25 + 0x1p-48, 0x0001), (1.5 * 0x1p-24, 0x0002), (-0x1p-26, 0x8000),
            (0x1p-14 - 0x1p-25, 0x0400),  // rounds up from the largest subnormal into the smallest normal
            (Float(bitPattern: 0x0000_0001), 0x0000),  // a float subnormal
        ]
        for (value, bits) in cases { XCTAssertEqual(value.halfBits, bits, "\(value)") }
        XCTAssertEqual(Float.nan.halfBits & 0x7c00, 0x7c00)
        XCTAssertNotEqual(Float(bitPattern: 0x7f80_0001).halfBits & 0x3ff, 0, "a NaN whose payload lies below half's stays a NaN")
    }

    #if !(os(macOS) && arch(x86_64))
    /// The same as the compiler's own Float16 conversion on a million
    /// float bit patterns spread evenly from below half's subnormals to
    /// beyond its largest value, both signs.
    func testNarrowingMatchesFloat16() {
        for bits in stride(from: UInt32(0x2f00_0000), to: 0x4800_0000, by: 839) {
            for value in [Float(bitPattern: bits), -Float(bitPattern: bits)] where value.halfBits != Float16(value).bitPattern {
                return XCTFail("\(value): \(String(value.halfBits, radix: 16)), Float16 \(String(Float16(value).bitPattern, radix: 16))")
            }
        }
    }
    #endif
}

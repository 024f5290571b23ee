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
}

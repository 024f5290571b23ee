@testable import CoreMLBackend
import Foundation
import TestSupport
import XCTest

/// Float32 constants cast to float16 for a program computing in float16, as
/// coremltools 9.0 casts them (Tests/Fixtures/coreml/half_rounding.json, made
/// by scripts/fixtures/make_half_rounding_fixture.py from the weight file
/// coremltools saves): edge values in a constant of 23 values (the
/// smallest-subnormal rule applies) and of 512 (it does not).
final class HalfRoundingTests: XCTestCase {
    struct Fixture: Decodable {
        struct Case: Decodable {
            let count: Int
            let floatBits: [UInt32]
            let halfBits: [UInt16]
        }
        let coremltools: String
        let cases: [Case]
    }

    func testConstantsAreCastAsCoremltoolsCastsThem() throws {
        let url = repositoryRoot.appendingPathComponent("Tests/Fixtures/coreml/half_rounding.json")
        let fixture = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        XCTAssertEqual(fixture.coremltools, "9.0")
        var saturated = 0
        for constant in fixture.cases {
            XCTAssertEqual(constant.floatBits.count, constant.halfBits.count)
            for (bits, expected) in zip(constant.floatBits, constant.halfBits) {
                let value = Float(bitPattern: bits)
                let ours = HalfRounding.bits(value, count: constant.count)
                if value.isFinite, abs(value) >= 1e38 {
                    // coremltools 9.0 writes infinity; its main branch (and this toolkit) saturates to ±65504.
                    XCTAssertEqual(expected & 0x7fff, 0x7c00, "\(value) in 9.0")
                    XCTAssertEqual(ours, value < 0 ? 0xfbff : 0x7bff, "\(value)")
                    saturated += 1
                } else {
                    XCTAssertEqual(ours, expected, "\(value) (bits \(String(bits, radix: 16))) in a constant of \(constant.count)")
                }
            }
        }
        XCTAssertEqual(saturated, 6, "the fixture holds 1e38, -1e38 and 3e38 in both constants")
    }
}

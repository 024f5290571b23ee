import Naming
import XCTest

final class SuggestionTests: XCTestCase {
    func testEditDistance() {
        let cases: [(String, String, Int)] = [
            ("", "", 0), ("abc", "", 3), ("", "ab", 2), ("is-bgr", "is-bgr", 0),
            ("is-brg", "is-bgr", 2), ("outptu", "output", 2), ("kitten", "sitting", 3),
        ]
        for (a, b, expected) in cases {
            XCTAssertEqual(editDistance(a, b), expected, "\(a) / \(b)")
        }
    }

    func testClosestMatch() {
        let names = ["--image-scale", "--image-input", "--is-bgr", "--output"]
        XCTAssertEqual(closestMatch(to: "--is-brg", in: names), "--is-bgr")
        XCTAssertEqual(closestMatch(to: "--image-inptu", in: names), "--image-input")
        XCTAssertNil(closestMatch(to: "--weights", in: names))
        XCTAssertNil(closestMatch(to: "x", in: []))
    }
}

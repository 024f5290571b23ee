import Naming
import XCTest

final class TextEscapingTests: XCTestCase {
    func testControlCharactersBecomeVisibleEscapes() {
        let cases: [(String, String)] = [
            ("conv1", "conv1"),
            ("a\nb", #"a\nb"#),
            ("tab\there\r", #"tab\there\r"#),
            ("\u{1B}[2J", #"\u{1B}[2J"#),
            ("bell\u{07}", #"bell\u{7}"#),
            ("del\u{7F}c1\u{9B}", #"del\u{7F}c1\u{9B}"#),
            ("rtl\u{202E}txt\u{2066}", #"rtl\u{202E}txt\u{2066}"#),
            ("line\u{2028}sep", #"line\u{2028}sep"#),
            ("non\u{FFFF}char", #"non\u{FFFF}char"#),
            ("café 猫 🐈", "café 猫 🐈"),
        ]
        for (raw, shown) in cases {
            XCTAssertEqual(TextEscaping.line(raw), shown)
            XCTAssertEqual(TextEscaping.line(TextEscaping.line(raw)), shown, "escaping twice changes nothing")
        }
    }
}

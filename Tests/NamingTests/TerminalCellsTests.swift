import Naming
import XCTest

/// Widths as a terminal (wcwidth) shows them.
final class TerminalCellsTests: XCTestCase {
    func testWidthsOfCharacters() {
        XCTAssertEqual(TerminalCells.width("conv1_relu"), 10)
        XCTAssertEqual(TerminalCells.width("卷积层"), 6)
        XCTAssertEqual(TerminalCells.width("한국어"), 6)
        XCTAssertEqual(TerminalCells.width("ｆｕｌｌ"), 8)  // fullwidth Latin
        XCTAssertEqual(TerminalCells.width("e\u{301}"), 1)  // e and a combining acute: one character, one cell
        XCTAssertEqual(TerminalCells.width("a\u{200B}b"), 2)  // zero-width space
        XCTAssertEqual(TerminalCells.width("🙂"), 2)
        XCTAssertEqual(TerminalCells.width("Ω→é"), 3)
        XCTAssertEqual(TerminalCells.width(""), 0)
    }

    func testPrefixesAndSuffixesKeepWholeCharacters() {
        XCTAssertEqual(TerminalCells.suffix("abc卷积层", cells: 5), "积层")  // the third cell would split 卷
        XCTAssertEqual(TerminalCells.suffix("abc卷积层", cells: 7), "c卷积层")
        XCTAssertEqual(TerminalCells.prefix("卷积层abc", cells: 3), "卷")
        XCTAssertEqual(TerminalCells.prefix("卷积层abc", cells: 0), "")
        XCTAssertEqual(TerminalCells.prefix("ab", cells: 10), "ab")
    }
}

@testable import CLI
import XCTest

/// Error lines never carry control characters from a model file.
final class ErrorLineTests: XCTestCase {
    func testErrorLinesAreEscaped() {
        struct Message: Error, CustomStringConvertible { var description: String }
        XCTAssertEqual(errorLine(for: Message(description: "layer 'x\u{1B}]0;t\u{07}': bad")), #"layer 'x\u{1B}]0;t\u{7}': bad"#)
        XCTAssertEqual(Outcome.failure(message: "a\u{1B}b").standardError, "error: a\\u{1B}b\n")
    }
}

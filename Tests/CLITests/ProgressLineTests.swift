import Foundation
import XCTest
@testable import CLI

/// `ProgressLine` with an injected clock and writer: what it draws and when.
final class ProgressLineTests: XCTestCase {
    /// A clock the test moves and the bytes the line wrote.
    final class Recorder: @unchecked Sendable {
        var now = 0.0
        var written = ""
    }

    func makeLine(_ recorder: Recorder, width: Int = ProgressLine.maximumWidth) -> ProgressLine {
        ProgressLine(clock: { recorder.now }, width: width) { recorder.written += $0 }
    }

    func testNothingIsDrawnBeforeTheTaskHasRunASecond() {
        let recorder = Recorder(), line = makeLine(recorder)
        line.progress("quantizing weights", done: 0, total: 57, unit: "tensors")
        recorder.now = 0.5
        line.progress("quantizing weights", done: 30, total: 57, unit: "tensors")
        recorder.now = 0.9
        line.progress("quantizing weights", done: 57, total: 57, unit: "tensors")
        line.finished()
        XCTAssertEqual(recorder.written, "", "work under a second shows nothing, and clears nothing")
    }

    func testTheLineIsRedrawnInPlaceAndClearedWhenTheTaskEnds() {
        let recorder = Recorder(), line = makeLine(recorder)
        line.progress("quantizing weights", done: 0, total: 57, unit: "tensors")
        recorder.now = 1.2
        line.progress("quantizing weights", done: 12, total: 57, unit: "tensors")
        recorder.now = 1.25
        line.progress("quantizing weights", done: 13, total: 57, unit: "tensors")  // too soon after the last redraw
        recorder.now = 1.4
        line.progress("quantizing weights", done: 14, total: 57, unit: "tensors")
        line.progress("quantizing weights", done: 57, total: 57, unit: "tensors")  // the last count is always drawn
        line.finished()
        XCTAssertEqual(recorder.written, "\r\u{1B}[Kquantizing weights: 12/57 tensors" + "\r\u{1B}[Kquantizing weights: 14/57 tensors"
                       + "\r\u{1B}[Kquantizing weights: 57/57 tensors" + "\r\u{1B}[K")
    }

    func testANewTaskWaitsItsOwnSecondAndOtherOutputClearsTheLine() {
        let recorder = Recorder(), line = makeLine(recorder)
        line.progress("quantizing weights", done: 0, total: 2, unit: "tensors")
        recorder.now = 5
        line.progress("fidelity report", done: 1, total: 8, unit: "layers run")
        XCTAssertEqual(recorder.written, "")
        recorder.now = 6.5
        line.progress("fidelity report", done: 2, total: 8, unit: "layers run")
        line.interrupt()
        XCTAssertEqual(recorder.written, "\r\u{1B}[Kfidelity report: 2/8 layers run\r\u{1B}[K")
        line.interrupt()  // nothing shown: nothing to clear
        recorder.now = 6.55
        line.progress("fidelity report", done: 3, total: 8, unit: "layers run")  // drawn again at once
        XCTAssertTrue(recorder.written.hasSuffix("\r\u{1B}[Kfidelity report: 3/8 layers run"), recorder.written)
    }

    func testTheLineIsAtMostItsWidthAndEscapesNames() {
        let recorder = Recorder(), line = makeLine(recorder, width: 500)
        let name = "predicting " + String(repeating: "x", count: 300) + "\u{1B}[31m"
        line.progress(name, done: 0, total: 1, unit: "images")
        recorder.now = 2
        line.progress(name, done: 1, total: 1, unit: "images")
        let drawn = recorder.written.replacingOccurrences(of: "\r\u{1B}[K", with: "")
        XCTAssertEqual(drawn.count, ProgressLine.maximumWidth, "bounded by 100 columns whatever the width asked")
        XCTAssertFalse(drawn.contains("\u{1B}"), "a name's escape sequence is not sent to the terminal")
        let narrow = Recorder(), small = makeLine(narrow, width: 40)
        small.progress(name, done: 0, total: 1, unit: "images")
        narrow.now = 2
        small.progress(name, done: 1, total: 1, unit: "images")
        XCTAssertEqual(narrow.written.replacingOccurrences(of: "\r\u{1B}[K", with: "").count, 40)
    }

    func testOnlyATerminalThatUnderstandsItGetsALine() {
        XCTAssertNotNil(ProgressLine.forStandardError(quiet: false, isTerminal: true, environment: ["TERM": "xterm"]))
        XCTAssertNil(ProgressLine.forStandardError(quiet: false, isTerminal: false, environment: ["TERM": "xterm"]), "a file or a pipe")
        XCTAssertNil(ProgressLine.forStandardError(quiet: true, isTerminal: true, environment: ["TERM": "xterm"]), "--quiet or --json")
        XCTAssertNil(ProgressLine.forStandardError(quiet: false, isTerminal: true, environment: ["TERM": "dumb"]), "no ESC[K")
    }
}

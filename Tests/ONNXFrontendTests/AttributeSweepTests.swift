import Foundation
@testable import ONNXFrontend
import SweepSupport
import TestSupport
import XCTest

/// The ONNX attribute sweep (scripts/fixtures/make_onnx_sweep.py): every
/// case converted and equal to onnxruntime's output, or refused naming the
/// attribute; and every op the converter takes has a ledger.
final class AttributeSweepTests: XCTestCase {
    func testEveryOpHasALedger() {
        XCTAssertEqual(ONNXLedgers.ledgers.missing(for: ONNXLedgers.known), [])
        XCTAssertEqual(ONNXLedgers.ledgers.missing(for: ONNXOpTable.mappings.keys), [])
        XCTAssertEqual(ONNXLedgers.ledgers.missing(for: ONNXFolding.foldable), [])
    }

    func testSweep() throws {
        try runAttributeSweep("onnx") { folder, testCase in
            try ONNXConverter.convert(model: folder.appendingPathComponent(testCase.files[0]).path)
        }
    }
}

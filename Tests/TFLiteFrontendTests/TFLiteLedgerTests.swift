@testable import TFLiteFrontend
import XCTest

/// Every mapped operator declares what it does with each option (DESIGN 20),
/// and every option a ledger names is a field of the operator's options table.
final class TFLiteLedgerTests: XCTestCase {
    func testEveryMappingHasALedger() {
        XCTAssertEqual(TFLiteOptions.ledgers.missing(for: TFLiteOpTable.mappings.keys), [])
    }

    func testLedgersNameFieldsOfTheSchema() {
        for (op, ledger) in TFLiteOptions.ledgers.ledgers {
            XCTAssertNotNil(TFLiteOpTable.mappings[op], "\(op) has a ledger but no mapping")
            let fields = TFLiteOptions.expectedTypes[op].flatMap { TFLiteOptions.tables[$0] }?.fields.map(\.name) ?? []
            for name in ledger.rules.keys { XCTAssertTrue(fields.contains(name), "\(op): \(name) is not a field of its options") }
        }
    }

    /// The names TFLite's schema gives the numbers the op table keys on.
    func testOperatorNumbers() {
        let numbers = ["ADD": 0, "AVERAGE_POOL_2D": 1, "CONCATENATION": 2, "CONV_2D": 3, "DEPTHWISE_CONV_2D": 4, "FULLY_CONNECTED": 9,
                       "LOGISTIC": 14, "MAX_POOL_2D": 17, "MUL": 18, "RELU": 19, "RELU_N1_TO_1": 20, "RELU6": 21, "RESHAPE": 22,
                       "RESIZE_BILINEAR": 23, "SOFTMAX": 25, "TANH": 28, "PAD": 34, "MEAN": 40, "SUB": 41, "RESIZE_NEAREST_NEIGHBOR": 97, "HARD_SWISH": 117, "DEQUANTIZE": 6, "QUANTIZE": 114]
        XCTAssertEqual(Set(numbers.keys), Set(TFLiteOpTable.mappings.keys))
        for (name, number) in numbers { XCTAssertEqual(TFLiteOperators.name(Int32(number)), name) }
    }
}

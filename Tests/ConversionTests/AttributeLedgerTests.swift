import Conversion
import XCTest

final class AttributeLedgerTests: XCTestCase {
    let ledger = AttributeLedger(honours: ["mode"], inert: ["name"], only: ["nearest_mode": "round_prefer_floor"])

    func testHonouredAndInertAttributesPassAtAnyValue() {
        XCTAssertTrue(ledger.refused([("mode", "nearest"), ("name", "x")]).isEmpty)
    }

    func testAnAttributeAcceptedAtOneValueIsRefusedAtAnother() {
        XCTAssertTrue(ledger.refused([("nearest_mode", "round_prefer_floor")]).isEmpty)
        XCTAssertEqual(ledger.refused([("nearest_mode", "ceil")]).map(\.name), ["nearest_mode"])
        XCTAssertEqual(AttributeLedger.message(refusing: ledger.refused([("nearest_mode", "ceil")])),
                       "nearest_mode 'ceil' is not supported")
    }

    func testAnUnlistedAttributeIsRefusedWhateverItsValue() {
        let refused = ledger.refused([("antialias", "0"), ("mode", "linear"), ("cubic_coeff_a", "-0.5")])
        XCTAssertEqual(refused.map(\.name), ["antialias", "cubic_coeff_a"])
        XCTAssertEqual(AttributeLedger.message(refusing: refused), "attributes antialias '0', cubic_coeff_a '-0.5' are not supported")
    }

    func testAnOpWithoutALedgerAllowsNoAttribute() {
        let ledgers = AttributeLedgers(["Relu": .none, "Resize": ledger])
        XCTAssertNil(ledgers.refusal(op: "Relu", present: []))
        XCTAssertEqual(ledgers.refusal(op: "Mystery", present: [("k", "1")]), "k '1' is not supported")
        XCTAssertEqual(ledgers.missing(for: ["Relu", "Conv", "Add"]), ["Add", "Conv"])
    }

    func testAnAttributeGivenTwiceIsRefused() {
        let ledgers = AttributeLedgers(["Resize": ledger])
        XCTAssertEqual(ledgers.refusal(op: "Resize", present: [("mode", "nearest"), ("mode", "linear")]),
                       "attribute mode is given more than once")
    }

    func testValuesAreShownOnOneLineAndCut() {
        let message = AttributeLedger.message(refusing: [("s", "a\nb\u{1B}c" + String(repeating: "x", count: 100))])
        XCTAssertFalse(message.contains("\n"))
        XCTAssertFalse(message.contains("\u{1B}"))
        XCTAssertLessThan(message.count, 90)
    }
}

import XCTest
import ModelFormat

/// The one message every graph frontend gives for the op types it does not take.
final class UnsupportedOpsTests: XCTestCase {
    func testTypesInTheOrderFirstMetEachWithItsFirstThreeNodes() {
        var ops = UnsupportedOps()
        XCTAssertTrue(ops.isEmpty)
        for (op, node) in [("LSTM", "l1"), ("Erf", "e"), ("LSTM", "l2"), ("LSTM", "l3"), ("LSTM", "l4")] { ops.add(op, node: node) }
        XCTAssertFalse(ops.isEmpty)
        XCTAssertEqual(ops.list.map(\.op), ["LSTM", "Erf"])
        XCTAssertEqual(ops.list[0].nodes, ["l1", "l2", "l3", "l4"])
        XCTAssertEqual(ops.message(), "5 nodes of 2 unsupported op types: LSTM x4 (l1, l2, l3, ...); Erf x1 (e)")
    }

    func testOneIsSingularInTheFrameworksWords() {
        var ops = UnsupportedOps()
        ops.add("GELU", node: "out")
        XCTAssertEqual(ops.message(nodeNoun: "operator"), "1 operator of 1 unsupported op type: GELU x1 (out)")
        XCTAssertEqual(ops.message(nodeNoun: "layer", typeNoun: "layer type"), "1 layer of 1 unsupported layer type: GELU x1 (out)")
    }
}

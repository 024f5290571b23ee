import Inspection
import ModelFormat
import XCTest

/// How a model that parses but does not convert is shown: each obstacle
/// one line cut to 100 columns, at most 40 listed and the rest counted,
/// op types beyond a dozen counted; the JSON keeps every obstacle whole.
final class SourceOutlineTests: XCTestCase {
    func outline(obstacles: Int, opTypes: Int, name: String) -> InspectedModel {
        let nodes = (0..<opTypes).map { SourceOutline.Node(name: "\(name)\($0)", op: "Op\($0)", inputs: ["x"], outputs: ["y\($0)"]) }
        let list = (0..<obstacles).map { index in
            SourceOutline.Obstacle(kind: .unsupportedOp, message: "op Op\(index) is not supported: 1 node, first '\(name)\(index)'",
                                   op: "Op\(index)", count: 1, node: "\(name)\(index)")
        }
        let source = SourceOutline(inputs: [.init(name: "x", shape: ["batch", "3", "?"], type: "float32")], outputs: [.init(name: "y", shape: nil, type: "")],
                                   nodes: nodes, weightTensors: 2, parameters: 1234, obstacles: list)
        return InspectedModel(path: "m.onnx", format: FileFormatInfo(id: "onnx", name: "ONNX model"), outline: source)
    }

    func testObstaclesAreOneLineEachAndBounded() {
        let long = String(repeating: "n", count: 300) + "\u{1B}[2J"
        let text = SummaryText.render(outline(obstacles: 100, opTypes: 30, name: long))
        let lines = text.split(separator: "\n")
        XCTAssertTrue(lines.allSatisfy { $0.count <= 100 }, text)
        XCTAssertFalse(text.contains("\u{1B}"), text)
        XCTAssertEqual(lines.filter { $0.hasPrefix("  op Op") }.count, 40, text)
        XCTAssertTrue(text.contains("Cannot convert: 100 obstacles"), text)
        XCTAssertTrue(text.contains("  ... and 60 more (InspectionJSON lists every one)"), text)
        XCTAssertTrue(text.contains(", and 18 more op types"), text)
        XCTAssertTrue(text.contains("  x: float32 [batch, 3, ?]"), text)
        XCTAssertTrue(text.contains("Parameters:   1,234 in 2 stored tensors"), text)
    }

    func testJSONKeepsEveryObstacleWhole() throws {
        let name = String(repeating: "n", count: 300)
        let document = InspectionJSON.document(outline(obstacles: 100, opTypes: 3, name: name), weightStatistics: false)
        XCTAssertEqual(document["convertible"], .bool(false))
        XCTAssertEqual(document["kind"], .string("unconverted"))
        guard case .array(let obstacles)? = document["obstacles"] else { return XCTFail("no obstacles") }
        XCTAssertEqual(obstacles.count, 100)
        XCTAssertEqual(obstacles[99]["node"], .string(name + "99"))
        guard case .array(let inputs)? = document["inputs"] else { return XCTFail("no inputs") }
        XCTAssertEqual(inputs.first?["shape"], JSON.array([JSON.string("batch"), JSON.int(3), JSON.null]))
    }
}

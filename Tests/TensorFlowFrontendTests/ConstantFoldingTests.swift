@testable import TensorFlowFrontend
import XCTest

/// The constant folder's NumPy broadcasting, against the definition
/// (out[i] = f(a[i with a's size-1 axes at 0], b[likewise]); a size-1 axis
/// takes the other operand's size, 0 included) evaluated index by index
/// here, and its caps on what it makes.
final class ConstantFoldingTests: XCTestCase {
    func node(_ op: String) -> TFNode {
        TFNode(name: "n", op: op, inputs: [], attributeEntries: UnsafeBufferPointer(start: nil, count: 0))
    }

    func ramp(_ shape: [Int], from start: Double) -> TFConstant {
        TFConstant(shape: shape, values: (0..<shape.reduce(1, *)).map { start + Double($0) })
    }

    /// The reference: every output index mapped to each operand's index.
    func reference(_ a: TFConstant, _ b: TFConstant, _ f: (Double, Double) -> Double) -> (shape: [Int], values: [Double]) {
        let rank = max(a.shape.count, b.shape.count)
        let sa = Array(repeating: 1, count: rank - a.shape.count) + a.shape
        let sb = Array(repeating: 1, count: rank - b.shape.count) + b.shape
        let shape = zip(sa, sb).map { $0 == 1 ? $1 : $0 }
        func flat(_ index: [Int], in sizes: [Int]) -> Int {
            zip(index, sizes).reduce(0) { $0 * $1.1 + ($1.1 == 1 ? 0 : $1.0) }
        }
        var values: [Double] = []
        var index = [Int](repeating: 0, count: rank)
        for _ in 0..<shape.reduce(1, *) {
            values.append(f(a[flat(index, in: sa)], b[flat(index, in: sb)]))
            var axis = rank - 1
            while axis >= 0 {
                index[axis] += 1
                if index[axis] < shape[axis] { break }
                index[axis] = 0
                axis -= 1
            }
        }
        return (shape, values)
    }

    func testBroadcastingMatchesTheDefinition() throws {
        let cases: [([Int], [Int])] = [
            ([], []), ([3], []), ([], [4]), ([2, 3], [2, 3]), ([2, 1, 3], [1, 4, 1]), ([4, 1], [1, 5]),
            ([3], [2, 3]), ([2, 1], [3]), ([1, 2, 1, 3], [2, 1, 1]), ([0, 3], [1, 3]), ([2, 3, 1], [1, 1, 1]),
        ]
        for (shapeA, shapeB) in cases {
            let a = ramp(shapeA, from: 1), b = ramp(shapeB, from: 100)
            for (op, f) in [("Mul", { (x: Double, y: Double) in x * y }), ("Sub", { $0 - $1 }), ("Maximum", { max($0, $1) })] {
                let folded = try XCTUnwrap(try ConstantEvaluator.evaluate(node(op), [a, b]))
                let expected = reference(a, b, f)
                XCTAssertEqual(folded.shape, expected.shape, "\(op) \(shapeA) \(shapeB)")
                XCTAssertEqual(folded.values, expected.values, "\(op) \(shapeA) \(shapeB)")
            }
        }
    }

    func testIncompatibleShapesAreRefused() {
        XCTAssertThrowsError(try ConstantEvaluator.evaluate(node("Add"), [ramp([2, 3], from: 0), ramp([4], from: 0)])) { error in
            XCTAssertTrue("\(error)".contains("cannot broadcast [2, 3] with [4]"), "\(error)")
        }
    }

    /// A result larger than what the conversion may still make is refused
    /// before any of it is computed.
    func testTheBudgetIsCheckedBeforeComputing() {
        let a = ramp([64, 1], from: 0), b = ramp([1, 64], from: 0)
        XCTAssertNoThrow(try ConstantEvaluator.evaluate(node("Mul"), [a, b], budget: 4096))
        XCTAssertThrowsError(try ConstantEvaluator.evaluate(node("Mul"), [a, b], budget: 4095)) { error in
            XCTAssertTrue("\(error)".contains("folding would make 4096 more values: the constants made so far hold"), "\(error)")
        }
        XCTAssertThrowsError(try ConstantEvaluator.evaluate(node("Rsqrt"), [ramp([100], from: 1)], budget: 99))
        XCTAssertThrowsError(try ConstantEvaluator.evaluate(node("Pack"), [a, a], budget: 127))
    }
}

import CoreMLBackend
import Foundation
import ModelFormat
import Runtime
import TestSupport
import XCTest

/// A rank-N model built in code: [1, 16, 64] through matmul, GELU, add,
/// matmul, softmax over the last axis, matmul and transpose. The same
/// block that coremltools' NeuralNetworkBuilder wrote for the runtime
/// fixture `rank_n_attention` (numpy's reference output, TensorFlow's
/// cross-check), here written by our writer: coremltools checks its fields
/// (`rank_n_attention.expect.json`), our reader reads back what was built
/// and what coremltools built, and the runtime computes numpy's output.
final class RankNModelTests: XCTestCase {
    let fixture = runtimeFixtures.appendingPathComponent("rank_n_attention")

    func model() throws -> Model {
        let weights = try NumpyFile.read(path: fixture.appendingPathComponent("weights_fc.npy").path)
        let bias = try NumpyFile.read(path: fixture.appendingPathComponent("bias_fc.npy").path)
        XCTAssertEqual(weights.shape, [64, 64])
        func node(_ name: String, _ op: Op, _ inputs: [String]) -> Node {
            Node(name: name, operation: op, inputs: inputs, outputs: [name])
        }
        return Model(
            inputs: [Input(name: "x", kind: .tensor(shape: [1, 16, 64]))],
            outputs: [Output(name: "y", shape: [1, 64, 16])],
            nodes: [
                node("fc", .defined(MatMul(inputChannels: 64, outputChannels: 64, weights: Weights(weights.values),
                                           bias: Weights(bias.values))), ["x"]),
                node("gelu", .defined(GELU(mode: .exact)), ["fc"]),
                node("residual", .add(constant: 0), ["gelu", "x"]),
                node("scores", .defined(MatMul(transposeB: true)), ["residual", "residual"]),
                node("attention", .defined(Softmax(axis: -1)), ["scores"]),
                node("context", .defined(MatMul()), ["attention", "residual"]),
                node("y", .defined(Transpose(axes: [0, 2, 1])), ["context"]),
            ])
    }

    func testTheShapesAreRankN() throws {
        let shapes = try model().validate()
        XCTAssertEqual(shapes["x"], TensorShape([1, 16, 64]))
        XCTAssertEqual(shapes["scores"], TensorShape([1, 16, 16]))
        XCTAssertEqual(shapes["y"], TensorShape([1, 64, 16]))
    }

    func testWrittenReadAndRunItComputesWhatNumpyDoes() throws {
        let built = try model()
        let path = checkDirectory.appendingPathComponent("rank_n_attention.mlmodel").path
        try CoreMLWriter.write(built, to: path)
        let expectation = repositoryRoot.appendingPathComponent("Tests/Fixtures/expect/rank_n_attention.expect.json")
        let target = path.replacingOccurrences(of: ".mlmodel", with: ".expect.json")
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: expectation.path, toPath: target)

        let file = try CoreMLReader.read(from: path)
        XCTAssertEqual(file.specificationVersion, 4)
        XCTAssertEqual(file.model, built)
        // coremltools' own file of the same block reads as the same layers.
        let theirs = try CoreMLReader.read(from: fixture.appendingPathComponent("model.mlmodel").path).model
        XCTAssertEqual(theirs.inputs, built.inputs)
        XCTAssertEqual(theirs.nodes, built.nodes)

        let input = try NumpyFile.read(path: fixture.appendingPathComponent("input_x.npy").path)
        let reference = try NumpyFile.read(path: fixture.appendingPathComponent("output_y.npy").path)
        let prediction = try Network(file.model).predict(["x": .array(Tensor(shape: TensorShape(input.shape), values: input.values))])
        let y = try XCTUnwrap(prediction.outputs["y"])
        XCTAssertEqual(y.shape, TensorShape([1, 64, 16]))
        XCTAssertEqual(reference.shape, [1, 64, 16])
        XCTAssertNil(worstMismatch(y.values, reference.values))
    }

    /// Each GELU mode against its formula in double precision.
    func testGELUModes() throws {
        let xs: [Float] = [-6, -3, -1.5, -0.5, 0, 0.25, 1, 2.5, 7]
        let formulas: [(GELU.Mode, (Double) -> Double)] = [
            (.exact, { 0.5 * $0 * (1 + erf($0 / 2.0.squareRoot())) }),
            (.tanhApproximation, { 0.5 * $0 * (1 + tanh((2 / Double.pi).squareRoot() * ($0 + 0.044715 * $0 * $0 * $0))) }),
            (.sigmoidApproximation, { $0 / (1 + exp(-1.702 * $0)) }),
        ]
        for (mode, formula) in formulas {
            let model = Model(inputs: [Input(name: "x", kind: .tensor(shape: [xs.count]))], outputs: [Output(name: "y")],
                              nodes: [Node("y", .defined(GELU(mode: mode)), input: "x")])
            let path = try temporaryFolder().appendingPathComponent("gelu.mlmodel").path
            try CoreMLWriter.write(model, to: path)
            let read = try CoreMLReader.read(from: path).model
            XCTAssertEqual(read, model)
            let y = try XCTUnwrap(Network(read).predict(["x": .array(Tensor(shape: TensorShape([xs.count]), values: xs))]).outputs["y"])
            XCTAssertNil(worstMismatch(y.values, xs.map { Float(formula(Double($0))) }), "\(mode)")
        }
    }

    /// Broadcasting, batched products and transposes of ranks 1 to 4,
    /// against their index definitions written out as loops.
    func testRankNKernelsFollowTheirIndexDefinitions() throws {
        func run(_ op: Op, _ inputs: [(shape: [Int], values: [Float])]) throws -> Tensor {
            let names = inputs.indices.map { "x\($0)" }
            let model = Model(inputs: zip(names, inputs).map { Input(name: $0, kind: .tensor(shape: $1.shape)) },
                              outputs: [Output(name: "y")], nodes: [Node(name: "y", operation: op, inputs: names, outputs: ["y"])])
            var values: [String: InputValue] = [:]
            for (name, input) in zip(names, inputs) { values[name] = .array(Tensor(shape: TensorShape(input.shape), values: input.values)) }
            return try XCTUnwrap(Network(model).predict(values).outputs["y"])
        }
        let a = (0..<8).map { Float($0) }, b = (0..<3).map { Float($0 * 10) }
        // [2, 1, 4] + [3, 1] -> [2, 3, 4]: y[i, j, k] = a[i, 0, k] + b[j, 0].
        let sum = try run(.add(constant: 0), [([2, 1, 4], a), ([3, 1], b)])
        XCTAssertEqual(sum.shape, TensorShape([2, 3, 4]))
        var expected: [Float] = []
        for i in 0..<2 { for j in 0..<3 { for k in 0..<4 { expected.append(a[i * 4 + k] + b[j]) } } }
        XCTAssertEqual(sum.values, expected)

        // [2, 3, 4, 5] transposed by [3, 1, 0, 2]: y[l, j, i, k] = x[i, j, k, l].
        let x = (0..<120).map { Float($0) }
        let transposed = try run(.defined(Transpose(axes: [3, 1, 0, 2])), [([2, 3, 4, 5], x)])
        XCTAssertEqual(transposed.shape, TensorShape([5, 3, 2, 4]))
        expected = []
        for l in 0..<5 { for j in 0..<3 { for i in 0..<2 { for k in 0..<4 { expected.append(x[((i * 3 + j) * 4 + k) * 5 + l]) } } } }
        XCTAssertEqual(transposed.values, expected)

        // [2, 1, 2, 3] x [3, 3, 2] -> [2, 3, 2, 2]: y[p, q] = sum_k a[p, 0] [.., k] * b[q] [k, ..].
        let m = (0..<12).map { Float($0 % 7) - 3 }, n = (0..<18).map { Float($0 % 5) - 2 }
        let product = try run(.defined(MatMul()), [([2, 1, 2, 3], m), ([3, 3, 2], n)])
        XCTAssertEqual(product.shape, TensorShape([2, 3, 2, 2]))
        expected = []
        for p in 0..<2 { for q in 0..<3 { for r in 0..<2 { for c in 0..<2 {
            expected.append((0..<3).reduce(0) { $0 + m[p * 6 + r * 3 + $1] * n[q * 6 + $1 * 2 + c] })
        } } } }
        XCTAssertEqual(product.values, expected)

        // Softmax along the middle axis of [2, 3, 2].
        let s = (0..<12).map { Float($0) / 4 }
        let softmax = try run(.defined(Softmax(axis: 1)), [([2, 3, 2], s)])
        for i in 0..<2 { for k in 0..<2 {
            let column = (0..<3).map { s[(i * 3 + $0) * 2 + k] }
            let total = column.map { exp(Double($0)) }.reduce(0, +)
            for j in 0..<3 {
                XCTAssertEqual(Double(softmax.values[(i * 3 + j) * 2 + k]), exp(Double(column[j])) / total, accuracy: 1e-6)
            }
        } }

        // Log-softmax along the middle axis, with values 2000 apart: exp of them overflows
        // and log(softmax) underflows in float32; in double, log(sum(exp(x - max))) does not.
        let spread = s.enumerated().map { $0.offset == 2 ? 1000 : $0.offset == 6 ? -1000 : $0.element }
        let logSoftmax = try run(.defined(LogSoftmax(axis: 1)), [([2, 3, 2], spread)])
        for i in 0..<2 { for k in 0..<2 {
            let column = (0..<3).map { Double(spread[(i * 3 + $0) * 2 + k]) }
            let largest = column.max()!
            let logSum = log(column.map { exp($0 - largest) }.reduce(0, +))
            for j in 0..<3 {
                XCTAssertEqual(Double(logSoftmax.values[(i * 3 + j) * 2 + k]), column[j] - largest - logSum, accuracy: 1e-4 * max(1, abs(column[j] - largest)))
            }
        } }
    }

    /// The layout block of the fixture `rank_n_layout`, built in code: the
    /// layers coremltools wrote read back as these, ours write and read
    /// back the same, and they compute numpy's outputs.
    func testLayoutModelBuiltInCodeIsWhatCoremltoolsWrote() throws {
        let folder = runtimeFixtures.appendingPathComponent("rank_n_layout")
        func node(_ name: String, _ op: Op, _ inputs: [String]) -> Node { Node(name: name, operation: op, inputs: inputs, outputs: [name]) }
        let built = Model(
            inputs: [Input(name: "x", kind: .tensor(shape: [2, 3, 4])), Input(name: "z", kind: .tensor(shape: [2, 5, 4]))],
            outputs: [Output(name: "reshaped", shape: [3, 6]), Output(name: "summed", shape: [2, 1, 3]), Output(name: "mean", shape: [3]),
                      Output(name: "largest", shape: [2, 8, 1]), Output(name: "smallest", shape: [2, 3]),
                      Output(name: "product", shape: [1, 3, 1])],
            nodes: [
                node("joined", .defined(Concat(axis: 1)), ["x", "z"]),
                node("sliced", .slice(Slice(begin: [0, 1, 1], end: [2, 7, 4], strides: [1, 2, 1])), ["joined"]),
                node("reshaped", .reshape(targetShape: [3, 6]), ["sliced"]),
                node("summed", .reduce(Reduce(mode: .sum, axes: [1])), ["sliced"]),
                node("mean", .reduce(Reduce(mode: .average, axes: [0, 2], keepDimensions: false)), ["sliced"]),
                node("largest", .reduce(Reduce(mode: .max, axes: [-1])), ["joined"]),
                node("smallest", .reduce(Reduce(mode: .min, axes: [-1], keepDimensions: false)), ["sliced"]),
                node("product", .reduce(Reduce(mode: .product, axes: [0, 2])), ["sliced"]),
            ])
        let theirs = try CoreMLReader.read(from: folder.appendingPathComponent("model.mlmodel").path).model
        XCTAssertEqual(theirs.nodes, built.nodes)
        XCTAssertEqual(theirs.inputs, built.inputs)

        let path = checkDirectory.appendingPathComponent("rank_n_layout.mlmodel").path
        try CoreMLWriter.write(built, to: path)
        let expectation: [String: Any] = [
            "specificationVersion": 4, "arrayInputShapeMapping": "EXACT_ARRAY_MAPPING",
            "inputs": [["name": "x", "shape": [2, 3, 4]], ["name": "z", "shape": [2, 5, 4]]],
            "layers": [
                ["name": "joined", "type": "concatND", "params": ["axis": 1]],
                ["name": "sliced", "type": "sliceStatic", "params": ["beginIds": [0, 1, 1], "endIds": [2, 7, 4], "strides": [1, 2, 1],
                                                                    "beginMasks": [false, false, false]]],
                ["name": "reshaped", "type": "reshapeStatic", "params": ["targetShape": [3, 6]]],
                ["name": "summed", "type": "reduceSum", "params": ["axes": [1], "keepDims": true]],
                ["name": "mean", "type": "reduceMean", "params": ["axes": [0, 2], "keepDims": false]],
                ["name": "largest", "type": "reduceMax", "params": ["axes": [-1], "keepDims": true]],
                ["name": "smallest", "type": "reduceMin", "params": ["axes": [-1], "keepDims": false]],
                ["name": "product", "type": "reduceProd", "params": ["axes": [0, 2], "keepDims": true]],
            ],
        ]
        try JSONSerialization.data(withJSONObject: expectation, options: [.prettyPrinted, .sortedKeys])
            .write(to: checkDirectory.appendingPathComponent("rank_n_layout.expect.json"))
        let read = try CoreMLReader.read(from: path).model
        XCTAssertEqual(read, built)

        var inputs: [String: InputValue] = [:]
        for name in ["x", "z"] {
            let array = try NumpyFile.read(path: folder.appendingPathComponent("input_\(name).npy").path)
            inputs[name] = .array(Tensor(shape: TensorShape(array.shape), values: array.values))
        }
        let prediction = try Network(read).predict(inputs)
        for output in built.outputs {
            let reference = try NumpyFile.read(path: folder.appendingPathComponent("output_\(output.name).npy").path)
            let ours = try XCTUnwrap(prediction.outputs[output.name])
            XCTAssertEqual(ours.shape.dimensions, reference.shape, output.name)
            XCTAssertNil(worstMismatch(ours.values, reference.values), output.name)
        }
    }
}

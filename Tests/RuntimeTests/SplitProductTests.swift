import ModelFormat
import Runtime
import XCTest

/// Products large enough that the runtime cuts them into bands, one per
/// core (OpenBLAS itself runs single-threaded): along the columns of a wide
/// result, along the rows of a tall one, and an inner product's rows. Each
/// must compute what plain loops in double precision do, bias and a folded
/// ReLU included, and a residual add with its ReLU folded in likewise.
final class SplitProductTests: XCTestCase {
    static func values(_ count: Int, seed: Int) -> [Float] {
        (0..<count).map { Float(($0 * 7919 + seed * 104_729) % 201) / 100 - 1 }
    }

    func run(_ model: Model, _ input: [Float], shape: TensorShape) throws -> (values: [Float], steps: [String]) {
        var steps: [String] = []
        let prediction = try Network(model).predict(["x": .array(Tensor(shape: shape, values: input))],
                                                    profile: { name, _ in steps.append(name) })
        return (try XCTUnwrap(prediction.outputs["y"]?.values), steps)
    }

    func assertClose(_ ours: [Float], _ reference: [Double], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(ours.count, reference.count, message, file: file, line: line)
        let worst = zip(ours, reference).map { abs(Double($0) - $1) / max(1, abs($1)) }.max() ?? 0
        XCTAssertLessThanOrEqual(worst, 1e-4, message, file: file, line: line)
    }

    /// 3x3 convolutions, pad 1, with bias and a folded ReLU: 40 x 24 x 24 (wide: bands of columns)
    /// and 96 x 6 x 6 (tall: bands of rows).
    func testConvolutionsComputeWhatLoopsDo() throws {
        for (outputs, size) in [(40, 24), (96, 6)] {
            let channels = 16
            let weights = Self.values(outputs * channels * 9, seed: 1), bias = Self.values(outputs, seed: 2)
            let conv = Convolution(outputChannels: outputs, kernelChannels: channels, kernel: Size2(square: 3),
                                   padding: .explicit(Edges(all: 1)), weights: Weights(weights), bias: Weights(bias))
            let model = Model(inputs: [Input(name: "x", kind: .array(shape: [channels, size, size]))], outputs: [Output(name: "y")],
                              nodes: [Node("conv", .convolution(conv), input: "x"),
                                      Node(name: "relu", operation: .activation(.relu), inputs: ["conv"], outputs: ["y"])])
            let x = Self.values(channels * size * size, seed: 3)
            var reference = [Double](repeating: 0, count: outputs * size * size)
            for o in 0..<outputs {
                for oy in 0..<size {
                    for ox in 0..<size {
                        var sum = Double(bias[o])
                        for c in 0..<channels {
                            for ky in 0..<3 {
                                for kx in 0..<3 {
                                    let (iy, ix) = (oy + ky - 1, ox + kx - 1)
                                    guard iy >= 0, iy < size, ix >= 0, ix < size else { continue }
                                    sum += Double(weights[((o * channels + c) * 3 + ky) * 3 + kx]) * Double(x[(c * size + iy) * size + ix])
                                }
                            }
                        }
                        reference[(o * size + oy) * size + ox] = max(sum, 0)
                    }
                }
            }
            let (ours, steps) = try run(model, x, shape: TensorShape(channels: channels, height: size, width: size))
            XCTAssertEqual(steps, ["conv+relu"])
            assertClose(ours, reference, "\(outputs)x\(size)x\(size)")
            XCTAssertTrue(ours.contains(0) && ours.contains { $0 > 0 })
        }
    }

    /// An inner product of 700 outputs from 900 inputs (bands of rows of the matrix-vector product).
    func testInnerProductComputesWhatLoopsDo() throws {
        let (rows, columns) = (700, 900)
        let weights = Self.values(rows * columns, seed: 4), bias = Self.values(rows, seed: 5), x = Self.values(columns, seed: 6)
        let product = InnerProduct(inputChannels: columns, outputChannels: rows, weights: Weights(weights), bias: Weights(bias))
        let model = Model(inputs: [Input(name: "x", kind: .array(shape: [columns]))], outputs: [Output(name: "y")],
                          nodes: [Node(name: "fc", operation: .innerProduct(product), inputs: ["x"], outputs: ["y"])])
        let reference = (0..<rows).map { r in
            (0..<columns).reduce(Double(bias[r])) { $0 + Double(weights[r * columns + $1]) * Double(x[$1]) }
        }
        assertClose(try run(model, x, shape: TensorShape(channels: columns, height: 1, width: 1)).values, reference, "fc")
    }

    /// A residual add of two [64, 20, 20] maps with the ReLU after it folded in.
    func testResidualAddWithItsReLUComputesWhatLoopsDo() throws {
        let shape = [64, 20, 20], count = 64 * 400
        let constant = Self.values(count, seed: 7)
        let model = Model(inputs: [Input(name: "x", kind: .array(shape: shape))], outputs: [Output(name: "y")],
                          nodes: [Node(name: "c", operation: .constant(shape: shape, data: Weights(constant)), inputs: [], outputs: ["c"]),
                                  Node(name: "add", operation: .add(constant: 0), inputs: ["x", "c"], outputs: ["sum"]),
                                  Node(name: "relu", operation: .activation(.relu), inputs: ["sum"], outputs: ["y"])])
        let x = Self.values(count, seed: 8)
        let (ours, steps) = try run(model, x, shape: TensorShape(channels: 64, height: 20, width: 20))
        XCTAssertEqual(steps, ["c", "add+relu"])
        assertClose(ours, zip(x, constant).map { max(Double($0) + Double($1), 0) }, "add+relu")
    }
}

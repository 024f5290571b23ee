import CoreMLBackend
import Foundation
import ModelFormat
import TestSupport
import XCTest

/// Hostile packages: a program written by `MLProgramWriter` (a tensor
/// model, a model of maps, and one with a compressed constant), its model.mlmodel corrupted byte by byte
/// with a fixed seed, read back and validated as `coreml-predict` and
/// `coreml-inspect` read a package. Each must be read or refused with an
/// error; a trap or crash ends the test process and fails the suite.
/// (fuzz-mlmodel reads bytes as a NeuralNetwork only; this reaches the
/// program reader, ProgramRaising.)
final class ProgramMutationTests: XCTestCase {
    func testCorruptedProgramsAreReadOrRefused() throws {
        let tensor = Model(inputs: [Input(name: "x", kind: .tensor(shape: [1, 4, 6]))], outputs: [Output(name: "y")], nodes: [
            Node(name: "t", operation: .defined(Transpose(axes: [0, 2, 1])), inputs: ["x"], outputs: ["t"]),
            Node(name: "r", operation: .reshape(targetShape: [1, 3, 8]), inputs: ["t"], outputs: ["r"]),
            Node(name: "s", operation: .slice(Slice(begin: [0, 1, 0], end: [1, 3, 8], strides: [1, 1, 2])), inputs: ["r"], outputs: ["s"]),
            Node(name: "m", operation: .reduce(Reduce(mode: .average, axes: [-1])), inputs: ["s"], outputs: ["m"]),
            Node(name: "y", operation: .defined(Softmax(axis: 1)), inputs: ["m"], outputs: ["y"]),
        ])
        var rng = SplitMix64(seed: 36)
        var outcomes = (read: 0, refused: 0)
        // The third: its inner product's weights compressed (constexpr_lut_to_dense), for the decompression's reading.
        for (name, model, compression) in [("tensor", tensor, nil), ("maps", SampleModel.classifier(), nil),
                                           ("compressed", SampleModel.classifier(), Precision.quantized(bits: 4, .kmeansLookupTable))] {
            let package = try temporaryFolder().appendingPathComponent("\(name).mlpackage").path
            try MLProgramWriter.write(model, to: package, compression: compression)
            let programPath = package + "/Data/com.apple.CoreML/model.mlmodel"
            let original = try Data(contentsOf: URL(fileURLWithPath: programPath))
            for _ in 0..<400 {
                var bytes = [UInt8](original)
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let at = Int.random(in: 0..<bytes.count, using: &rng)
                    bytes[at] = [0x00, 0xFF, 0x7F, 0x80, UInt8.random(in: 0...255, using: &rng)][Int.random(in: 0..<5, using: &rng)]
                }
                try Data(bytes).write(to: URL(fileURLWithPath: programPath))
                do {
                    let file = try CoreMLReader.read(from: package)
                    _ = try file.model.validate()
                    // Every weight computed (a compressed constant is decompressed only when its values are needed).
                    for node in file.model.nodes { for tensor in node.operation.weightTensors { _ = tensor.values.values } }
                    outcomes.read += 1
                } catch {
                    outcomes.refused += 1
                }
            }
        }
        // Both kinds of outcome happen: the corruption reaches past the decoder.
        XCTAssertGreaterThan(outcomes.read, 0)
        XCTAssertGreaterThan(outcomes.refused, 0)
    }

    /// A log-softmax is four operations in the program (max, offset, log-sum-exp, difference): read back as the one
    /// node, and refused by name when they are not that (a minimum where the maximum was: no sub but a log-softmax's).
    func testALogSoftmaxReadsBackOnlyWhole() throws {
        let model = Model(inputs: [Input(name: "x", kind: .tensor(shape: [1, 4, 6]))], outputs: [Output(name: "y")], nodes: [
            Node(name: "y", operation: .defined(LogSoftmax(axis: -1)), inputs: ["x"], outputs: ["y"]),
        ])
        let package = try temporaryFolder().appendingPathComponent("log_softmax.mlpackage").path
        try MLProgramWriter.write(model, to: package)
        let read = try CoreMLReader.read(from: package)
        XCTAssertEqual(read.model.nodes.map(\.operation), [.defined(LogSoftmax(axis: 2))])
        let counts = Dictionary(uniqueKeysWithValues: (read.program?.operationCounts ?? []).map { ($0.type, $0.count) })
        XCTAssertEqual([counts["reduce_max"], counts["sub"], counts["reduce_log_sum_exp"]], [1, 2, 1])

        let programPath = package + "/Data/com.apple.CoreML/model.mlmodel"
        let original = try Data(contentsOf: URL(fileURLWithPath: programPath))
        let swapped = try XCTUnwrap(String(data: original, encoding: .isoLatin1)?.replacingOccurrences(of: "reduce_max", with: "reduce_min"))
        try XCTUnwrap(swapped.data(using: .isoLatin1)).write(to: URL(fileURLWithPath: programPath))
        XCTAssertThrowsError(try CoreMLReader.read(from: package)) { error in
            XCTAssertTrue("\(error)".contains("sub 'y_offset' is not part of a log-softmax"), "\(error)")
            XCTAssertFalse("\(error)".contains("\n"), "\(error)")
        }
    }
}

import CoreMLBackend
import Foundation
import ModelFormat
import Runtime
import TestSupport
import XCTest

/// Log-softmax, written as two layers (reduceLogSumExp, then a
/// subtractBroadcastable) and read back as the one node it was written
/// for, or on a map below version 4 as the classic layers of version 1;
/// the fields as coremltools decodes them are checked by
/// scripts/check_mlmodels.py (ONNXOpTests leaves those files).
final class LogSoftmaxLayersTests: XCTestCase {
    func roundTrip(_ model: Model, _ name: String, minimumVersion: Int32 = 1, file: StaticString = #filePath, line: UInt = #line) throws -> CoreMLFile {
        let path = try temporaryFolder().appendingPathComponent("\(name).mlmodel").path
        try CoreMLWriter.write(model, to: path, minimumSpecificationVersion: minimumVersion)
        let read = try CoreMLReader.read(from: path)
        XCTAssertEqual(read.specificationVersion, 4, file: file, line: line)
        XCTAssertEqual(read.model, model, file: file, line: line)
        return read
    }

    /// On tensors, along any axis; the intermediate layer's name, taken
    /// here by an input, gets a suffix.
    func testOnTensorsAlongAnyAxisRoundTrips() throws {
        for axis in [0, 1, -1] {
            let model = Model(inputs: [Input(name: "y__logsumexp", kind: .tensor(shape: [2, 3, 4]))], outputs: [Output(name: "y", shape: [2, 3, 4])],
                              nodes: [Node("y", .defined(LogSoftmax(axis: axis)), input: "y__logsumexp")])
            _ = try roundTrip(model, "logsoftmax_tensor_\(axis)")
        }
    }

    /// On a [C, H, W] map, along C, H or W: at version 4 (asked for) the two
    /// layers, written with a batch axis and read back as the one node; by
    /// default the classic layers of version 1 (x - max, exp, a sum, its
    /// log subtracted), which compute log-softmax as its definition does,
    /// also for values 1000 below the largest of their line, where
    /// log(softmax) underflows. An axis counted from the front is refused.
    func testOnAMapAtVersion4OrLoweredToVersion1() throws {
        let input = Input(name: "x", kind: .array(shape: [3, 4, 5]))
        let values: [Float] = (0..<60).map { index in
            let spread = Float((index * 37) % 23) - 11
            return index % 7 == 0 ? spread - 1000 : spread
        }
        let feed: [String: InputValue] = ["x": .array(Tensor(shape: TensorShape([3, 4, 5]), values: values))]
        for axis in [-3, -2, -1] {
            let model = Model(inputs: [input], outputs: [Output(name: "y", shape: [3, 4, 5])], nodes: [Node("y", .defined(LogSoftmax(axis: axis)), input: "x")])
            _ = try roundTrip(model, "logsoftmax_map_v4_\(axis)", minimumVersion: 4)
            let path = try temporaryFolder().appendingPathComponent("logsoftmax_map_v1_\(axis).mlmodel").path
            try CoreMLWriter.write(model, to: path)
            let lowered = try CoreMLReader.read(from: path)
            XCTAssertEqual(lowered.specificationVersion, 1)
            XCTAssertEqual(lowered.model.nodes.map(\.name), ["y__max", "y__negated_max", "y__shifted", "y__exp", "y__sum", "y__log", "y__negated_log", "y"])
            XCTAssertEqual(lowered.model.nodes[0].operation, .reduce(Reduce(mode: .max, axes: [axis])))
            let y = try XCTUnwrap(try Network(lowered.model).predict(feed).outputs["y"]?.values)
            // log_softmax(x)_i = x_i - m - log(sum_j exp(x_j - m)), m the line's largest, in Double.
            let strides = [20, 5, 1], sizes = [3, 4, 5], along = axis + 3
            for index in 0..<60 {
                let position = index - (index / strides[along] % sizes[along]) * strides[along]
                let line = (0..<sizes[along]).map { Double(values[position + $0 * strides[along]]) }
                let largest = line.max()!
                let expected = Double(values[index]) - largest - log(line.map { exp($0 - largest) }.reduce(0, +))
                XCTAssertEqual(Double(y[index]), expected, accuracy: 1e-4 * max(1, abs(expected)), "axis \(axis), value \(index)")
            }
        }
        // The lowered layers' names are the model's own: an input called y__max keeps it.
        let taken = Model(inputs: [Input(name: "y__max", kind: .array(shape: [3, 4, 5]))], outputs: [Output(name: "y", shape: [3, 4, 5])],
                          nodes: [Node("y", .defined(LogSoftmax(axis: -3)), input: "y__max")])
        let takenPath = try temporaryFolder().appendingPathComponent("logsoftmax_taken.mlmodel").path
        try CoreMLWriter.write(taken, to: takenPath)
        let names = try CoreMLReader.read(from: takenPath).model.nodes.map(\.name)
        XCTAssertEqual(names.first, "y__max2")
        XCTAssertEqual(Set(names).count, 8)
        let front = Model(inputs: [input], outputs: [Output(name: "y")], nodes: [Node("y", .defined(LogSoftmax(axis: 0)), input: "x")])
        let path = try temporaryFolder().appendingPathComponent("front.mlmodel").path
        XCTAssertThrowsError(try CoreMLWriter.write(front, to: path)) { error in
            XCTAssertTrue("\(error)".contains("layer 'y': logSoftmax needs a model with tensor (rank-N) inputs"), "\(error)")
        }
    }

    /// A reduceLogSumExp layer not followed by the subtract of a
    /// log-softmax is refused with the layer's name (the subtract's layer
    /// type patched in the bytes to addBroadcastable: field 905 -> 880).
    func testALoneReduceLogSumExpIsRefused() throws {
        let model = Model(inputs: [Input(name: "x", kind: .tensor(shape: [2, 3]))], outputs: [Output(name: "y", shape: [2, 3])],
                          nodes: [Node("y", .defined(LogSoftmax(axis: -1)), input: "x")])
        let path = try temporaryFolder().appendingPathComponent("lone.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let subtract: [UInt8] = [0xCA, 0x38, 0x00], add: [UInt8] = [0x82, 0x37, 0x00]  // tag (905 << 3 | 2), empty message
        let at = try XCTUnwrap((0...(bytes.count - 3)).first { Array(bytes[$0..<($0 + 3)]) == subtract })
        bytes.replaceSubrange(at..<(at + 3), with: add)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try CoreMLReader.read(from: path)) { error in
            XCTAssertTrue("\(error)".contains("layer 'y__logsumexp': a reduceLogSumExp layer is read only as a log-softmax's first layer"), "\(error)")
        }
    }
}

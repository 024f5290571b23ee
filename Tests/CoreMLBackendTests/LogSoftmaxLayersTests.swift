import CoreMLBackend
import Foundation
import ModelFormat
import TestSupport
import XCTest

/// Log-softmax, written as two layers (reduceLogSumExp, then a
/// subtractBroadcastable) and read back as the one node it was written
/// for; the fields as coremltools decodes them are checked by
/// scripts/check_mlmodels.py (ONNXOpTests leaves those files).
final class LogSoftmaxLayersTests: XCTestCase {
    func roundTrip(_ model: Model, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> CoreMLFile {
        let path = try temporaryFolder().appendingPathComponent("\(name).mlmodel").path
        try CoreMLWriter.write(model, to: path)
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

    /// On a [C, H, W] map, written with a batch axis, an axis counted from
    /// the end means the same; one counted from the front is refused.
    func testOnAMapOnlyAlongAnAxisFromTheEnd() throws {
        let input = Input(name: "x", kind: .array(shape: [3, 4, 5]))
        let model = Model(inputs: [input], outputs: [Output(name: "y", shape: [3, 4, 5])], nodes: [Node("y", .defined(LogSoftmax(axis: -3)), input: "x")])
        _ = try roundTrip(model, "logsoftmax_map")
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

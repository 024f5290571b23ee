import CoreMLBackend
import Foundation
import ModelFormat
import TestSupport
import XCTest

/// One `Reduce`, two Core ML layers: the classic reduce layer over a map's
/// C, H, W, HW or CHW (kept) in a model of maps, and for the modes only it
/// has (argmax) on a [1, C, H, W] tensor; the rank-N reduce layers
/// otherwise. Each read back as the reduction it is; what neither layer
/// takes refused by name before any byte is written.
final class ReduceLayerTests: XCTestCase {
    /// In a model of tensors: an argmax over channels is the classic layer
    /// (axis C of [1, C, H, W]), an average over axis 1 reduceMean.
    func testATensorModelGetsTheClassicLayerOnlyForArgmax() throws {
        let model = Model(inputs: [Input(name: "x", kind: .tensor(shape: [1, 3, 4, 5]))],
                          outputs: [Output(name: "index", shape: [1, 1, 4, 5]), Output(name: "mean", shape: [1, 1, 4, 5])],
                          nodes: [Node("index", .reduce(Reduce(mode: .argmax, axes: [-3])), input: "x"),
                                  Node("mean", .reduce(Reduce(mode: .average, axes: [1])), input: "x")])
        let path = checkDirectory.appendingPathComponent("reduce_tensor_model.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let expectation: [String: Any] = [
            "specificationVersion": 4, "arrayInputShapeMapping": "EXACT_ARRAY_MAPPING",
            "layers": [["name": "index", "type": "reduce", "params": ["mode": "ARGMAX", "axis": "C"]],
                       ["name": "mean", "type": "reduceMean", "params": ["axes": [1], "keepDims": true]]],
        ]
        try JSONSerialization.data(withJSONObject: expectation, options: [.prettyPrinted, .sortedKeys])
            .write(to: checkDirectory.appendingPathComponent("reduce_tensor_model.expect.json"))
        XCTAssertEqual(try CoreMLReader.read(from: path).model, model)
    }

    /// In a model of maps: a sum over [0] of [C, H, W] (axis C counted
    /// from the front) is the classic layer, read back over C counted
    /// from the end.
    func testAMapModelGetsTheClassicLayer() throws {
        let model = Model(inputs: [Input(name: "x", kind: .array(shape: [3, 4, 5]))], outputs: [Output(name: "y", shape: [1, 4, 5])],
                          nodes: [Node("y", .reduce(Reduce(mode: .sumSquare, axes: [0])), input: "x")])
        let path = checkDirectory.appendingPathComponent("reduce_map_model.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let expectation: [String: Any] = [
            "specificationVersion": 1,
            "layers": [["name": "y", "type": "reduce", "params": ["mode": "SUMSQUARE", "axis": "C"]]],
        ]
        try JSONSerialization.data(withJSONObject: expectation, options: [.prettyPrinted, .sortedKeys])
            .write(to: checkDirectory.appendingPathComponent("reduce_map_model.expect.json"))
        var read = model
        read.nodes[0].operation = .reduce(Reduce(mode: .sumSquare, axes: [-3]))
        XCTAssertEqual(try CoreMLReader.read(from: path).model, read)
    }

    func testWhatNeitherLayerTakesIsRefused() throws {
        let map = Input(name: "x", kind: .array(shape: [3, 4, 5]))
        let batched = Input(name: "x", kind: .tensor(shape: [1, 3, 4, 5]))
        func refused(_ input: Input, _ reduce: Reduce, _ fragment: String, line: UInt = #line) throws {
            let model = Model(inputs: [input], outputs: [Output(name: "y")], nodes: [Node("y", .reduce(reduce), input: "x")])
            let path = try temporaryFolder().appendingPathComponent("refused.mlmodel").path
            XCTAssertThrowsError(try CoreMLWriter.write(model, to: path), line: line) { error in
                XCTAssertTrue("\(error)".contains(fragment), "\(error)", line: line)
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), line: line)
        }
        try refused(batched, Reduce(mode: .argmax, axes: [-3], keepDimensions: false),
                    "layer 'y': Core ML has no rank-N layer for a reduction of mode argmax: its reduce layer takes one over C, H, W, HW or CHW")
        try refused(batched, Reduce(mode: .l2, axes: [0, 1]), "layer 'y': Core ML has no rank-N layer for a reduction of mode l2")
        try refused(batched, Reduce(mode: .logSum, axes: [1]), "Core ML has no rank-N layer for a reduction of mode logSum")
        try refused(map, Reduce(mode: .sum, axes: [-1], keepDimensions: false), "layer 'y': reduceSum needs a model with tensor (rank-N) inputs")
        try refused(map, Reduce(mode: .argmax, axes: [-3, -1]), "layer 'y': Core ML has no rank-N layer for a reduction of mode argmax")
        try refused(Input(name: "x", kind: .tensor(shape: [3, 4, 5])), Reduce(mode: .l1, axes: [-1]),
                    "layer 'y': a reduce on tensor inputs is not written yet")
    }
}

import CoreMLBackend
import Foundation
import ModelFormat
import TestSupport
import XCTest

/// One `Slice`, two Core ML layers: the classic slice layer along one of a
/// map's C, H, W (of a [C, H, W] map or a [1, C, H, W] tensor), sliceStatic
/// over every axis; each read back as the slice it is (the expectations
/// checked by scripts/check_mlmodels.py against coremltools' reading); what
/// neither layer takes refused by name before any byte is written.
final class SliceLayerTests: XCTestCase {
    func write(_ model: Model, _ name: String, expecting expectation: [String: Any]) throws -> String {
        let path = checkDirectory.appendingPathComponent("\(name).mlmodel").path
        try CoreMLWriter.write(model, to: path)
        try JSONSerialization.data(withJSONObject: expectation, options: [.prettyPrinted, .sortedKeys])
            .write(to: checkDirectory.appendingPathComponent("\(name).expect.json"))
        return path
    }

    /// In a model of tensors: a slice of the width of [1, C, H, W] (bounds
    /// counted from the end kept as they are) is the classic layer, one over
    /// every axis sliceStatic.
    func testATensorModelGetsBothLayers() throws {
        let model = Model(inputs: [Input(name: "x", kind: .tensor(shape: [1, 3, 4, 6]))],
                          outputs: [Output(name: "w", shape: [1, 3, 4, 2]), Output(name: "e", shape: [1, 2, 2, 6])],
                          nodes: [Node("w", .slice(Slice(axis: .width, start: 1, end: -1, stride: 2)), input: "x"),
                                  Node("e", .slice(Slice(begin: [0, 1, 0, 0], end: [1, 3, 4, 6], strides: [1, 1, 2, 1])), input: "x")])
        let path = try write(model, "slice_tensor_model", expecting: [
            "specificationVersion": 4, "arrayInputShapeMapping": "EXACT_ARRAY_MAPPING",
            "layers": [["name": "w", "type": "slice", "params": ["axis": "WIDTH_AXIS", "startIndex": 1, "endIndex": -1, "stride": 2]],
                       ["name": "e", "type": "sliceStatic",
                        "params": ["beginIds": [0, 1, 0, 0], "endIds": [1, 3, 4, 6], "strides": [1, 1, 2, 1]]]],
        ])
        XCTAssertEqual(try CoreMLReader.read(from: path).model, model)
    }

    /// In a model of maps: a slice of rows from the third last to the last
    /// (left out) is the classic layer of specification 1.
    func testAMapModelGetsTheClassicLayer() throws {
        let model = Model(inputs: [Input(name: "x", kind: .array(shape: [3, 4, 5]))], outputs: [Output(name: "y", shape: [3, 2, 5])],
                          nodes: [Node("y", .slice(Slice(axis: .height, start: -3, end: -1)), input: "x")])
        let path = try write(model, "slice_map_model", expecting: [
            "specificationVersion": 1,
            "layers": [["name": "y", "type": "slice", "params": ["axis": "HEIGHT_AXIS", "startIndex": -3, "endIndex": -1, "stride": 1]]],
        ])
        XCTAssertEqual(try CoreMLReader.read(from: path).model, model)
    }

    /// The ML Program writer lowers a slice of a map's axis in a model of
    /// tensors to slice_by_index over every axis, bounds resolved
    /// (x[..., 1:-1:2] of a width of 6 is x[..., 1:5:2]): read back as that.
    func testAProgramWritesEitherOverEveryAxis() throws {
        let model = Model(inputs: [Input(name: "x", kind: .tensor(shape: [1, 3, 4, 6]))], outputs: [Output(name: "w", shape: [1, 3, 4, 2])],
                          nodes: [Node("w", .slice(Slice(axis: .width, start: 1, end: -1, stride: 2)), input: "x")])
        let package = try temporaryFolder().appendingPathComponent("slice.mlpackage").path
        try MLProgramWriter.write(model, to: package)
        let read = try CoreMLReader.read(from: package).model
        XCTAssertEqual(read.nodes.map(\.operation), [.slice(Slice(begin: [0, 0, 0, 1], end: [1, 3, 4, 5], strides: [1, 1, 1, 2]))])
    }

    func testWhatNeitherLayerTakesIsRefused() throws {
        func refused(_ shape: [Int], tensor: Bool = true, _ slice: Slice, _ fragment: String, line: UInt = #line) throws {
            let input = Input(name: "x", kind: tensor ? .tensor(shape: shape) : .array(shape: shape))
            let model = Model(inputs: [input], outputs: [Output(name: "y")], nodes: [Node("y", .slice(slice), input: "x")])
            let path = try temporaryFolder().appendingPathComponent("refused.mlmodel").path
            XCTAssertThrowsError(try CoreMLWriter.write(model, to: path), line: line) { error in
                XCTAssertTrue("\(error)".contains(fragment), "\(error)", line: line)
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), line: line)
        }
        try refused([2, 3, 4], Slice(axes: [1], begin: [0], end: [2]),
                    "layer 'y': Core ML's sliceStatic lists every axis of its input: a slice of axes [1] of 2x3x4 is not written yet")
        try refused([3, 4, 5], Slice(axis: .width, start: 0, end: 2),
                    "layer 'y': Core ML's slice layer takes the width axis of a [C, H, W] map or [1, C, H, W] tensor, not of 3x4x5")
        try refused([3, 4, 5], tensor: false, Slice(begin: [0, 0, 0], end: [3, 2, 5]), "layer 'y': sliceND needs a model with tensor (rank-N) inputs")
    }
}

import CoreMLBackend
import Foundation
import Images
import ModelFormat
import Runtime
import TestSupport
import XCTest

let runtimeFixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures/runtime")

/// Runs `Tests/Fixtures/runtime/<name>/model.mlmodel` (written by coremltools)
/// on its inputs and compares every output with the reference computed by
/// OpenCV dnn, TensorFlow or numpy: |ours - ref| <= 1e-4 * max(1, |ref|).
/// `rewrite`, when given, changes the model read before it runs (to check
/// that a rewriting computes the same); `kernels` chooses oneDNN's
/// convolutions where it takes them (the default) or the generic kernels.
func checkParity(_ name: String, rewrite: ((Model) -> Model)? = nil, kernels: KernelChoice = .fastest,
                 file: StaticString = #filePath, line: UInt = #line) throws {
    let folder = runtimeFixtures.appendingPathComponent(name)
    var model = try CoreMLReader.read(from: folder.appendingPathComponent("model.mlmodel").path).model
    if let rewrite { model = rewrite(model) }
    let network = try Network(model, kernels: kernels)
    var inputs: [String: InputValue] = [:]
    for input in network.model.inputs {
        let (shape, values) = try NumpyFile.read(path: folder.appendingPathComponent("input_\(input.name).npy").path)
        if input.image != nil {
            // uint8 [H, W, 3] RGB pixels.
            inputs[input.name] = .image(Image(width: shape[1], height: shape[0], channels: shape[2], pixels: values.map { UInt8($0) }))
        } else {
            inputs[input.name] = .array(Tensor(shape: TensorShape(featureShape: shape) ?? TensorShape(channels: values.count), values: values))
        }
    }
    let prediction = try network.predict(inputs)
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("output_") }
    XCTAssertFalse(files.isEmpty, "\(name) has no reference outputs", file: file, line: line)
    for fileName in files {
        let output = String(fileName.dropFirst("output_".count).dropLast(".npy".count))
        let reference = try NumpyFile.read(path: folder.appendingPathComponent(fileName).path).values
        guard let ours = prediction.outputs[output]?.values else {
            XCTFail("\(name): the runtime gave no output '\(output)'", file: file, line: line)
            continue
        }
        XCTAssertEqual(ours.count, reference.count, "\(name)/\(output): value count", file: file, line: line)
        if let worst = worstMismatch(ours, reference) {
            XCTFail("\(name)/\(output): value \(worst.index) is \(worst.ours), reference \(worst.reference)", file: file, line: line)
        }
    }
    let expected = folder.appendingPathComponent("expected.json")
    if let data = try? Data(contentsOf: expected),
       let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] {
        XCTAssertEqual(prediction.classLabel, json["classLabel"] as? String, "\(name): classLabel", file: file, line: line)
    }
}

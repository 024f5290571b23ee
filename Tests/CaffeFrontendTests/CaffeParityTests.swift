import CaffeFrontend
import CoreMLBackend
import Foundation
import Images
import Conversion
import ImageFiles
import ModelFiles
import ModelFormat
import Runtime
import TestSupport
import XCTest

let caffeFixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures/caffe")

/// Each case in Tests/Fixtures/caffe is converted with the options its
/// meta.json gives, written as .mlmodel (left for the coremltools check),
/// read back by the runtime from the file, run on the case's input, and
/// compared with what OpenCV dnn computed from the same Caffe files:
/// |ours - ref| <= 1e-4 * max(1, |ref|).
final class CaffeParityTests: XCTestCase {
    func testAgeNetLegacyV1() throws { try checkParity("age_net_v1") }
    func testResidualNetWithBatchNormScaleAndEltwise() throws { try checkParity("resnet_bn") }
    func testResidualNetWithHDF5Weights() throws { try checkParity("resnet_bn_h5") }
    func testEveryOtherLayerKind() throws { try checkParity("layers_v2") }
    func testMeanImage() throws { try checkParity("mean_file") }
    /// Batch-10 Input layer, inception and SE blocks, SSD's class softmax,
    /// concat along H and W, inner products over later axes, ArgMax.
    func testModernBlocks() throws { try checkParity("modern_blocks") }

    func testBatchNormAndScaleFoldIntoTheConvolutions() throws {
        let model = try convert("resnet_bn").model
        XCTAssertFalse(model.nodes.contains { if case .batchNorm = $0.operation { true } else { false } }, "\(model.nodes.map(\.name))")
        XCTAssertFalse(model.nodes.contains { if case .scale = $0.operation { true } else { false } })
    }

    func testAgeNetLooksLikeTheTutorialsModel() throws {
        let (model, _) = try convert("age_net_v1")
        XCTAssertEqual(model.classifier?.labels, .strings(["0-2", "4-6", "8-13", "15-20", "25-32", "38-43", "48-53", "60"]))
        XCTAssertEqual(model.inputs.first?.image?.colorSpace, .bgr)
        XCTAssertEqual(model.inputs.first?.image?.blueBias ?? 0, -78.4263377603, accuracy: 1e-4)
        XCTAssertFalse(model.nodes.contains { $0.name.contains("drop") }, "dropout layers are dropped")
    }

    /// Converts the case as its meta.json says.
    func convert(_ name: String) throws -> (model: Model, meta: [String: Any]) {
        let folder = caffeFixtures.appendingPathComponent(name)
        let meta = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("meta.json"))) as? [String: Any])
        let settings = try XCTUnwrap(meta["options"] as? [String: Any])
        var options = ConversionOptions()
        if let input = settings["imageInput"] as? String { options.imageInputNames = [input] }
        // Preprocessing a case states for a model without an image input is coremltools' defaults, not given.
        if !options.imageInputNames.isEmpty {
            options.isBGR = settings["isBGR"] as? Bool ?? false
            options.redBias = (settings["redBias"] as? Double).map { Float($0) }
            options.greenBias = (settings["greenBias"] as? Double).map { Float($0) }
            options.blueBias = (settings["blueBias"] as? Double).map { Float($0) }
            options.imageScale = (settings["imageScale"] as? Double).map { Float($0) }
        }
        if let mean = settings["meanFile"] as? String {
            options.meanImage = try CaffeConverter.readMeanImage(folder.appendingPathComponent(mean).path)
        }
        if let labels = settings["classLabels"] as? String {
            options.classLabels = .strings(try LabelFile.read(path: folder.appendingPathComponent(labels).path))
        }
        let model = try CaffeConverter.convert(deploy: folder.appendingPathComponent(meta["prototxt"] as? String ?? "deploy.prototxt").path,
                                               weights: folder.appendingPathComponent(meta["weights"] as? String ?? "weights.caffemodel").path,
                                               options: options)
        return (model, meta)
    }

    func checkParity(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let folder = caffeFixtures.appendingPathComponent(name)
        let (model, meta) = try convert(name)
        let path = checkDirectory.appendingPathComponent("caffe_\(name).mlmodel").path
        try CoreMLWriter.write(model, to: path)
        // Hand-written expectations for the independent coremltools check, where there are some.
        let expectation = repositoryRoot.appendingPathComponent("Tests/Fixtures/expect/caffe_\(name).expect.json")
        if FileManager.default.fileExists(atPath: expectation.path) {
            try? FileManager.default.removeItem(atPath: path.replacingOccurrences(of: ".mlmodel", with: ".expect.json"))
            try FileManager.default.copyItem(atPath: expectation.path, toPath: path.replacingOccurrences(of: ".mlmodel", with: ".expect.json"))
        }
        let network = try Network(contentsOf: path)
        let input = try XCTUnwrap(network.model.inputs.first)
        var value: InputValue
        if input.image != nil {
            value = .image(try ImageFile.read(path: folder.appendingPathComponent("input.png").path))
        } else {
            let (shape, values) = try NumpyFile.read(path: folder.appendingPathComponent("input.npy").path)
            value = .array(Tensor(shape: try XCTUnwrap(TensorShape(featureShape: shape)), values: values))
        }
        let prediction = try network.predict([input.name: value])
        let expected = meta["expected"] as? [String: Any] ?? [:]
        for output in meta["outputs"] as? [String] ?? [] {
            let referenceFile = (meta["outputFiles"] as? [String: String])?[output] ?? "output_\(output).npy"
            let reference = try NumpyFile.read(path: folder.appendingPathComponent(referenceFile).path).values
            let tensorName = model.classifier != nil && output == expected["probabilitiesBlob"] as? String ? "classLabelProbs" : output
            let ours = try XCTUnwrap(prediction.outputs[tensorName]?.values, "\(name): no output \(tensorName)", file: file, line: line)
            XCTAssertEqual(ours.count, reference.count, "\(name)/\(output)", file: file, line: line)
            if let worst = worstMismatch(ours, reference) {
                XCTFail("\(name)/\(output): value \(worst.index) is \(worst.ours), OpenCV gives \(worst.reference)", file: file, line: line)
            }
        }
        if let top = expected["expectedTopLabel"] as? String {
            XCTAssertEqual(prediction.classLabel, top, "\(name): top label", file: file, line: line)
        }
    }
}

import CoreMLBackend
import Foundation
import Images
import Conversion
import KerasFrontend
import ModelFiles
import ModelFormat
import Runtime
import TestSupport
import XCTest

let kerasFixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures/keras")

/// Each Keras model in Tests/Fixtures/keras (saved by Keras, with Keras's
/// own predictions) is converted, written, read back by the runtime from
/// the file and run: |ours - ref| <= 1e-4 * max(1, |ref|).
final class KerasParityTests: XCTestCase {
    func testFunctionalModelWithSeparableConvolutionsBatchNormAndResidual() throws { try checkParity("functional_separable") }
    func testSequentialImageClassifierWithLabels() throws { try checkParity("sequential_classifier") }
    func testEveryOtherLayerKindWithTwoOutputs() throws { try checkParity("layers_misc") }
    func testKeras2File() throws { try checkParity("functional_keras2") }
    /// Rescaling, Normalization (given and adapted), RandomFlip, hard_silu,
    /// gelu, concatenation along H and W.
    func testPreprocessingLayersAndNewerActivations() throws { try checkParity("preprocessing_layers") }
    /// A nested Sequential, LayerNormalization, Dense per pixel, grouped convolution.
    func testConvNeXtBlocks() throws { try checkParity("convnext_blocks") }
    /// Keras 3's `x + 3.0`, `2.0 - x`, ... and InceptionResNetV2's CustomScaleLayer.
    func testOperatorsWithNumbersAndTheResidualScale() throws { try checkParity("keras3_operators") }
    func testBilinearUpsamplingSamplesHalfPixelCenters() throws { try checkParity("bilinear_upsampling") }

    func testLambdaLayersAreRefusedWithoutRunningThem() {
        XCTAssertThrowsError(try KerasConverter.convert(model: kerasFixtures.appendingPathComponent("lambda_layer/model.h5").path)) { error in
            XCTAssertTrue("\(error)".contains("layer 'times_two' (Lambda): a Lambda layer holds Python code"), "\(error)")
        }
    }

    func testAKerasLayerWithoutAMappingIsNotCalledCustom() {
        XCTAssertThrowsError(try KerasConverter.convert(model: kerasFixtures.appendingPathComponent("unsupported_layer/model.h5").path)) { error in
            XCTAssertTrue("\(error)".contains("layer 'group_norm' (GroupNormalization): Keras's GroupNormalization layer is not supported yet"),
                          "\(error)")
            XCTAssertFalse("\(error)".contains("custom"), "\(error)")
        }
    }

    /// Sizes saved as None come from --input; without it, or with sizes
    /// that contradict the file, the error says what to give.
    func testAnInputOfUnknownSizeTakesItsShapeFromTheUser() throws {
        try checkParity("dynamic_input")
        let path = kerasFixtures.appendingPathComponent("dynamic_input/model.h5").path
        let cases: [([String: [Int]], String)] = [
            ([:], "input 'image' has the shape (None, None, 3); expected (H, W, C) or (N,) with known sizes (give them with inputShapes image=1,H,W,C)"),
            (["imag": [1, 12, 10, 3]], "inputShapes 'imag': the model has no input of that name (its inputs: image); did you mean 'image'?"),
            (["image": [1, 12, 10, 4]], "inputShapes image=1,12,10,4: the model saved the input as (None, None, None, 3)"),
            (["image": [2, 12, 10, 3]], "give batch 1"),
            (["image": [1, 1 << 31, 10, 3]], "give batch 1 and its sizes (1...1073741824)"),
            (["image": [1, 0, 10, 3]], "give batch 1 and its sizes"),
        ]
        for (shapes, expected) in cases {
            XCTAssertThrowsError(try KerasConverter.convert(model: path, inputShapes: shapes)) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
            }
        }
    }

    func checkParity(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let folder = kerasFixtures.appendingPathComponent(name)
        let meta = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("meta.json"))) as? [String: Any])
        let settings = meta["converterOptions"] as? [String: Any] ?? [:]
        var options = ConversionOptions()
        if let input = settings["imageInput"] as? String { options.imageInputNames = [input] }
        if let biases = settings["biases"] as? [Double], biases.count == 3 {
            (options.redBias, options.greenBias, options.blueBias) = (Float(biases[0]), Float(biases[1]), Float(biases[2]))
        }
        if let scale = (settings["imageScale"] ?? settings["scale"]) as? Double { options.imageScale = Float(scale) }
        options.isBGR = settings["isBGR"] as? Bool ?? false
        for (key, path) in [("redBias", \ConversionOptions.redBias), ("greenBias", \.greenBias), ("blueBias", \.blueBias)] {
            if let value = settings[key] as? Double { options[keyPath: path] = Float(value) }
        }
        if let labels = settings["classLabels"] as? String {
            options.classLabels = .strings(try LabelFile.read(path: folder.appendingPathComponent(labels).path))
        }
        let inputShapes = (settings["inputShape"] as? [Int]).map { [settings["arrayInput"] as? String ?? "": $0] } ?? [:]
        let model = try KerasConverter.convert(model: folder.appendingPathComponent("model.h5").path, options: options, inputShapes: inputShapes)
        let path = checkDirectory.appendingPathComponent("keras_\(name).mlmodel").path
        try CoreMLWriter.write(model, to: path)
        // Hand-written expectations for the independent coremltools check, where there are some.
        let expectation = repositoryRoot.appendingPathComponent("Tests/Fixtures/expect/keras_\(name).expect.json")
        let target = path.replacingOccurrences(of: ".mlmodel", with: ".expect.json")
        if FileManager.default.fileExists(atPath: expectation.path) {
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.copyItem(atPath: expectation.path, toPath: target)
        }
        let network = try Network(contentsOf: path)
        let input = try XCTUnwrap(network.model.inputs.first)
        let (shape, hwc) = try NumpyFile.read(path: folder.appendingPathComponent("input.npy").path)
        let value: InputValue
        if shape.count == 3 {
            let (h, w, c) = (shape[0], shape[1], shape[2])
            if input.image != nil {
                value = .image(Image(width: w, height: h, channels: c, pixels: hwc.map { UInt8($0.rounded()) }))
            } else {
                value = .array(Tensor(shape: TensorShape(channels: c, height: h, width: w), values: chw(hwc, h, w, c)))
            }
        } else {
            value = .array(Tensor(shape: TensorShape(channels: hwc.count), values: hwc))
        }
        let prediction = try network.predict([input.name: value])
        for output in meta["outputs"] as? [[String: Any]] ?? [] {
            var feature = try XCTUnwrap(output["name"] as? String)
            if model.classifier != nil { feature = "classLabelProbs" }
            let (refShape, raw) = try NumpyFile.read(path: folder.appendingPathComponent(try XCTUnwrap(output["file"] as? String)).path)
            let reference = refShape.count == 3 ? chw(raw, refShape[0], refShape[1], refShape[2]) : raw
            let ours = try XCTUnwrap(prediction.outputs[feature]?.values, "\(name): no output \(feature)", file: file, line: line)
            XCTAssertEqual(ours.count, reference.count, "\(name)/\(feature)", file: file, line: line)
            if let worst = worstMismatch(ours, reference) {
                XCTFail("\(name)/\(feature): value \(worst.index) is \(worst.ours), Keras gives \(worst.reference)", file: file, line: line)
            }
        }
        if let top = meta["expectedTopLabel"] as? String { XCTAssertEqual(prediction.classLabel, top, file: file, line: line) }
    }
}

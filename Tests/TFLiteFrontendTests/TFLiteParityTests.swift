import CoreMLBackend
import Foundation
import ModelFiles
import ModelFormat
import Runtime
import TestSupport
import TFLiteFrontend
import XCTest

let tfliteFixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures/tflite")

/// Float models TensorFlow's TFLiteConverter wrote from Keras graphs, with
/// the LiteRT interpreter's outputs on the same files
/// (scripts/fixtures/make_tflite_fixtures.py): each converted, written (and
/// left for check_mlmodels), read back by the runtime and run:
/// |ours - LiteRT| <= 1e-4 * max(1, |ref|); and written as ML Program
/// packages at float32 (the same bound) and float16 (`checkPrograms`).
final class TFLiteParityTests: XCTestCase {
    /// Strided convolution, HARD_SWISH, a depthwise convolution with
    /// multiplier 2 and a fused RELU6, MEAN kept as a map, 1x1 convolutions
    /// with fused RELU and RELU6, MUL by a scalar and by the gate, ADD,
    /// MEAN to a vector, FULLY_CONNECTED, SOFTMAX.
    func testMobileNetBlock() throws {
        let model = try checkParity("mobilenet_block", input: [3, 16, 16])
        let kinds = Set(model.nodes.map(\.operation.kindName))
        XCTAssertTrue(kinds.isSuperset(of: ["convolution", "pooling", "innerProduct", "softmax"]), "\(kinds.sorted())")
    }

    /// VALID and SAME convolutions (dilated, strided with a fused RELU6),
    /// MAX_POOL_2D, PAD of H and W, AVERAGE_POOL_2D with SAME padding,
    /// CONCATENATION along channels, SUB, LOGISTIC, RESHAPE to a vector,
    /// two FULLY_CONNECTED (one with a fused RELU), SOFTMAX.
    func testPlainCNN() throws {
        try checkParity("plain_cnn", input: [3, 20, 18])
    }

    /// Constants as operands: MUL and ADD of one value per channel (Core
    /// ML's scale and bias), 0.5 - x, SUB of one value per channel with a
    /// fused RELU, after TANH; MEAN to a vector.
    func testArithmeticWithConstants() throws {
        let model = try checkParity("constants", input: [3, 8, 6])
        let kinds = model.nodes.map(\.operation.kindName)
        XCTAssertTrue(kinds.contains("scale") && kinds.contains("bias"), "\(kinds)")
    }

    /// Saved with batch None: Flatten's RESHAPE reads a shape the graph
    /// computes (SHAPE, STRIDED_SLICE, PACK on int32 tensors), which no
    /// output needs once the reshape takes the shape the file states.
    func testReshapeToAComputedShape() throws {
        let model = try checkParity("any_batch", input: [3, 6, 5])
        XCTAssertEqual(model.nodes.map(\.operation.kindName), ["convolution", "activation", "flatten", "innerProduct"])
    }

    /// plain_cnn with every operator code in deprecated_builtin_code only
    /// (builtin_code absent, as files before schema 3a): the same outputs.
    func testDeprecatedBuiltinCode() throws {
        try checkParity("plain_cnn", input: [3, 20, 18], model: "../variants/deprecated_code.tflite")
    }

    func testEveryFixtureIsTested() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: tfliteFixtures.path).filter { !$0.hasPrefix(".") }.sorted()
        XCTAssertEqual(folders, ["any_batch", "constants", "deflated_labels", "metadata_classifier", "mobilenet_block", "plain_cnn", "quantized",
                                 "quantized_interface", "quantized_metadata", "resize", "variants"])
    }

    @discardableResult
    func checkParity(_ name: String, input shape: [Int], model file: String = "model.tflite",
                     file source: StaticString = #filePath, line: UInt = #line) throws -> Model {
        let folder = tfliteFixtures.appendingPathComponent(name)
        let model = try TFLiteConverter.convert(model: folder.appendingPathComponent(file).path)
        let path = checkDirectory.appendingPathComponent("tflite_\(name).mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let network = try Network(contentsOf: path)
        let input = try XCTUnwrap(network.model.inputs.first)
        // The input is NHWC [1, H, W, C]: moved to [C, H, W].
        let nhwc = try NumpyFile.read(path: folder.appendingPathComponent("input.npy").path).values
        let values = chw(nhwc, shape[1], shape[2], shape[0])
        let prediction = try network.predict([input.name: .array(Tensor(shape: TensorShape(shape), values: values))])
        let reference = try NumpyFile.read(path: folder.appendingPathComponent("output.npy").path).values
        let output = try XCTUnwrap(network.model.outputs.first?.name)
        let ours = try XCTUnwrap(prediction.outputs[output]?.values, "\(name): no output", file: source, line: line)
        XCTAssertEqual(ours.count, reference.count, name, file: source, line: line)
        if let worst = worstMismatch(ours, reference) {
            XCTFail("\(name): value \(worst.index) is \(worst.ours), LiteRT gives \(worst.reference)", file: source, line: line)
        }
        try checkPrograms(model, name, input: [input.name: .array(Tensor(shape: TensorShape(shape), values: values))], output: output,
                          reference: reference, file: source, line: line)
        return model
    }

    /// The same model as ML Program packages (issue 36), read back and run
    /// on the same input against LiteRT: float32 within 1e-4 * max(1, |ref|);
    /// float16 within k * 2^-11 * max(1, max |ref|), k the program's
    /// operations other than const (DetectorProgramCheck's bound).
    func checkPrograms(_ model: Model, _ name: String, input: [String: InputValue], output: String, reference: [Float],
                       file source: StaticString, line: UInt) throws {
        let folder = try temporaryFolder()
        for precision in [Precision.float32, .float16] {
            let package = folder.appendingPathComponent("\(name)_\(precision.name).mlpackage").path
            try MLProgramWriter.write(model, to: package, computePrecision: precision)
            let read = try CoreMLReader.read(from: package)
            let operations = try XCTUnwrap(read.program, name).computingOperationCount
            let ours = try XCTUnwrap(try Network(read.model).predict(input).outputs[output]?.values, "\(name) \(precision.name)", file: source, line: line)
            XCTAssertEqual(ours.count, reference.count, name, file: source, line: line)
            if precision == .float32, let worst = worstMismatch(ours, reference) {
                XCTFail("\(name) float32 package: value \(worst.index) is \(worst.ours), LiteRT gives \(worst.reference)", file: source, line: line)
            } else if precision == .float16 {
                let scale = max(1, reference.map(abs).max() ?? 0), worst = zip(ours, reference).map { abs($0 - $1) }.max() ?? .nan
                XCTAssertLessThanOrEqual(worst, Float(operations) * Float(pow(2.0, -11.0)) * scale, "\(name) float16 package",
                                         file: source, line: line)
            }
        }
    }
}

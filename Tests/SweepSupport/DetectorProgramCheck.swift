import CoreMLBackend
import Foundation
import ModelFormat
import Runtime
import TestSupport
import XCTest

/// A detector written as an ML Program package (`--convert-to mlprogram`)
/// against the NeuralNetwork file of the same conversion, which each
/// frontend's detector tests check against its framework: both written,
/// read back and run on the same inputs.
public enum DetectorProgramCheck {
    /// What was measured: the float32 package's worst error relative to
    /// max(1, |file's value|) over the raw rows and kept boxes; the float16
    /// package's worst raw-row error relative to max(1, max |file's rows|),
    /// and its bound.
    public struct Measured {
        public var float32: Float
        public var float16: Float
        public var float16Bound: Float
        /// Raw-row values beyond float16's range (65504) in the file, infinite in the float16 package.
        public var overflowed = 0
    }

    /// Writes `model` as a `.mlmodel` and as packages computing in float32
    /// and float16, and runs each read back on every one of `inputs`:
    /// - the packages hold the same detector (labels, thresholds, tensors)
    ///   at specification 6, with as many weights as the file;
    /// - float32: the raw rows (`confidenceTensor`, `coordinatesTensor`)
    ///   and the kept `confidence` and `coordinates` equal the file's
    ///   within 1e-4 * max(1, |ref|), as many boxes kept;
    /// - float16: the raw rows within k * 2^-11 * max(1, max |ref|) of the
    ///   file's, k the program's operations other than constants (each
    ///   rounds its result to float16 at most once; 2^-11 is float16's unit
    ///   roundoff; the bound scripts/verify/run_mlprogram_torch.py states),
    ///   and not equal to the float32 package's (float16 compute emulated);
    ///   a value beyond float16's range overflows (Core ML's float16 compute
    ///   gives infinity there too), the others are held to the bound.
    ///   The boxes kept are not compared at float16: a box whose confidence
    ///   or overlap lies within that bound of a threshold may go either way.
    public static func check(_ model: Model, inputs: [[String: InputValue]], name: String,
                             file: StaticString = #filePath, line: UInt = #line) throws -> Measured {
        let detector = try XCTUnwrap(model.detector, "\(name) is not a detector", file: file, line: line)
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("\(name).mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let fileModel = try CoreMLReader.read(from: path).model
        let network = try Network(fileModel)
        func weightCount(_ model: Model) -> Int { model.nodes.flatMap(\.operation.weightTensors).reduce(0) { $0 + $1.values.count } }
        var programs: [(Network, Int)] = []
        for precision in [Precision.float32, .float16] {
            let package = folder.appendingPathComponent("\(name)_\(precision.name).mlpackage").path
            try MLProgramWriter.write(model, to: package, computePrecision: precision)
            let read = try CoreMLReader.read(from: package)
            XCTAssertEqual(read.model.detector, detector, "\(name) \(precision.name)", file: file, line: line)
            XCTAssertEqual(read.specificationVersion, 6, "\(name) \(precision.name)", file: file, line: line)
            // The same weights read back, a constant several operations read once (inspect's Parameters).
            XCTAssertEqual(weightCount(read.model), weightCount(fileModel), "\(name) \(precision.name): weights", file: file, line: line)
            let facts = try XCTUnwrap(read.program, "\(name): no program read", file: file, line: line)
            XCTAssertEqual(facts.computesInFloat16, precision == .float16, "\(name)", file: file, line: line)
            programs.append((try Network(read.model), facts.computingOperationCount))
        }
        var measured = Measured(float32: 0, float16: 0, float16Bound: Float(programs[1].1) * Float(pow(2.0, -11.0)))
        let rows = [detector.confidenceTensor, detector.coordinatesTensor]
        for (index, input) in inputs.enumerated() {
            let reference = try network.predict(input)
            let ours = try programs[0].0.predict(input)
            let half = try programs[1].0.predict(input)
            for output in rows + [Detector.confidenceFeature, Detector.coordinatesFeature] {
                let what = "\(name) input \(index) \(output)"
                let expected = try XCTUnwrap(reference.outputs[output], what, file: file, line: line)
                let float32 = try XCTUnwrap(ours.outputs[output], what, file: file, line: line)
                XCTAssertEqual(float32.shape, expected.shape, what, file: file, line: line)
                if let worst = worstMismatch(float32.values, expected.values) {
                    XCTFail("\(what): value \(worst.index) is \(worst.ours) in the float32 package, \(worst.reference) in the file", file: file, line: line)
                }
                for (a, b) in zip(float32.values, expected.values) { measured.float32 = max(measured.float32, abs(a - b) / max(1, abs(b))) }
                guard rows.contains(output) else { continue }
                let float16 = try XCTUnwrap(half.outputs[output], what, file: file, line: line)
                XCTAssertEqual(float16.shape, expected.shape, what, file: file, line: line)
                // A value beyond float16's range (untrained weights' exp of large numbers) overflows, as Core ML's float16 compute does.
                let largest = Float(Float16.greatestFiniteMagnitude)
                for (a, b) in zip(float16.values, expected.values) where abs(b) > largest {
                    XCTAssertGreaterThanOrEqual(abs(a), largest, "\(what): \(b) does not overflow float16", file: file, line: line)
                    measured.overflowed += 1
                }
                let pairs = zip(float16.values, expected.values).filter { abs($0.1) <= largest }
                let scale = max(1, pairs.map { abs($0.1) }.max() ?? 0)
                let worst = pairs.map { abs($0.0 - $0.1) }.max() ?? .nan
                measured.float16 = max(measured.float16, worst / scale)
                XCTAssertLessThanOrEqual(worst, measured.float16Bound * scale, "\(what) in the float16 package", file: file, line: line)
                XCTAssertNotEqual(float16.values, float32.values, "\(what): the float16 package computes as the float32 one", file: file, line: line)
            }
            XCTAssertEqual(ours.detections?.count, reference.detections?.count, "\(name) input \(index): boxes kept", file: file, line: line)
        }
        return measured
    }
}

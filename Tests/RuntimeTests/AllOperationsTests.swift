import Foundation
import XCTest
@testable import CoreMLBackend
import ModelFormat
@testable import Runtime
import TestSupport

/// Every operation of the IR has its three pieces (issue 33): a Core ML
/// coding, a runtime kernel, and a round trip through a written file that
/// gives back the same node, which the runtime then executes.
final class AllOperationsTests: XCTestCase {
    private static func name(_ type: any OpDefinition.Type) -> String { String(describing: type) }

    /// Each `OpDefinition` conformance in Sources/ModelFormat/Operations is listed.
    func testEveryConformanceIsInTheList() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/ModelFormat/Operations")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        let pattern = try NSRegularExpression(pattern: #"(?:struct|extension)\s+(\w+)\s*:[^{]*\bOpDefinition\b"#)
        var declared: Set<String> = []
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                declared.insert(String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        let listed = Set(allOperations.map(Self.name))
        XCTAssertGreaterThan(declared.count, 25, "the scan found the conformances")
        XCTAssertEqual(declared.subtracting(listed), [], "conformances missing from allOperations")
        XCTAssertEqual(listed.subtracting(declared), [], "listed types with no conformance found")
        XCTAssertEqual(listed.count, allOperations.count, "an operation listed twice")
    }

    func testEveryOperationHasACodingAndAKernel() {
        let coded = Set(layerCodings.map { ObjectIdentifier($0) })
        for type in allOperations {
            XCTAssertTrue(coded.contains(ObjectIdentifier(type)), "\(Self.name(type)) has no LayerCoding in layerCodings")
            XCTAssertTrue(type is any KernelMaking.Type, "\(Self.name(type)) has no KernelMaking conformance")
        }
        XCTAssertEqual(layerCodings.count, SpecificationVersion.mapLayerCodings.count + allOperations.count,
                       "layerCodings holds a type neither allOperations nor the classic map layers do")
    }

    /// Each operation, in one or more small models, is written, read back
    /// as the same model, and executed by the runtime to outputs of the
    /// inferred shapes with finite values.
    func testEveryOperationRoundTripsAndRuns() throws {
        let folder = try temporaryFolder()
        var covered: Set<String> = []
        for (index, sample) in OperationSamples.all().enumerated() {
            let path = folder.appendingPathComponent("op\(index).mlmodel").path
            let context = "sample \(index) (\(sample.nodes.map { $0.operation.kindName }))"
            try CoreMLWriter.write(sample, to: path)
            let read = try CoreMLReader.read(from: path).model
            XCTAssertEqual(read.nodes, sample.nodes, context)
            var values: [String: InputValue] = [:]
            for input in sample.inputs {
                let shape: [Int]
                switch input.kind {
                case .array(let dims), .tensor(let dims): shape = dims
                case .image: XCTFail("\(context): samples take arrays"); continue
                }
                let count = shape.reduce(1, *)
                values[input.name] = .array(Tensor(shape: TensorShape(shape), values: (0..<count).map { 0.5 + Float($0 % 7) / 7 }))
            }
            let outputs = try Network(read).predict(values).outputs
            let shapes = try ShapeInference.shapes(of: read)
            for output in sample.outputs {
                let y = try XCTUnwrap(outputs[output.name], "\(context): no output \(output.name)")
                XCTAssertEqual(y.values.count, shapes[output.name]?.count, "\(context): \(output.name)")
                XCTAssertTrue(y.values.allSatisfy(\.isFinite), "\(context): \(output.name) holds non-finite values")
            }
            covered.formUnion(sample.nodes.map { Self.name(type(of: $0.operation.definition)) })
        }
        XCTAssertEqual(Set(allOperations.map(Self.name)).subtracting(covered), [], "operations with no sample")
    }
}

import CoreMLBackend
import Foundation
import ModelFormat
import TestSupport
import XCTest

/// The spine's proof: a classifier built in code is written, read back equal
/// by our reader, and left (with hand-written expectations) for coremltools
/// to decode independently (`Tests/Fixtures/expect/spine_sample.expect.json`).
final class SpineSampleTests: XCTestCase {
    func testSampleClassifierRoundTripsAndIsLeftForTheIndependentCheck() throws {
        let model = SampleModel.classifier()
        let path = checkDirectory.appendingPathComponent("spine_sample.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        // Replaced, not copied over: MLMODEL_CHECK_DIR may hold an earlier run's copy (copyItem refuses an existing file).
        let expect = checkDirectory.appendingPathComponent("spine_sample.expect.json")
        try? FileManager.default.removeItem(at: expect)
        try FileManager.default.copyItem(
            at: repositoryRoot.appendingPathComponent("Tests/Fixtures/expect/spine_sample.expect.json"), to: expect)

        let file = try CoreMLReader.read(from: path)
        XCTAssertEqual(file.specificationVersion, 1)
        XCTAssertEqual(file.model, model)
    }

    func testStructureOnlyReadKeepsCountsButNotValues() throws {
        let path = try temporaryFolder().appendingPathComponent("sample.mlmodel").path
        try CoreMLWriter.write(SampleModel.classifier(), to: path)
        let file = try CoreMLReader.read(from: path, structureOnly: true)
        guard case .innerProduct(let product) = file.model.nodes[4].operation else { return XCTFail("fc8 is not an inner product") }
        XCTAssertFalse(product.weights.isLoaded)
        XCTAssertEqual(product.weights.count, 6272 * 8)
        XCTAssertEqual(file.model.classifier, SampleModel.classifier().classifier)
    }

    func testFailedWriteLeavesAnExistingFileUntouched() throws {
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("Model.mlmodel").path
        let original = Data("precious".utf8)
        try original.write(to: URL(fileURLWithPath: path))
        var broken = SampleModel.classifier()
        broken.nodes[4].inputs = ["nowhere"]
        XCTAssertThrowsError(try CoreMLWriter.write(broken, to: path)) { error in
            XCTAssertTrue("\(error)".contains("fc8"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), original)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["Model.mlmodel"])
    }

    func testWritingIntoAMissingFolderFailsWithThePath() {
        XCTAssertThrowsError(try CoreMLWriter.write(SampleModel.classifier(), to: "/nonexistent-folder/x.mlmodel")) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent-folder"), "\(error)")
        }
    }
}

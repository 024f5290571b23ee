import Foundation
import TestSupport
import XCTest

/// `coreml-generate` and `coreml-convert --generate-classes` as a user
/// runs them: the done-when (AgeNet.swift and the Objective-C
/// pair in a new folder), and one error line for each mistake, nothing written.
final class GenerateCommandTests: XCTestCase {
    let root = repositoryRoot.path + "/"
    var deploy: String { root + "Samples/deploy_age.prototxt" }
    var weights: String { root + "Samples/age_net.caffemodel" }
    var labels: String { root + "Samples/age_labels.txt" }

    /// The README's sample conversion, with the classes beside the model.
    private func convertAgeNet(into folder: URL, _ extra: [String] = []) throws -> (model: String, result: ProgramRunner.Result) {
        let model = folder.appendingPathComponent("AgeNet.mlmodel").path
        let result = try ProgramRunner.run("coreml-convert", ["caffe", deploy, weights, "--image-input", "data", "--is-bgr",
                                                              "--class-labels", labels, "-o", model] + extra)
        return (model, result)
    }

    func testGenerateWritesTheClassesIntoANewFolder() throws {
        let folder = try temporaryFolder()
        let (model, converted) = try convertAgeNet(into: folder)
        XCTAssertEqual(converted.status, 0, converted.standardError)
        let generated = folder.appendingPathComponent("Generated").path
        let swift = try ProgramRunner.run("coreml-generate", [model, generated, "--language", "swift"])
        XCTAssertEqual(swift.status, 0, swift.standardError)
        XCTAssertEqual(swift.standardOutput, "Wrote \(generated)/AgeNet.swift\n")
        let text = try String(contentsOfFile: generated + "/AgeNet.swift", encoding: .utf8)
        for declaration in ["init(data: CVPixelBuffer)", "var classLabel: String {", "convenience init(contentsOf modelURL: URL) throws"] {
            XCTAssertTrue(text.contains(declaration), declaration)
        }
        let objc = try ProgramRunner.run("coreml-generate", [model, generated, "--language", "objc", "--class-name", "AgeClassifier", "--public"])
        XCTAssertEqual(objc.status, 0, objc.standardError)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: generated).sorted(), ["AgeClassifier.h", "AgeClassifier.m", "AgeNet.swift"])
        let header = try String(contentsOfFile: generated + "/AgeClassifier.h", encoding: .utf8)
        XCTAssertTrue(header.contains("@interface AgeClassifier : NSObject"))
        XCTAssertTrue(header.contains("__attribute__((visibility(\"default\")))"))
        // The bundled model keeps the file's name whatever the class is called.
        XCTAssertTrue(try String(contentsOfFile: generated + "/AgeClassifier.m", encoding: .utf8).contains("pathForResource:@\"AgeNet\" ofType:@\"mlmodelc\""))
        // Again: the files are replaced, with the same bytes.
        let before = FileManager.default.contents(atPath: generated + "/AgeNet.swift")
        XCTAssertEqual(try ProgramRunner.run("coreml-generate", [model, generated, "-q"]).standardOutput, "")
        XCTAssertEqual(FileManager.default.contents(atPath: generated + "/AgeNet.swift"), before)
    }

    /// An ML Program package's classes, as Xcode generates them for an
    /// .mlpackage: the same features, named after the package, available
    /// from iOS 15 (the first systems that run programs), not iOS 11 as the
    /// NeuralNetwork file's.
    func testGenerateWritesThePackagesClasses() throws {
        let folder = try temporaryFolder()
        let package = folder.appendingPathComponent("AgeNet.mlpackage").path
        let converted = try ProgramRunner.run("coreml-convert", ["caffe", deploy, weights, "--image-input", "data", "--is-bgr",
                                                                 "--class-labels", labels, "--convert-to", "mlprogram", "-o", package])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        let generated = folder.appendingPathComponent("Generated").path
        let swift = try ProgramRunner.run("coreml-generate", [package, generated])
        XCTAssertEqual(swift.status, 0, swift.standardError)
        let text = try String(contentsOfFile: generated + "/AgeNet.swift", encoding: .utf8)
        for declaration in ["init(data: CVPixelBuffer)", "var classLabel: String {", "@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, *)",
                            "bundle.url(forResource: \"AgeNet\", withExtension: \"mlmodelc\")"] {
            XCTAssertTrue(text.contains(declaration), declaration)
        }
        XCTAssertFalse(text.contains("iOS 11.0"))
        // The package itself, or a folder in it, as the output: an input of the run, left as it is.
        for inside in [package, package + "/Data", package + "/Data/New"] {
            let refused = try ProgramRunner.run("coreml-generate", [package, inside])
            XCTAssertEqual(refused.status, 1, refused.standardError)
            XCTAssertTrue(refused.standardError.contains("lies in the model package"), refused.standardError)
            XCTAssertEqual(refused.standardError.filter { $0 == "\n" }.count, 1, refused.standardError)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: package).sorted(), ["Data", "Manifest.json"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: package + "/Data/New"))
    }

    func testConvertWritesTheClassesNextToTheModel() throws {
        let folder = try temporaryFolder()
        let (_, result) = try convertAgeNet(into: folder, ["--generate-classes", "--language", "objc"])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("Wrote \(folder.path)/AgeNet.h\nWrote \(folder.path)/AgeNet.m\n"), result.standardOutput)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["AgeNet.h", "AgeNet.m", "AgeNet.mlmodel"])
        let json = try convertAgeNet(into: folder, ["--generate-classes", "--language", "swift", "--json"]).result
        XCTAssertEqual(json.status, 0, json.standardError)
        let document = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
        XCTAssertEqual(document?["classFiles"] as? [String], [folder.path + "/AgeNet.swift"])
    }

    /// Every broken .mlmodel of the malformed corpus (truncated, flipped
    /// bits, absurd lengths, nesting, broken pipelines): one error line or
    /// classes written, never a crash; nothing left behind by a failure.
    func testHostileModelFilesGiveOneErrorOrClasses() throws {
        let corpus = repositoryRoot.appendingPathComponent("Tests/Fixtures/malformed/mlmodel")
        let files = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.hasSuffix(".mlmodel") }.sorted()
        XCTAssertGreaterThan(files.count, 20)
        for file in files {
            let out = try temporaryFolder().appendingPathComponent("out")
            let result = try ProgramRunner.run("coreml-generate", [corpus.appendingPathComponent(file).path, out.path, "-q"], timeout: 60)
            if result.status == 0 {
                XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).count, 1, file)
                continue
            }
            XCTAssertEqual(result.status, 1, "\(file): \(result.standardError)")
            XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, "\(file): \(result.standardError)")
            XCTAssertTrue(result.standardError.hasPrefix("error: "), "\(file): \(result.standardError)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), file)
        }
    }

    func testMistakesAreOneErrorAndWriteNothing() throws {
        let folder = try temporaryFolder()
        let (model, converted) = try convertAgeNet(into: folder)
        XCTAssertEqual(converted.status, 0, converted.standardError)
        let out = folder.appendingPathComponent("out").path
        try ProgramRunner.assertOneError("coreml-generate", [model, out, "--language", "kotlin"], "--language takes swift or objc, not 'kotlin'", status: 64)
        for name in ["1st", "my class", "class", "", "Café"] {
            try ProgramRunner.assertOneError("coreml-generate", [model, out, "--class-name", name], "--class-name", status: 64)
        }
        try ProgramRunner.assertOneError("coreml-generate", [model], "missing", status: 64)
        try ProgramRunner.assertOneError("coreml-generate", [deploy, out], "is a Caffe deploy definition (prototxt), not a Core ML model")
        try ProgramRunner.assertOneError("coreml-generate", [root + "Samples/none.mlmodel", out], "none.mlmodel")
        try ProgramRunner.assertOneError("coreml-generate", [model, model], "is not a folder")
        try ProgramRunner.assertOneError("coreml-generate", [model, folder.path + "/no/such/folder"], "cannot create the folder")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        // A FIFO, or the model itself, where a class file would go.
        XCTAssertEqual(mkfifo(folder.appendingPathComponent("AgeNet.swift").path, 0o644), 0)
        try ProgramRunner.assertOneError("coreml-generate", [model, folder.path], "AgeNet.swift: is a FIFO")
        let disguised = folder.appendingPathComponent("Model.h").path
        try FileManager.default.copyItem(atPath: model, toPath: disguised)
        try ProgramRunner.assertOneError("coreml-generate", [disguised, folder.path, "--language", "objc", "--class-name", "Model"],
                                         "is an input of this run")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Model.m").path))
        // convert checks where the classes go before it converts.
        let (_, refused) = try convertAgeNet(into: folder, ["--generate-classes", "--language", "swift"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.standardError.contains("AgeNet.swift: is a FIFO"), refused.standardError)
        try ProgramRunner.assertOneError("coreml-convert", ["sample", "-o", folder.path + "/S.mlmodel", "--generate-classes", "--language", "java"],
                                         "--language takes swift or objc, not 'java'", status: 64)
    }
}

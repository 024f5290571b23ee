import CoreMLBackend
import Foundation
import ModelFormat
import TestSupport
import XCTest

/// Every ```swift block of README.md is a region of Snippets.swift (its
/// imports, then its code), and every region runs here: in a fresh folder
/// holding links to Samples/ and Tests/Fixtures/, as a user's working copy would.
final class ReadmeSnippetTests: XCTestCase {
    /// README name -> the lines of its region(s): "convert: imports" and "convert".
    static func regions() throws -> [String: [String]] {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("Tests/ReadmeTests/Snippets.swift"), encoding: .utf8)
        var regions: [String: [String]] = [:]
        var current: String?
        for line in text.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "// README end" {
                current = nil
            } else if trimmed.hasPrefix("// README "), !trimmed.contains("<name>") {
                current = String(trimmed.dropFirst("// README ".count))
                regions[current!] = []
            } else if let name = current {
                regions[name]!.append(line)
            }
        }
        return regions
    }

    /// A region's lines with their common indentation removed.
    static func dedented(_ lines: [String]) -> [String] {
        let indent = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }
    }

    func testTheReadmeSnippetsAreTheseRegions() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var blocks: [String] = []
        var block: [String]?
        for line in readme.components(separatedBy: "\n") {
            if block == nil, line == "```swift" {
                block = []
            } else if block != nil, line == "```" {
                blocks.append(block!.joined(separator: "\n"))
                block = nil
            } else {
                block?.append(line)
            }
        }
        let regions = try Self.regions()
        let names = regions.keys.filter { !$0.hasSuffix(": imports") }.sorted()
        var expected: [String: String] = [:]
        for name in names {
            let imports = regions["\(name): imports"] ?? []
            expected[name] = (imports + (imports.isEmpty ? [] : [""]) + Self.dedented(regions[name]!)).joined(separator: "\n")
        }
        XCTAssertEqual(names.count, 6)
        for (index, text) in blocks.enumerated() {
            XCTAssertTrue(expected.values.contains(text), "README.md's swift block \(index + 1) is not a region of Snippets.swift:\n\(text)")
        }
        for name in names {
            XCTAssertTrue(blocks.contains(expected[name]!), "Snippets.swift's region '\(name)' is not in README.md:\n\(expected[name]!)")
        }
    }

    func testTheSnippetsRun() throws {
        let folder = try temporaryFolder()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Tests"), withIntermediateDirectories: true)
        for link in ["Samples", "Tests/Fixtures"] {
            try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent(link),
                                                       withDestinationURL: repositoryRoot.appendingPathComponent(link))
        }
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(folder.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }

        let model = try Snippets.convert()
        XCTAssertEqual(model.classifier?.labels.count, 8)
        let (graph, keras) = try Snippets.otherFormats()
        XCTAssertEqual(graph.outputs.map(\.name), ["MobilenetV1_Logits_SpatialSqueeze"])
        XCTAssertFalse(keras.nodes.isEmpty)
        XCTAssertEqual(try CoreMLReader.read(from: "MobileNet.mlmodel", structureOnly: true).specificationVersion, 4)
        let inspected = try Snippets.inspect()
        XCTAssertEqual(inspected.deployment?.summary, "iOS 11, macOS 10.13, tvOS 11, watchOS 4")
        let prediction = try Snippets.predict()
        XCTAssertEqual(prediction.classLabel, "15-20")
        let probability = try XCTUnwrap(prediction.probabilities?.first { $0.label == "15-20" }?.probability)
        XCTAssertEqual(probability, 0.3680, accuracy: 0.00005, "OpenCV dnn's probability for the same files (Samples/README.md)")
        let file = try Snippets.build()
        XCTAssertEqual(file.model.classifier?.labels, .strings(["cat", "dog", "bird"]))
        let attention = try Snippets.rankN()
        XCTAssertEqual(attention.outputs["y"]?.shape, TensorShape([1, 64, 16]))
        XCTAssertEqual(try CoreMLReader.read(from: "Attention.mlmodel").specificationVersion, 4)
    }
}

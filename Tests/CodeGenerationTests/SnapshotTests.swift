import CodeGeneration
import Foundation
import TestSupport
import XCTest

/// The generated files, compared with Snapshots/<model>/<file> (reviewed
/// by eye when recorded: RECORD_SNAPSHOTS=1 rewrites them).
final class SnapshotTests: XCTestCase {
    func testGeneratedFilesMatchTheirSnapshots() throws {
        let record = ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1"
        for (name, generator) in try GeneratedModels.all() {
            let folder = repositoryRoot.appendingPathComponent("Tests/CodeGenerationTests/Snapshots/\(name)")
            for language in SourceLanguage.allCases {
                for file in generator.files(in: language) {
                    let url = folder.appendingPathComponent(file.name)
                    if record {
                        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                        try file.text.write(to: url, atomically: true, encoding: .utf8)
                        continue
                    }
                    let recorded = try String(contentsOf: url, encoding: .utf8)
                    XCTAssertEqual(file.text, recorded, "\(name)/\(file.name) differs from its snapshot (RECORD_SNAPSHOTS=1 re-records it)")
                }
            }
        }
    }

    /// The same model gives the same bytes, and the snapshot folder holds
    /// nothing the generator no longer writes.
    func testSnapshotsAreExactlyTheGeneratedFiles() throws {
        let root = repositoryRoot.appendingPathComponent("Tests/CodeGenerationTests/Snapshots")
        for (name, generator) in try GeneratedModels.all() {
            let names = SourceLanguage.allCases.flatMap { generator.files(in: $0).map(\.name) }.sorted()
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(name).path).sorted(), names)
            XCTAssertEqual(generator.files(in: .swift), generator.files(in: .swift))
        }
    }
}

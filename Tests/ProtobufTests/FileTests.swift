import CProtobufC
import Foundation
import ProtoSchemas
import Protobuf
import XCTest

/// AtomicFile, MappedFile and MessageFile against a scratch folder.
final class FileTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ProtobufTests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        folder = path
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map(Array.init)
    }

    func folderListing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    struct Refusal: Error {}

    // MARK: AtomicFile

    func testWriteCreatesTheFileWithItsContent() throws {
        let path = folder + "/out.bin"
        try AtomicFile.write(to: path) { stream, _ in
            fputs("hello, ", stream)
            fputs("world", stream)
        }
        XCTAssertEqual(contents(path), Array("hello, world".utf8))
        XCTAssertEqual(try folderListing(), ["out.bin"], "no temporary file is left behind")

        let bytes: [UInt8] = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try AtomicFile.write(bytes, to: path)
        XCTAssertEqual(contents(path), bytes, "replaces the previous content")
        try AtomicFile.write([UInt8](), to: path)
        XCTAssertEqual(contents(path), [])
        XCTAssertEqual(try folderListing(), ["out.bin"])
    }

    func testOnlyAFileThatReplacesAnotherIsSynced() throws {
        let path = folder + "/model.bin"
        var commits: [AtomicFile.Commit] = []
        try AtomicFile.write(to: path) { stream, commit in
            commits.append(commit)
            fputs("first", stream)
        }
        try AtomicFile.write(to: path) { stream, commit in
            commits.append(commit)
            fputs("second", stream)
        }
        XCTAssertEqual(commits, [.cached, .synced])
        XCTAssertEqual(contents(path), Array("second".utf8))

        XCTAssertEqual(AtomicFile.commit(for: folder + "/absent.bin"), .cached)
        XCTAssertEqual(AtomicFile.commit(for: folder), .synced, "a folder is something rename would replace or refuse")
        let link = folder + "/dangling.bin"
        XCTAssertEqual(symlink(folder + "/nowhere", link), 0)
        XCTAssertEqual(AtomicFile.commit(for: link), .synced, "a link is replaced, even one that points nowhere")
    }

    func testBeforeCommitSeesTheCompleteFileWhetherSyncedOrNot() throws {
        let path = folder + "/checked.bin"
        for content in ["new file", "replacing it"] {
            var seen: [UInt8]?
            try AtomicFile.write(to: path, beforeCommit: { temporary in
                XCTAssertNotEqual(temporary, path)
                seen = self.contents(temporary)
            }) { stream, _ in fputs(content, stream) }
            XCTAssertEqual(seen, Array(content.utf8))
        }
        XCTAssertThrowsError(try AtomicFile.write(to: path, beforeCommit: { _ in throw Refusal() }) { stream, _ in
            fputs("refused", stream)
        }) { error in XCTAssertTrue(error is Refusal, "\(error)") }
        XCTAssertEqual(contents(path), Array("replacing it".utf8))
        XCTAssertEqual(try folderListing(), ["checked.bin"])
    }

    func testWrittenFileGetsThePermissionsOfAPlainCreate() throws {
        let path = folder + "/mode.bin"
        try AtomicFile.write([1, 2, 3], to: path)
        let mask = umask(0)
        umask(mask)
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o666 & ~mask)
    }

    func testFailedWriteLeavesNoFileAndNoTemporaryFile() throws {
        let path = folder + "/never.bin"
        XCTAssertThrowsError(try AtomicFile.write(to: path) { stream, _ in
            fputs("partial content", stream)
            throw Refusal()
        }) { error in
            XCTAssertTrue(error is Refusal, "the closure's own error comes through: \(error)")
        }
        XCTAssertNil(contents(path))
        XCTAssertEqual(try folderListing(), [], "no temporary file is left behind")
    }

    func testFailedWriteLeavesAnExistingFileByteForByteUnchanged() throws {
        let path = folder + "/keep.bin"
        let original: [UInt8] = Array("original content\n".utf8) + [0, 255, 7]
        try AtomicFile.write(original, to: path)
        XCTAssertThrowsError(try AtomicFile.write(to: path) { stream, _ in
            fputs(String(repeating: "new content ", count: 10_000), stream)
            fflush(stream)
            throw Refusal()
        })
        XCTAssertEqual(contents(path), original)
        XCTAssertEqual(try folderListing(), ["keep.bin"])
    }

    func testWritingIntoAMissingFolderThrowsFileErrorNamingThePath() throws {
        let path = folder + "/missing/sub/out.bin"
        XCTAssertThrowsError(try AtomicFile.write([1], to: path)) { error in
            guard let error = error as? FileError else { return XCTFail("not a FileError: \(error)") }
            XCTAssertEqual(error.path, path)
            XCTAssertTrue(error.message.contains(self.folder + "/missing/sub"), error.message)
            XCTAssertTrue(error.description.hasPrefix(path + ": "), error.description)
        }
        XCTAssertEqual(try folderListing(), [])
    }

    func testReplacingADirectoryFailsAndCleansUp() throws {
        let path = folder + "/occupied"
        try FileManager.default.createDirectory(atPath: path + "/inside", withIntermediateDirectories: true)
        XCTAssertThrowsError(try AtomicFile.write([1, 2], to: path)) { error in
            XCTAssertEqual((error as? FileError)?.path, path)
        }
        XCTAssertEqual(try folderListing(), ["occupied"])
    }

    // MARK: MappedFile

    func testMappedFileReadsTheBytes() throws {
        let path = folder + "/data.bin"
        let bytes: [UInt8] = Array(0...255)
        try AtomicFile.write(bytes, to: path)
        let file = try MappedFile(path: path)
        XCTAssertEqual(file.path, path)
        XCTAssertEqual(Array(file.bytes), bytes)
    }

    func testEmptyFileGivesAnEmptyBuffer() throws {
        let path = folder + "/empty.bin"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        let file = try MappedFile(path: path)
        XCTAssertEqual(file.bytes.count, 0)
        XCTAssertTrue(file.bytes.isEmpty)
        // ...which decodes as an empty message.
        let model = try MessageFile.read(MLModel.self, descriptor: Descriptors.model, from: path)
        XCTAssertEqual(model.root.pointee.specificationversion, 0)
        XCTAssertNil(model.root.pointee.description)
    }

    func testDirectoryAndMissingPathThrowFileError() {
        XCTAssertThrowsError(try MappedFile(path: folder)) { error in
            guard let error = error as? FileError else { return XCTFail("not a FileError: \(error)") }
            XCTAssertEqual(error.path, self.folder)
            XCTAssertEqual(error.message, "not a regular file")
        }
        let missing = folder + "/nothing-here"
        XCTAssertThrowsError(try MappedFile(path: missing)) { error in
            guard let error = error as? FileError else { return XCTFail("not a FileError: \(error)") }
            XCTAssertEqual(error.path, missing)
            XCTAssertTrue(error.message.hasPrefix("cannot open"), error.message)
        }
        XCTAssertThrowsError(try MessageFile.read(MLModel.self, descriptor: Descriptors.model, from: missing)) { error in
            XCTAssertTrue(error is FileError)
        }
    }

    // MARK: MessageFile

    func testMessageFileRoundTrip() throws {
        let spec = TestSpec()
        let path = folder + "/model.mlmodel"
        try MessageFile.write(spec.message, to: path)
        XCTAssertEqual(contents(path), spec.packed(), "the file holds protobuf-c's encoding")
        XCTAssertEqual(try folderListing(), ["model.mlmodel"])

        let decoded = try MessageFile.read(MLModel.self, descriptor: Descriptors.model, from: path)
        XCTAssertEqual(mismatches(decoded.root.pointee), [])
        // Writing the decoded model again gives the same file.
        let again = folder + "/again.mlmodel"
        try MessageFile.write(UnsafeRawPointer(decoded.root).assumingMemoryBound(to: ProtobufCMessage.self), to: again)
        XCTAssertEqual(contents(again), contents(path))

        let summary = try MessageFile.read(MLModel.self, descriptor: Descriptors.model, from: path,
                                           options: DecodeOptions(structureOnly: true))
        XCTAssertEqual(mismatches(summary.root.pointee, structureOnly: true), [])
    }

    func testMessageFileReadOfAMalformedFileThrowsDecodeError() throws {
        let path = folder + "/bad.mlmodel"
        var bytes = TestSpec().packed()
        bytes.removeLast(3)
        try AtomicFile.write(bytes, to: path)
        XCTAssertThrowsError(try MessageFile.read(MLModel.self, descriptor: Descriptors.model, from: path)) { error in
            guard let error = error as? DecodeError else { return XCTFail("not a DecodeError: \(error)") }
            XCTAssertTrue(error.message.contains("runs past the end"), error.description)
        }
    }
}

import CProtobufC
import FileIO
import Foundation
import TestSupport
import CoreMLSchema
import Protobuf
import XCTest

/// MessageFile against a scratch folder.
final class MessageFileTests: ScratchFolderTestCase {
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

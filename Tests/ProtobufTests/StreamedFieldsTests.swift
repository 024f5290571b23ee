import CProtobufC
import FileIO
import Foundation
import CProtobufFile
import CoreMLSchema
import Protobuf
import Threads
import XCTest

/// Arrays produced while the message is written: the file must be byte for
/// byte what protobuf-c packs from the same values in memory, whatever order
/// and threads the pieces come in, and a producer that fails or breaks its
/// length must leave no file.
final class StreamedFieldsTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("StreamedFieldsTests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The test spec's convolution weights (108 floats).
    func convolutionWeights(of spec: TestSpec) throws -> UnsafeMutablePointer<CoreML__Specification__WeightParams> {
        let classifier = try XCTUnwrap(spec.model.pointee.neuralnetworkclassifier)
        let conv = try XCTUnwrap(classifier.pointee.layers[0]?.pointee.convolution)
        return try XCTUnwrap(conv.pointee.weights)
    }

    /// Replaces the convolution weights by a placeholder whose pieces
    /// `writePiece` writes, pieces of `pieceLength` floats.
    func streamConvolutionWeights(of spec: TestSpec, pieces: Int, pieceLength: Int,
                                  writePiece: @escaping StreamedFields.PieceWriter) throws -> StreamedFields {
        let weights = try convolutionWeights(of: spec)
        let streamed = StreamedFields()
        let placeholder = streamed.placeholder(length: 4 * TestSpec.convWeights.count, pieces: pieces, writePiece: writePiece)
        weights.pointee.floatvalue = placeholder.assumingMemoryBound(to: Float.self)
        return streamed
    }

    /// Records what long work reports (`WorkProgress`).
    final class ProgressRecorder: WorkProgressListener, @unchecked Sendable {
        let lock = Lock()
        var reports: [(task: String, done: Int, total: Int, unit: String)] = []
        var finishes = 0
        func progress(_ task: String, done: Int, total: Int, unit: String) { lock.locked { reports.append((task, done, total, unit)) } }
        func interrupt() {}
        func finished() { lock.locked { finishes += 1 } }
    }

    /// Streamed weights say how many megabytes are written, for the progress
    /// line of a large model's conversion, and end their task.
    func testStreamedArraysReportTheBytesWritten() throws {
        let spec = TestSpec()
        let values = TestSpec.convWeights, pieceLength = 10
        let streamed = try streamConvolutionWeights(of: spec, pieces: (values.count + pieceLength - 1) / pieceLength, pieceLength: pieceLength) { index, write in
            let start = index * pieceLength
            try Array(values[start..<min(start + pieceLength, values.count)]).withUnsafeBytes { try write($0, 4 * start) }
        }
        let recorder = ProgressRecorder()
        WorkProgress.listener = recorder
        defer { WorkProgress.listener = nil }
        try MessageFile.write(spec.message, to: folder + "/streamed.mlmodel", streamed: streamed)
        XCTAssertEqual(recorder.reports.count, 1 + (values.count + pieceLength - 1) / pieceLength, "one report before, one a piece")
        XCTAssertTrue(recorder.reports.allSatisfy { $0.task == "writing weights" && $0.unit == "MB" && $0.done <= $0.total })
        XCTAssertEqual(recorder.finishes, 1)
    }

    func testStreamedArrayIsWrittenWhereProtobufCPutsIt() throws {
        let expected = TestSpec().packed()
        let spec = TestSpec()
        let values = TestSpec.convWeights, pieceLength = 10
        let pieces = (values.count + pieceLength - 1) / pieceLength
        let streamed = try streamConvolutionWeights(of: spec, pieces: pieces, pieceLength: pieceLength) { index, write in
            let start = index * pieceLength
            let piece = Array(values[start..<min(start + pieceLength, values.count)])
            try piece.withUnsafeBytes { try write($0, 4 * start) }
        }
        let path = folder + "/streamed.mlmodel"
        try MessageFile.write(spec.message, to: path, streamed: streamed)
        XCTAssertEqual(FileManager.default.contents(atPath: path).map(Array.init), expected)
    }

    /// Over an existing file the writers start the disk every
    /// PROTO_WRITEBACK_STRIDE bytes, the sink and the pieces alike: 12 MB of
    /// pieces from several threads, then the header and the rest of the
    /// message behind them, must still be protobuf-c's bytes.
    func testLargeArrayReplacingAFileIsWrittenWhereProtobufCPutsIt() throws {
        let count = 3 << 20, pieceLength = 1 << 16
        let values = (0..<count).map { Float($0 % 1000) - 500 }
        let spec = TestSpec()
        let weights = try convolutionWeights(of: spec)
        weights.pointee.n_floatvalue = count
        let expected = values.withUnsafeBufferPointer { buffer in
            weights.pointee.floatvalue = UnsafeMutablePointer(mutating: buffer.baseAddress)
            return spec.packed()
        }
        let streamed = StreamedFields()
        let placeholder = streamed.placeholder(length: 4 * count, pieces: count / pieceLength) { index, write in
            let start = index * pieceLength
            try values[start..<start + pieceLength].withUnsafeBytes { try write($0, 4 * start) }
        }
        weights.pointee.floatvalue = placeholder.assumingMemoryBound(to: Float.self)
        let path = folder + "/large.mlmodel"
        try AtomicFile.write([1, 2, 3], to: path)
        XCTAssertEqual(AtomicFile.commit(for: path), .synced)
        try MessageFile.write(spec.message, to: path, streamed: streamed)
        let written = FileManager.default.contents(atPath: path).map(Array.init)
        XCTAssertEqual(written?.count, expected.count)
        XCTAssertTrue(written == expected, "the replacing file differs from protobuf-c's bytes")
    }

    func testFinishedIsCalledOnceEveryPieceIsWritten() throws {
        let spec = TestSpec()
        let weights = try convolutionWeights(of: spec)
        let streamed = StreamedFields()
        let values = TestSpec.convWeights
        let calls = Flag()
        let placeholder = streamed.placeholder(length: 4 * values.count, pieces: 2, finished: { calls.increment() }) { index, write in
            let half = values.count / 2
            let piece = index == 0 ? Array(values[..<half]) : Array(values[half...])
            XCTAssertEqual(calls.count, 0, "not finished before the last piece")
            try piece.withUnsafeBytes { try write($0, index == 0 ? 0 : 4 * half) }
        }
        weights.pointee.floatvalue = placeholder.assumingMemoryBound(to: Float.self)
        try MessageFile.write(spec.message, to: folder + "/finished.mlmodel", streamed: streamed)
        XCTAssertEqual(calls.count, 1)
    }

    func testShortArrayFailsAndLeavesNoFile() throws {
        let spec = TestSpec()
        let streamed = try streamConvolutionWeights(of: spec, pieces: 1, pieceLength: 108) { _, write in
            try TestSpec.convWeights.dropLast().withUnsafeBytes { try write(UnsafeRawBufferPointer($0), 0) }
        }
        let path = folder + "/short.mlmodel"
        XCTAssertThrowsError(try MessageFile.write(spec.message, to: path, streamed: streamed)) { error in
            XCTAssertTrue("\(error)".contains("432 bytes got 428"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [])
    }

    func testOverrunningPieceFails() throws {
        let spec = TestSpec()
        let streamed = try streamConvolutionWeights(of: spec, pieces: 1, pieceLength: 108) { _, write in
            try TestSpec.convWeights.withUnsafeBytes { try write($0, 4) }
        }
        XCTAssertThrowsError(try MessageFile.write(spec.message, to: folder + "/over.mlmodel", streamed: streamed)) { error in
            XCTAssertTrue("\(error)".contains("overruns"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [])
    }

    struct Refusal: Error {}

    func testProducerErrorIsThrownAndAnExistingFileStays() throws {
        let path = folder + "/kept.mlmodel"
        try AtomicFile.write([7, 7, 7], to: path)
        let spec = TestSpec()
        let streamed = try streamConvolutionWeights(of: spec, pieces: 3, pieceLength: 36) { index, _ in
            if index == 1 { throw Refusal() }
        }
        XCTAssertThrowsError(try MessageFile.write(spec.message, to: path, streamed: streamed)) { error in
            XCTAssertTrue(error is Refusal, "\(error)")
        }
        XCTAssertEqual(FileManager.default.contents(atPath: path).map(Array.init), [7, 7, 7])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["kept.mlmodel"])
    }

    func testBeforeCommitSeesTheCompleteFileAndCanRefuseIt() throws {
        let spec = TestSpec()
        let path = folder + "/checked.mlmodel"
        var seen: [UInt8]?
        try MessageFile.write(spec.message, to: path) { temporary in
            XCTAssertNotEqual(temporary, path)
            seen = FileManager.default.contents(atPath: temporary).map(Array.init)
        }
        XCTAssertEqual(seen, spec.packed())
        XCTAssertEqual(FileManager.default.contents(atPath: path).map(Array.init), spec.packed())

        XCTAssertThrowsError(try MessageFile.write(spec.message, to: folder + "/refused.mlmodel") { _ in throw Refusal() }) { error in
            XCTAssertTrue(error is Refusal)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["checked.mlmodel"])
    }
}

/// A counter that producer threads set.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    var count: Int { lock.withLock { value } }
    func increment() { lock.withLock { value += 1 } }
}

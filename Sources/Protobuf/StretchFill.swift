#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import CProtobufFile
import Threads

/// A stretch of a file whose bytes are produced in pieces while the file
/// is written (`StretchFill`): weights computed or converted as they go
/// out, never whole in memory.
public struct FileStretch: Sendable {
    /// Computes piece `index` of a stretch and writes its bytes through
    /// `write`, at their offset in the stretch. Called from any thread, for
    /// several pieces at once; the pieces together must cover the stretch.
    public typealias PieceWriter = @Sendable (_ index: Int, _ write: (_ bytes: UnsafeRawBufferPointer, _ offset: Int) throws -> Void) throws -> Void

    public let offset: Int64
    public let length: Int
    public let pieces: Int
    public let writePiece: PieceWriter
    /// Called once every piece is written (to let a source go).
    public let finished: (@Sendable () -> Void)?

    public init(offset: Int64, length: Int, pieces: Int, finished: (@Sendable () -> Void)? = nil, writePiece: @escaping PieceWriter) {
        (self.offset, self.length, self.pieces, self.finished, self.writePiece) = (offset, length, pieces, finished, writePiece)
    }
}

/// Fills stretches of a file: every core takes pieces of all of them from
/// one queue (in file order), computes each and writes it at its place
/// (`proto_write_at`). No core waits for another between stretches, and
/// each piece is written by the core that computed it, while it is still
/// in that core's cache. Shared by the NeuralNetwork writer's streamed
/// arrays (`StreamedFields`) and the ML Program's weight file.
public enum StretchFill {
    /// Writes every piece of `stretches` (in file order) to `descriptor`.
    /// `startingWriteback`: start the disk on every `PROTO_WRITEBACK_STRIDE`
    /// bytes written (for a file about to be synced). On a terminal, after
    /// a second, "writing weights: 120/550 MB".
    /// - Returns: false when a write failed (errno is set).
    /// - Throws: the error a producer threw for the earliest piece in file
    ///   order that failed (the same one in every run), or
    ///   `StreamedFieldError` for a producer that did not keep to a
    ///   stretch's length.
    public static func fill(_ stretches: [FileStretch], descriptor: Int32, startingWriteback: Bool) throws -> Bool {
        let pieces = stretches.indices.flatMap { stretch in (0..<stretches[stretch].pieces).map { (stretch: stretch, index: $0) } }
        guard !pieces.isEmpty else { return true }
        let progress = FillProgress(pieces: pieces.count, stretches: stretches.count,
                                    writebackFrom: startingWriteback ? stretches[0].offset : nil)
        let megabytes = stretches.reduce(0) { $0 + $1.length } >> 20
        defer { WorkProgress.finished() }
        WorkProgress.report("writing weights", done: 0, total: megabytes, unit: "MB")
        DispatchQueue.concurrentPerform(iterations: min(pieces.count, ProcessorCount.online)) { _ in
            while let next = progress.next() {
                let (number, stretch) = (pieces[next].stretch, stretches[pieces[next].stretch])
                do {
                    try stretch.writePiece(pieces[next].index) { bytes, offset in
                        guard offset >= 0, offset + bytes.count <= stretch.length else {
                            throw StreamedFieldError(message: "a piece at \(offset) of \(bytes.count) bytes overruns a streamed array of \(stretch.length)")
                        }
                        guard proto_write_at(descriptor, bytes.baseAddress, bytes.count, stretch.offset + Int64(offset)) == 0 else {
                            throw WriteFailed(code: errno)
                        }
                        let (total, writeback) = progress.wrote(bytes.count, toStretch: number, endingAt: stretch.offset + Int64(offset + bytes.count))
                        WorkProgress.report("writing weights", done: progress.allWritten >> 20, total: megabytes, unit: "MB")
                        if total == stretch.length { stretch.finished?() }
                        if let (start, length) = writeback { proto_start_writeback(descriptor, start, length) }
                    }
                } catch {
                    progress.fail(error, piece: next)
                }
            }
        }
        if let failure = progress.failure {
            guard let write = failure as? WriteFailed else { throw failure }
            errno = write.code
            return false
        }
        for (stretch, total) in zip(stretches, progress.totals) where total != stretch.length {
            throw StreamedFieldError(message: "a streamed array of \(stretch.length) bytes got \(total)")
        }
        return true
    }
}

/// A producer that did not keep to its stretch's length.
public struct StreamedFieldError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// A write failed with errno `code` (errno is per thread: the fill reports
/// it on its own).
private struct WriteFailed: Error {
    let code: Int32
}

/// What the threads filling the pieces share, under one lock: the next
/// piece to take (pieces 0..<count once each, until one fails), the
/// failure of the earliest piece, the bytes each stretch got, and, when
/// the disk is to be started early, how far it was: every
/// `PROTO_WRITEBACK_STRIDE` bytes of progress (pieces go out in file order,
/// give or take the one another thread is writing), as the sink does for
/// what it writes itself.
private final class FillProgress: @unchecked Sendable {
    private let lock = Lock()
    private let pieces: Int
    private var taken = 0
    private var firstFailure: (piece: Int, error: any Error)?
    private var written: [Int]
    private var writebackStart: Int64?

    init(pieces: Int, stretches: Int, writebackFrom offset: Int64?) {
        self.pieces = pieces
        written = [Int](repeating: 0, count: stretches)
        writebackStart = offset
    }

    func next() -> Int? {
        lock.locked {
            guard firstFailure == nil, taken < pieces else { return nil }
            taken += 1
            return taken - 1
        }
    }

    /// Records that `piece` failed. Pieces are taken in order and none is
    /// taken after a failure, so every piece before the earliest failed one
    /// has run: keeping the earliest makes the error the same in every run.
    func fail(_ error: any Error, piece: Int) {
        lock.locked { if firstFailure.map({ piece < $0.piece }) ?? true { firstFailure = (piece, error) } }
    }

    var failure: (any Error)? { lock.locked { firstFailure?.error } }
    var totals: [Int] { lock.locked { written } }
    /// The bytes written to all the stretches so far.
    var allWritten: Int { lock.locked { everything } }
    private var everything = 0

    /// Records `bytes` written to stretch `stretch`, ending at file offset
    /// `end`: the stretch's total so far, and the part of the file to start
    /// the disk on, if that is wanted and a stride's worth has built up.
    func wrote(_ bytes: Int, toStretch stretch: Int, endingAt end: Int64) -> (total: Int, writeback: (Int64, Int64)?) {
        lock.locked {
            written[stretch] += bytes
            everything += bytes
            guard let start = writebackStart, end - start >= Int64(PROTO_WRITEBACK_STRIDE) else {
                return (written[stretch], nil)
            }
            writebackStart = end
            return (written[stretch], (start, end - start))
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CProtobufC
import Dispatch
import CProtobufFile
import Threads

/// Arrays of a message being written that are produced while it is written
/// rather than before: weights computed from a source file go straight into
/// the output file, a piece at a time, and never exist in memory whole.
///
/// The message holds a placeholder address in place of each such array
/// (protobuf-c packs a packed float field by handing its whole array to the
/// sink, and only counts it to size the message). When the packer reaches
/// one, the sink reserves the array's stretch of the file and packing goes
/// on; once the whole message is packed, every core takes pieces of all the
/// arrays from one queue, computes each and writes it at its place. No core
/// waits for another between arrays, and each piece is written by the core
/// that computed it, while it is still in that core's cache.
public final class StreamedFields {
    /// Computes piece `index` of an array and writes its bytes through
    /// `write`, at their offset in the array. Called from any thread, for
    /// several pieces at once; the pieces together must cover the array.
    public typealias PieceWriter = @Sendable (_ index: Int, _ write: (_ bytes: UnsafeRawBufferPointer, _ offset: Int) throws -> Void) throws -> Void

    private struct Array {
        let length: Int
        let pieces: Int
        let writePiece: PieceWriter
        let finished: (@Sendable () -> Void)?
    }

    private var arrays: [UnsafeRawPointer: Array] = [:]
    private var reservations: [(address: UnsafeMutableRawPointer, length: Int)] = []
    /// Arrays the packer reached, with the file offset reserved for each.
    private var pending: [(array: Array, offset: Int64)] = []
    /// The first error a producer threw (not a write failure: errno tells those).
    fileprivate var error: (any Error)?

    public init() {}

    deinit {
        for reservation in reservations { munmap(reservation.address, reservation.length) }
    }

    /// An address to store in place of an array of `length` bytes that
    /// `writePiece` produces in `pieces` pieces; `finished` is called once
    /// all of them are written. The address is an inaccessible reservation
    /// of that size: anything that reads it rather than streaming it
    /// crashes at once instead of writing other bytes.
    public func placeholder(length: Int, pieces: Int, finished: (@Sendable () -> Void)? = nil,
                            writePiece: @escaping PieceWriter) -> UnsafeMutableRawPointer {
        let size = max(length, 1)
        guard let address = mmap(nil, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
              address != MAP_FAILED else {
            fatalError("cannot reserve \(size) bytes of address space: \(String(cString: strerror(errno)))")
        }
        reservations.append((address, size))
        arrays[UnsafeRawPointer(address)] = Array(length: length, pieces: pieces, writePiece: writePiece, finished: finished)
        return address
    }

    /// `ProtoStreamFunction` for `proto_pack_to_file`, with the fields as
    /// context: reserves a placeholder's stretch and remembers it.
    static let streamFunction: ProtoStreamFunction = { context, data, length, sink in
        guard let context, let data, let sink else { return 0 }
        let fields = Unmanaged<StreamedFields>.fromOpaque(context).takeUnretainedValue()
        guard let array = fields.arrays[UnsafeRawPointer(data)] else { return 0 }
        guard array.length == length else {
            fields.error = StreamedFieldError(message: "a streamed array of \(array.length) bytes was packed as \(length)")
            return -1
        }
        var offset: Int64 = 0
        guard proto_sink_reserve(sink, length, &offset) >= 0 else { return -1 }
        fields.pending.append((array, offset))
        return 1
    }

    /// Packs `message` into `stream`, then fills the reserved stretches;
    /// returns the bytes written or -1 (errno set), throwing a producer's
    /// error. `startingWriteback`: start the disk on every
    /// `PROTO_WRITEBACK_STRIDE` bytes written (for a file about to be synced).
    func pack(_ message: UnsafePointer<ProtobufCMessage>, into stream: UnsafeMutablePointer<FILE>,
              startingWriteback: Bool) throws -> Int64 {
        let written = withExtendedLifetime(self) {
            proto_pack_to_file(message, stream, startingWriteback ? 1 : 0, Self.streamFunction,
                               Unmanaged.passUnretained(self).toOpaque())
        }
        if let error { throw error }
        guard written >= 0 else { return -1 }
        guard fflush(stream) == 0, try fillPending(descriptor: fileno(stream), startingWriteback: startingWriteback) else {
            return -1
        }
        return written
    }

    /// Every pending piece, taken in file order from one queue by one
    /// thread per core. False when a write failed (errno is set).
    private func fillPending(descriptor: Int32, startingWriteback: Bool) throws -> Bool {
        let jobs = pending
        pending = []
        let pieces = jobs.indices.flatMap { job in (0..<jobs[job].array.pieces).map { (job: job, index: $0) } }
        guard !pieces.isEmpty else { return true }
        let progress = FillProgress(pieces: pieces.count, arrays: jobs.count,
                                    writebackFrom: startingWriteback ? jobs[0].offset : nil)
        // On a terminal, after a second: "writing weights: 120/550 MB".
        let megabytes = jobs.reduce(0) { $0 + $1.array.length } >> 20
        defer { WorkProgress.finished() }
        WorkProgress.report("writing weights", done: 0, total: megabytes, unit: "MB")
        DispatchQueue.concurrentPerform(iterations: min(pieces.count, ProcessorCount.online)) { _ in
            while let next = progress.next() {
                let (number, job) = (pieces[next].job, jobs[pieces[next].job])
                do {
                    try job.array.writePiece(pieces[next].index) { bytes, offset in
                        guard offset >= 0, offset + bytes.count <= job.array.length else {
                            throw StreamedFieldError(message: "a piece at \(offset) of \(bytes.count) bytes overruns a streamed array of \(job.array.length)")
                        }
                        guard proto_write_at(descriptor, bytes.baseAddress, bytes.count, job.offset + Int64(offset)) == 0 else {
                            throw WriteFailed(code: errno)
                        }
                        let (total, writeback) = progress.wrote(bytes.count, toArray: number, endingAt: job.offset + Int64(offset + bytes.count))
                        WorkProgress.report("writing weights", done: progress.allWritten >> 20, total: megabytes, unit: "MB")
                        if total == job.array.length { job.array.finished?() }
                        if let (start, length) = writeback { proto_start_writeback(descriptor, start, length) }
                    }
                } catch {
                    progress.fail(error)
                }
            }
        }
        if let failure = progress.failure {
            guard let write = failure as? WriteFailed else { throw failure }
            errno = write.code
            return false
        }
        for (job, total) in zip(jobs, progress.totals) where total != job.array.length {
            throw StreamedFieldError(message: "a streamed array of \(job.array.length) bytes got \(total)")
        }
        return true
    }
}

/// A streamed array whose producer did not keep to its length.
public struct StreamedFieldError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// A write failed with errno `code` (errno is per thread: the pack reports
/// it on its own).
private struct WriteFailed: Error {
    let code: Int32
}

/// What the threads filling the pieces share, under one lock: the next
/// piece to take (pieces 0..<count once each, until one fails), the first
/// error, the bytes each array got, and, when the disk is to be started
/// early, how far it was: every `PROTO_WRITEBACK_STRIDE` bytes of progress
/// (pieces go out in file order, give or take the one another thread is
/// writing), as the sink does for what it writes itself.
private final class FillProgress: @unchecked Sendable {
    private let lock = Lock()
    private let pieces: Int
    private var taken = 0
    private var firstFailure: (any Error)?
    private var written: [Int]
    private var writebackStart: Int64?

    init(pieces: Int, arrays: Int, writebackFrom offset: Int64?) {
        self.pieces = pieces
        written = [Int](repeating: 0, count: arrays)
        writebackStart = offset
    }

    func next() -> Int? {
        lock.locked {
            guard firstFailure == nil, taken < pieces else { return nil }
            taken += 1
            return taken - 1
        }
    }

    func fail(_ error: any Error) {
        lock.locked { if firstFailure == nil { firstFailure = error } }
    }

    var failure: (any Error)? { lock.locked { firstFailure } }
    var totals: [Int] { lock.locked { written } }
    /// The bytes written to all the arrays so far.
    var allWritten: Int { lock.locked { everything } }
    private var everything = 0

    /// Records `bytes` written to array `array`, ending at file offset
    /// `end`: the array's total so far, and the stretch to start the disk
    /// on, if that is wanted and a stride's worth has built up.
    func wrote(_ bytes: Int, toArray array: Int, endingAt end: Int64) -> (total: Int, writeback: (Int64, Int64)?) {
        lock.locked {
            written[array] += bytes
            everything += bytes
            guard let start = writebackStart, end - start >= Int64(PROTO_WRITEBACK_STRIDE) else {
                return (written[array], nil)
            }
            writebackStart = end
            return (written[array], (start, end - start))
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CProtobufC
import CProtobufFile

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
    /// Computes piece `index` of an array and writes its bytes at their
    /// offset in the array (`FileStretch.PieceWriter`).
    public typealias PieceWriter = FileStretch.PieceWriter

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

    /// Every pending piece, filled by one thread per core (`StretchFill`).
    /// False when a write failed (errno is set).
    private func fillPending(descriptor: Int32, startingWriteback: Bool) throws -> Bool {
        let stretches = pending.map { FileStretch(offset: $0.offset, length: $0.array.length, pieces: $0.array.pieces,
                                                   finished: $0.array.finished, writePiece: $0.array.writePiece) }
        pending = []
        return try StretchFill.fill(stretches, descriptor: descriptor, startingWriteback: startingWriteback)
    }
}

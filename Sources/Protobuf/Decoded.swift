import CProtobufC
import Threads

/// A decoded message: protobuf-c structs that live in `arena` and whose weight
/// payloads may point into the input buffer (kept alive by the arena).
public final class Decoded<Message>: @unchecked Sendable {
    /// Owns every struct of the message and keeps the input alive.
    public let arena: Arena
    /// The root message.
    public let root: UnsafeMutablePointer<Message>
    private let offsets: MessageOffsets

    init(arena: Arena, root: UnsafeMutablePointer<Message>, offsets: MessageOffsets) {
        self.arena = arena
        self.root = root
        self.offsets = offsets
    }

    /// Byte offset in the input where `message`'s encoding starts, for
    /// errors about a message that decoded fine but makes no sense (a
    /// missing required part, a count that does not fit).
    public func offset(of message: UnsafeRawPointer) -> Int {
        offsets.offset(of: message)
    }
}

/// Where each decoded message started in the input: recorded in a list as
/// messages are decoded (a graph has a hundred thousand), looked up through
/// a table built when first asked (most conversions never ask).
final class MessageOffsets: @unchecked Sendable {
    private var recorded: [(message: UnsafeRawPointer, offset: Int)] = []
    private var table: [UnsafeRawPointer: Int]?
    private let lock = Lock()

    /// Called while decoding (one thread).
    func record(_ message: UnsafeRawPointer, at offset: Int) {
        recorded.append((message, offset))
    }

    func offset(of message: UnsafeRawPointer) -> Int {
        lock.locked {
            if table == nil { table = Dictionary(recorded.lazy.map { ($0.message, $0.offset) }) { _, last in last } }
            return table?[message] ?? 0
        }
    }
}

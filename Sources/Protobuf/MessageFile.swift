#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FileIO
import CProtobufC
import CProtobufFile

/// Whole protobuf messages to and from files.
public enum MessageFile {
    /// Packs `message` into `path` atomically, through protobuf-c's
    /// serializer: fields stream from their memory (weights included)
    /// straight into the file, with no second copy of the message; the
    /// arrays at `streamed`'s placeholders are produced as they are written.
    /// `inputs` and `beforeCommit` as for `AtomicFile.write`.
    /// - Throws: `FileError` when the file cannot be written, or what a
    ///   streamed array's producer throws.
    public static func write(_ message: UnsafePointer<ProtobufCMessage>, to path: String, inputs: [String] = [],
                             streamed: StreamedFields = StreamedFields(),
                             beforeCommit: ((String) throws -> Void)? = nil) throws {
        try AtomicFile.write(to: path, inputs: inputs, beforeCommit: beforeCommit) { stream, commit in
            guard try streamed.pack(message, into: stream, startingWriteback: commit == .synced) >= 0 else {
                throw FileError(path: path, errno: errno, action: "cannot write")
            }
        }
    }

    /// Packs `message` into the file for `path` in `set` (one of its
    /// targets), as `write(_:to:...)` does: not in place before the set's
    /// commit. - Returns: the temporary file's path, to read it back.
    @discardableResult
    public static func write(_ message: UnsafePointer<ProtobufCMessage>, to path: String, in set: AtomicFileSet,
                             streamed: StreamedFields = StreamedFields()) throws -> String {
        try set.write(to: path) { stream, commit in
            guard try streamed.pack(message, into: stream, startingWriteback: commit == .synced) >= 0 else {
                throw FileError(path: path, errno: errno, action: "cannot write")
            }
        }
    }

    /// Maps `path` and decodes it as the message `descriptor` describes.
    /// - Throws: `FileError` for an unreadable file, `DecodeError` for a
    ///   malformed one.
    public static func read<Message>(
        _ type: Message.Type, descriptor: UnsafePointer<ProtobufCMessageDescriptor>,
        from path: String, options: DecodeOptions = DecodeOptions()
    ) throws -> Decoded<Message> {
        let file = try MappedFile(path: path)
        return try BinaryDecoder.decode(type, descriptor: descriptor, bytes: file.bytes, owner: file, options: options)
    }
}

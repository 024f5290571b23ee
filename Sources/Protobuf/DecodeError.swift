/// A malformed protobuf input: what is wrong, at which byte, and in which
/// field (a path such as `description.input[0].type`).
public struct DecodeError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What is wrong, in words.
    public var message: String
    /// Byte offset from the start of the input where the problem was found.
    public var offset: Int
    /// Field names from the root message down to where the problem is.
    public var fieldPath: [String]

    public init(_ message: String, offset: Int, fieldPath: [String] = []) {
        self.message = message
        self.offset = offset
        self.fieldPath = fieldPath
    }

    public var description: String {
        let location = fieldPath.isEmpty ? "" : " (in \(fieldPath.joined(separator: ".")))"
        return "byte \(offset): \(message)\(location)"
    }
}

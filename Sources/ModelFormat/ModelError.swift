/// A model that does not hold together: a dangling tensor, a weight count
/// that does not fit its layer, shapes that do not line up. The message
/// names the node (or input, or output) concerned.
public struct ModelError: Error, CustomStringConvertible, Sendable, Equatable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    /// An error about the node called `node`.
    public init(node: String, _ message: String) {
        self.message = "layer '\(node)': \(message)"
    }

    public var description: String { message }
}

extension String {
    /// The message without a leading `layer 'name': `, for a caller that
    /// names the layer itself (a converter naming the source layer).
    public func dropping(layer name: String) -> String {
        let prefix = "layer '\(name)': "
        return hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}

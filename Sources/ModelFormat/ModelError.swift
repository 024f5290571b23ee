import Naming

/// An error that is one line of text for a person: what went wrong, naming
/// the file, layer or option concerned. `Kind` keeps the errors of each
/// stage apart (`catch let error as ConversionOptionError` is a usage
/// mistake, a `ModelError` is not) while they share this one definition.
///
/// `message` may mention options (`"\(option: .inputShape)"`): the
/// description names them as the library does, a program by its flags.
public struct MessageError<Kind>: OptionMentioningError, Sendable, Equatable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }
}

/// A model that does not hold together: a dangling tensor, a weight count
/// that does not fit its layer, shapes that do not line up. The message
/// names the node (or input, or output) concerned.
public typealias ModelError = MessageError<ModelErrorKind>
public enum ModelErrorKind {}

extension MessageError where Kind == ModelErrorKind {
    /// An error about the node called `node`.
    public init(node: String, _ message: String) {
        self.init("layer '\(node)': \(message)")
    }
}

extension String {
    /// The message without a leading `layer 'name': `, for a caller that
    /// names the layer itself (a converter naming the source layer).
    public func dropping(layer name: String) -> String {
        let prefix = "layer '\(name)': "
        return hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}

extension MessageError {
    /// Runs `body`, a frontend's mapping of one node of a source file, and
    /// says where a failure happened: an error of the frontend's own kind
    /// (`Own`: this one, unless said) comes out as this kind with
    /// `location: ` in front; a `ModelError`, which knows nothing of the
    /// source, with `location: node: ` (`node` nil: as the frontend's own),
    /// its leading `layer 'name': ` dropped for `layer`, which says it again.
    public static func locating<R>(_ location: String, node: String? = nil, layer: String? = nil,
                                   _ body: () throws -> R) throws -> R {
        try locating(location, node: node, layer: layer, own: Self.self, body)
    }

    public static func locating<R, Own>(_ location: String, node: String? = nil, layer: String? = nil,
                                        own: MessageError<Own>.Type, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as MessageError<Own> {
            throw Self("\(location): \(error.message)")
        } catch let error as ModelError {
            let message = layer.map { error.message.dropping(layer: $0) } ?? error.message
            throw Self("\(location): \(node.map { "\($0): " } ?? "")\(message)")
        }
    }
}

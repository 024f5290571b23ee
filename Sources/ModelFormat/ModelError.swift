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

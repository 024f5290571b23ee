import ModelFormat

/// One attribute of a layer: its machine-readable value (every attribute
/// appears in `--json`) and, when it is worth showing in `--layers`, its
/// text there. Defaults (stride 1, no padding, one group, ...) and values
/// that the table's other columns already show have no text.
public struct LayerAttribute: Equatable, Sendable {
    public var key: String
    public var value: JSON
    /// `kernel 7x7`; nil when hidden in the table.
    public var text: String?

    public init(_ key: String, _ value: JSON, text: String?) {
        self.key = key
        self.value = value
        self.text = text
    }
}

extension Node {
    /// The operation's attributes; an add or multiply constant counts only
    /// with a single input, so it is hidden otherwise.
    public var attributes: [LayerAttribute] {
        var list = operation.attributes
        let takesConstant = switch operation {
        case .add, .multiply: true
        default: false
        }
        if takesConstant && inputs.count > 1 {
            for index in list.indices { list[index].text = nil }
        }
        return list
    }

    /// The table text of the attributes that are shown: `kernel 7x7, stride 4x4`.
    public var attributeText: String {
        attributes.compactMap(\.text).joined(separator: ", ")
    }
}

extension Op {
    /// The attributes of the operation, in a fixed order (`OpDefinition.attributes`).
    public var attributes: [LayerAttribute] {
        definition.attributes.map { LayerAttribute($0.key, JSON($0.value), text: $0.text) }
    }

    /// The table text of the attributes that are shown: `kernel 7x7, stride 4x4`.
    public var attributeText: String {
        attributes.compactMap(\.text).joined(separator: ", ")
    }
}

extension JSON {
    /// An operation attribute's value.
    init(_ value: OpAttribute.Value) {
        switch value {
        case .int(let value): self = .int(value)
        case .ints(let values): self = .ints(values)
        case .float(let value): self = .float(value)
        case .bool(let value): self = .bool(value)
        case .string(let value): self = .string(value)
        case .edges(let e):
            self = .object([.init("top", .int(e.top)), .init("bottom", .int(e.bottom)),
                            .init("left", .int(e.left)), .init("right", .int(e.right))])
        }
    }
}

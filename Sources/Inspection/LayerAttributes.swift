import ModelFormat

extension Node {
    /// The operation's attributes; an add or multiply constant counts only
    /// with a single input, so it is hidden otherwise.
    public var attributes: [OpAttribute] {
        var list = operation.definition.attributes
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
    /// The table text of the attributes that are shown: `kernel 7x7, stride 4x4`.
    public var attributeText: String {
        definition.attributes.compactMap(\.text).joined(separator: ", ")
    }
}

extension JSON {
    /// An operation attribute's value.
    public init(_ value: OpAttribute.Value) {
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

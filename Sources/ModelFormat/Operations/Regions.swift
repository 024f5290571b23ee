public struct Padding: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case constant(Float)
        case reflection
        case replication
    }
    public var kind: Kind
    public var edges: Edges

    public init(kind: Kind, edges: Edges) {
        self.kind = kind
        self.edges = edges
    }
}

public enum Crop: Equatable, Sendable {
    /// Removes fixed amounts from each edge.
    case edges(Edges)
    /// Crops the first input to the second input's H and W, starting at
    /// `offset` [top, left].
    case like(offset: [Int])
}

extension Padding: OpDefinition {
    public var kindName: String { "padding" }
    public var takesAnyRank: Bool { false }

    public func checkAttributes() throws(ModelError) {
        try AttributeBounds.edges(edges, "padding")
        if case .constant(let value) = kind { try AttributeBounds.finite([value], "the padding value") }
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let first = inputs[0]
        return [TensorShape(channels: first.channels, height: first.height + edges.top + edges.bottom,
                            width: first.width + edges.left + edges.right)]
    }

    public var attributes: [OpAttribute] {
        let (kindText, text): (String, String?) = switch kind {
        case .constant(let value): ("constant", value == 0 ? nil : "constant \(value)")
        case .reflection: ("reflection", "reflection")
        case .replication: ("replication", "replication")
        }
        var list = [OpAttribute("kind", .string(kindText), text: text)]
        if case .constant(let value) = kind { list.append(OpAttribute("value", .float(value), text: nil)) }
        list.append(.edges("pad", edges, hideZero: false))
        return list
    }
}

extension Crop: OpDefinition {
    public var kindName: String { "crop" }
    public var takesAnyRank: Bool { false }
    public var inputCounts: ClosedRange<Int> {
        if case .like = self { 2...2 } else { 1...1 }
    }

    public func checkAttributes() throws(ModelError) {
        switch self {
        case .edges(let e):
            try AttributeBounds.edges(e, "crop amount")
        case .like(let offset):
            guard offset.count == 2 else { throw ModelError("crop offset \(offset) is not [top, left]") }
            try AttributeBounds.sizes(offset, "crop offset", minimum: 0)
        }
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let first = inputs[0]
        switch self {
        case .edges(let e):
            return [TensorShape(channels: first.channels, height: first.height - e.top - e.bottom, width: first.width - e.left - e.right)]
        case .like(let offset):
            guard inputs.count == 2 else { throw ModelError("crops to a reference input, but has \(inputs.count) inputs") }
            guard offset[0] + inputs[1].height <= first.height, offset[1] + inputs[1].width <= first.width else {
                throw ModelError("a \(inputs[1].height)x\(inputs[1].width) crop at offset \(offset) runs past the \(first.height)x\(first.width) input")
            }
            return [TensorShape(channels: first.channels, height: inputs[1].height, width: inputs[1].width)]
        }
    }

    public var attributes: [OpAttribute] {
        switch self {
        case .edges(let e): [.edges("crop", e, hideZero: false)]
        case .like(let offset): [OpAttribute("offset", .ints(offset), text: "like input 2, offset \(OpAttribute.dims(offset))")]
        }
    }
}

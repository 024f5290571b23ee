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

/// Takes `start..<end` with `stride` along one axis. Negative indices count
/// from the axis' end as in Python: `end: -1` stops before the last element
/// (Core ML's SliceLayerParams: "-1 denotes N-1"). Where Core ML computes
/// otherwise, the model is refused (`Slice.outputShapes`): a
/// positive end past the axis, a negative start before a positive end.
public struct Slice: Equatable, Sendable {
    public enum Axis: Equatable, Sendable { case channel, height, width }
    public var axis: Axis
    public var start: Int
    public var end: Int
    public var stride: Int

    public init(axis: Axis, start: Int, end: Int, stride: Int = 1) {
        self.axis = axis
        self.start = start
        self.end = end
        self.stride = stride
    }
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

extension Slice: OpDefinition {
    public var kindName: String { "slice" }
    public var takesAnyRank: Bool { false }

    public func checkAttributes() throws(ModelError) {
        try AttributeBounds.size(stride, "slice stride")
        guard start.magnitude <= UInt(ShapeInference.maximumSize), end.magnitude <= UInt(ShapeInference.maximumSize) else {
            throw ModelError("slice bounds \(start)..<\(end) are out of range")
        }
    }

    /// Core ML's slice reads `start..<end` of an axis only where it agrees
    /// with the Python semantics the model spec states: a positive end
    /// within the axis (Core ML does not clamp it), and no negative start
    /// before a positive end (Core ML computes that length differently).
    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let first = inputs[0]
        let index = switch axis {
        case .channel: first.rank - 3
        case .height: first.rank - 2
        case .width: first.rank - 1
        }
        let size = first.dimensions[index]
        if end > size { throw ModelError("slice end \(end) is past the axis' \(size) elements") }
        if start < 0 && end > 0 { throw ModelError("slice \(start)..<\(end) mixes a negative start with a positive end") }
        return [first.replacing(axis: index, with: length(of: size))]
    }

    /// Elements taken from an axis of `size`.
    public func length(of size: Int) -> Int {
        let first = max(start < 0 ? size + start : start, 0)
        // Python-style: -1 is the last index, and the end is exclusive
        // (NeuralNetwork.proto: "-1 denotes N-1"); ends past N are clamped.
        let last = end < 0 ? size + end : min(end, size)
        guard stride > 0, last > first else { return 0 }
        return (last - first + stride - 1) / stride
    }

    public var attributes: [OpAttribute] {
        let axisText = "\(axis)"
        return [OpAttribute("axis", .string(axisText), text: "axis \(axisText)"),
                OpAttribute("start", .int(start), text: "start \(start)"),
                OpAttribute("end", .int(end), text: "end \(end)"),
                OpAttribute("stride", .int(stride), text: stride == 1 ? nil : "stride \(stride)")]
    }
}

/// Reshape and concatenation of tensors of any rank, as numpy does them
/// (reshapes of maps and concatenation along their channels included),
/// and constants.

/// To exactly `targetShape`, the values in the same (row-major) order;
/// with `.channelLast`, a [C, H, W] map to a [C, H, W] map, reading and
/// writing both in H, W, C order (what Core ML's classic reshape layer
/// does in that mode). Frontends resolve a -1 first
/// (`TensorShape.reshapeTarget`). The backend writes Core ML's classic
/// reshape layer for a [C, H, W] target in a model of maps, and
/// reshapeStatic (specification 4) otherwise.
public struct Reshape: OpDefinition, Equatable {
    public var targetShape: [Int]
    public var order: ChannelOrder

    public init(targetShape: [Int], order: ChannelOrder = .channelFirst) {
        self.targetShape = targetShape
        self.order = order
    }

    public var kindName: String { "reshape" }
    // In H, W, C order, only maps (Core ML reads the classic layer's input at rank 5 only).
    public var takesAnyRank: Bool { order == .channelFirst }
    public var takesBatchedMaps: Bool { false }

    public func checkAttributes() throws(ModelError) {
        guard !targetShape.isEmpty else { throw ModelError("reshape target is empty") }
        guard order == .channelFirst || targetShape.count == 3 else { throw ModelError("reshape target \(targetShape) is not [C, H, W]") }
        try AttributeBounds.sizes(targetShape, "reshape size")
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        guard targetShape.checkedProduct == inputs[0].count else {
            throw ModelError("cannot reshape \(inputs[0]) (\(inputs[0].count) values) to \(targetShape)")
        }
        return [TensorShape(targetShape)]
    }

    public var attributes: [OpAttribute] {
        [OpAttribute("targetShape", .ints(targetShape), text: "to \(OpAttribute.dims(targetShape))"), .order(order)]
    }
}

extension Op {
    /// To `targetShape`, reading in `order` (channel last: a [C, H, W] map
    /// to a [C, H, W] map, in H, W, C order).
    public static func reshape(targetShape: [Int], order: ChannelOrder = .channelFirst) -> Op {
        .defined(Reshape(targetShape: targetShape, order: order))
    }
}

/// The inputs joined along `axis` (negative counts from the end); every
/// other axis must agree. Along axis -3 of maps, the channels of [C, H, W]
/// (or [1, C, H, W]): what `Op.concat` makes and Core ML's classic concat
/// layer does; the backend writes that layer then, and concatND otherwise.
public struct Concat: OpDefinition, Equatable {
    public var axis: Int

    public init(axis: Int) {
        self.axis = axis
    }

    /// The axis of channels, counted from the end.
    public static let channelAxis = -3

    public var kindName: String { "concat" }
    // Core ML's validators: at least 2 inputs.
    public var inputCounts: ClosedRange<Int> { 2...Int.max }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let first = inputs[0]
        guard let index = first.axisIndex(axis) else { throw ModelError("axis \(axis) is outside the input \(first)") }
        var total = 0
        for shape in inputs {
            guard shape.rank == first.rank,
                  shape.dimensions.indices.allSatisfy({ $0 == index || shape.dimensions[$0] == first.dimensions[$0] }) else {
                throw ModelError("cannot join \(inputs.map(\.description).joined(separator: ", ")) along axis \(axis)")
            }
            total += shape.dimensions[index]  // at most count * 2^30
        }
        return [first.replacing(axis: index, with: total)]
    }

    /// Along channels (the default) shows no text.
    public var attributes: [OpAttribute] {
        [OpAttribute("axis", .int(axis), text: axis == Self.channelAxis ? nil : "axis \(axis)")]
    }
}

extension Op {
    /// The inputs stacked along channels: `Concat` along axis -3.
    public static var concat: Op { .defined(Concat(axis: Concat.channelAxis)) }
}

/// A constant tensor of any rank: what a model adds, multiplies or joins
/// (a transformer's position embedding, a layer norm's scale, a map of
/// grid offsets). The backend writes a [C, H, W] one in a model of maps
/// as Core ML's classic load-constant layer, and load-constant-ND
/// (specification 4) otherwise.
public struct Constant: OpDefinition, Equatable {
    public var shape: [Int]
    public var data: Weights

    public init(shape: [Int], data: Weights) {
        self.shape = shape
        self.data = data
    }

    public var kindName: String { "constant" }
    public var inputCounts: ClosedRange<Int> { 0...0 }

    public func checkAttributes() throws(ModelError) {
        guard !shape.isEmpty, shape.count <= 5 else { throw ModelError("constant shape \(shape) is not of rank 1 to 5") }
        try AttributeBounds.sizes(shape, "constant size")
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        [TensorShape(shape)]
    }

    public var weightTensors: [NamedWeights] { [NamedWeights("data", shape: shape, data)] }

    public func checkWeights() throws(ModelError) {
        try AttributeBounds.weights(data, count: shape.checkedProduct, "constant")
    }

    public var attributes: [OpAttribute] { [OpAttribute("shape", .ints(shape), text: "shape \(OpAttribute.dims(shape))")] }
}

extension Op {
    /// A constant tensor of `shape` (in a model of maps, [C, H, W]).
    public static func constant(shape: [Int], data: Weights) -> Op { .defined(Constant(shape: shape, data: data)) }
}

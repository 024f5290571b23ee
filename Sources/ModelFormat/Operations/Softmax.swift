/// Softmax along one axis of a tensor of any rank:
/// `y = exp(x - max) / sum(exp(x - max))` over that axis. Along axis -3 of
/// maps, over the channels of [C, H, W] (or [1, C, H, W]): what
/// `Op.softmax` makes and Core ML's classic softmax layer does; the
/// backend writes that layer then, and softmaxND otherwise.
public struct Softmax: OpDefinition, Equatable {
    /// The axis; negative counts from the end (-1 is the last).
    public var axis: Int

    public init(axis: Int) {
        self.axis = axis
    }

    /// The axis of channels, counted from the end.
    public static let channelAxis = -3

    public var kindName: String { "softmax" }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        guard inputs[0].axisIndex(axis) != nil else { throw ModelError("axis \(axis) is outside the input \(inputs[0])") }
        return [inputs[0]]
    }

    /// Over channels (the default) shows no text.
    public var attributes: [OpAttribute] {
        [OpAttribute("axis", .int(axis), text: axis == Self.channelAxis ? nil : "axis \(axis)")]
    }
}

extension Op {
    /// Softmax over channels: `Softmax` along axis -3.
    public static var softmax: Op { .defined(Softmax(axis: Softmax.channelAxis)) }
}

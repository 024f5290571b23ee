/// Softmax along one axis of a tensor of any rank:
/// `y = exp(x - max) / sum(exp(x - max))` over that axis.
public struct SoftmaxND: OpDefinition, Equatable {
    /// The axis; negative counts from the end (-1 is the last).
    public var axis: Int

    public init(axis: Int) {
        self.axis = axis
    }

    public var kindName: String { "softmaxND" }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        guard inputs[0].axisIndex(axis) != nil else { throw ModelError("axis \(axis) is outside the input \(inputs[0])") }
        return [inputs[0]]
    }

    public var attributes: [OpAttribute] {
        [OpAttribute("axis", .int(axis), text: "axis \(axis)")]
    }
}

/// The logarithm of a softmax along one axis of a tensor of any rank:
/// `y = x - max - log(sum(exp(x - max)))` over that axis, which stays
/// finite where `log(softmax(x))` underflows to -infinity (a value far
/// below the largest of its line).
public struct LogSoftmax: OpDefinition, Equatable {
    /// The axis; negative counts from the end (-1 is the last).
    public var axis: Int

    public init(axis: Int) {
        self.axis = axis
    }

    public var kindName: String { "logSoftmax" }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        guard inputs[0].axisIndex(axis) != nil else { throw ModelError("axis \(axis) is outside the input \(inputs[0])") }
        return [inputs[0]]
    }

    public var attributes: [OpAttribute] {
        [OpAttribute("axis", .int(axis), text: "axis \(axis)")]
    }
}

/// The running sum along one axis of a tensor of any rank: each output
/// the sum of the inputs up to and including its own position, leaving its
/// own out when `exclusive` (the first output is then 0), summed from the
/// end of the axis when `reverse`.
public struct CumSum: OpDefinition, Equatable {
    /// The axis; negative counts from the end (-1 is the last).
    public var axis: Int
    public var exclusive: Bool
    public var reverse: Bool

    public init(axis: Int, exclusive: Bool = false, reverse: Bool = false) {
        self.axis = axis
        self.exclusive = exclusive
        self.reverse = reverse
    }

    public var kindName: String { "cumSum" }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        guard inputs[0].axisIndex(axis) != nil else { throw ModelError("axis \(axis) is outside the input \(inputs[0])") }
        return [inputs[0]]
    }

    public var attributes: [OpAttribute] {
        [OpAttribute("axis", .int(axis), text: "axis \(axis)"),
         OpAttribute("exclusive", .bool(exclusive), text: exclusive ? "exclusive" : nil),
         OpAttribute("reverse", .bool(reverse), text: reverse ? "reverse" : nil)]
    }
}

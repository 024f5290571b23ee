/// `Op.split`: the channels split evenly into one tensor per output.
public struct Split: OpDefinition, Equatable {
    public var kindName: String { "split" }
    public var takesAnyRank: Bool { false }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let first = inputs[0]
        guard outputCount >= 2 else { throw ModelError("a split needs at least 2 outputs, has \(outputCount)") }
        guard first.channels % outputCount == 0 else {
            throw ModelError("cannot split \(first.channels) channels into \(outputCount) equal parts")
        }
        let part = TensorShape(channels: first.channels / outputCount, height: first.height, width: first.width)
        return Array(repeating: part, count: outputCount)
    }
}

/// `Op.flatten`: [C, H, W] -> [C*H*W, 1, 1].
public struct Flatten: OpDefinition, Equatable {
    public var order: ChannelOrder
    public var kindName: String { "flatten" }
    public var takesAnyRank: Bool { false }
    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        [TensorShape(channels: inputs[0].count)]
    }
    public var attributes: [OpAttribute] { [.order(order)] }
}

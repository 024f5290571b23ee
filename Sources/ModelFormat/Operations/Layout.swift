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

/// `Op.reshape`: to a [C, H, W] target.
public struct Reshape: OpDefinition, Equatable {
    public var targetShape: [Int]
    public var order: ChannelOrder
    public var kindName: String { "reshape" }
    public var takesAnyRank: Bool { false }
    public var takesBatchedMaps: Bool { false }

    public func checkAttributes() throws(ModelError) {
        guard targetShape.count == 3 else { throw ModelError("reshape target \(targetShape) is not [C, H, W]") }
        try AttributeBounds.sizes(targetShape, "reshape size")
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        guard let shape = TensorShape(featureShape: targetShape), shape.count == inputs[0].count else {
            throw ModelError("cannot reshape \(inputs[0]) (\(inputs[0].count) values) to \(targetShape)")
        }
        return [shape]
    }

    public var attributes: [OpAttribute] {
        [OpAttribute("targetShape", .ints(targetShape), text: "to \(OpAttribute.dims(targetShape))"), .order(order)]
    }
}

/// `Op.permute`: the axes of [Seq, C, H, W] reordered, Seq staying first.
public struct Permute: OpDefinition, Equatable {
    public var axes: [Int]
    public var kindName: String { "permute" }
    public var takesAnyRank: Bool { false }
    public var takesBatchedMaps: Bool { false }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let first = inputs[0]
        guard axes.sorted() == [0, 1, 2, 3], axes[0] == 0 else { throw ModelError("permutation \(axes) is not supported") }
        let dims = [1, first.channels, first.height, first.width]
        return [TensorShape(channels: dims[axes[1]], height: dims[axes[2]], width: dims[axes[3]])]
    }

    public var attributes: [OpAttribute] { [OpAttribute("axes", .ints(axes), text: "axes \(OpAttribute.dims(axes))")] }
}

/// `Op.constant`: a [C, H, W] tensor of stored values; no input.
public struct ConstantTensor: OpDefinition, Equatable {
    public var shape: [Int]
    public var data: Weights
    public var kindName: String { "constant" }
    public var takesAnyRank: Bool { false }
    public var takesBatchedMaps: Bool { false }
    public var inputCounts: ClosedRange<Int> { 0...0 }

    public func checkAttributes() throws(ModelError) {
        guard shape.count == 3 else { throw ModelError("constant shape \(shape) is not [C, H, W]") }
        try AttributeBounds.sizes(shape, "constant size")
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        guard let tensor = TensorShape(featureShape: shape) else { throw ModelError("constant shape \(shape) is not [C, H, W]") }
        return [tensor]
    }

    public var weightTensors: [NamedWeights] { [NamedWeights("data", shape: shape, data)] }

    public func checkWeights() throws(ModelError) {
        try AttributeBounds.weights(data, count: shape.checkedProduct, "constant")
    }

    public var attributes: [OpAttribute] { [OpAttribute("shape", .ints(shape), text: "shape \(OpAttribute.dims(shape))")] }
}

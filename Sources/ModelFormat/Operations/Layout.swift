/// `Op.concat`: the inputs stacked along channels.
struct Concat: OpDefinition, Equatable {
    var kindName: String { "concat" }
    var takesAnyRank: Bool { false }
    // Core ML's validator: at least 2 inputs.
    var inputCounts: ClosedRange<Int> { 2...Int.max }

    func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let first = inputs[0]
        guard inputs.allSatisfy({ $0.height == first.height && $0.width == first.width }) else {
            throw ModelError("concatenates maps of different sizes: \(inputs.map(\.description).joined(separator: ", "))")
        }
        let channels = inputs.reduce(0) { $0 + $1.channels }  // at most count * 2^30
        return [TensorShape(channels: channels, height: first.height, width: first.width)]
    }
}

/// `Op.split`: the channels split evenly into one tensor per output.
struct Split: OpDefinition, Equatable {
    var kindName: String { "split" }
    var takesAnyRank: Bool { false }

    func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
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
struct Flatten: OpDefinition, Equatable {
    var order: ChannelOrder
    var kindName: String { "flatten" }
    var takesAnyRank: Bool { false }
    func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        [TensorShape(channels: inputs[0].count)]
    }
    var attributes: [OpAttribute] { [.order(order)] }
}

/// `Op.reshape`: to a [C, H, W] target.
struct Reshape: OpDefinition, Equatable {
    var targetShape: [Int]
    var order: ChannelOrder
    var kindName: String { "reshape" }
    var takesAnyRank: Bool { false }

    func checkAttributes() throws(ModelError) {
        guard targetShape.count == 3 else { throw ModelError("reshape target \(targetShape) is not [C, H, W]") }
        try AttributeBounds.sizes(targetShape, "reshape size")
    }

    func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        guard let shape = TensorShape(featureShape: targetShape), shape.count == inputs[0].count else {
            throw ModelError("cannot reshape \(inputs[0]) (\(inputs[0].count) values) to \(targetShape)")
        }
        return [shape]
    }

    var attributes: [OpAttribute] {
        [OpAttribute("targetShape", .ints(targetShape), text: "to \(OpAttribute.dims(targetShape))"), .order(order)]
    }
}

/// `Op.permute`: the axes of [Seq, C, H, W] reordered, Seq staying first.
struct Permute: OpDefinition, Equatable {
    var axes: [Int]
    var kindName: String { "permute" }
    var takesAnyRank: Bool { false }

    func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let first = inputs[0]
        guard axes.sorted() == [0, 1, 2, 3], axes[0] == 0 else { throw ModelError("permutation \(axes) is not supported") }
        let dims = [1, first.channels, first.height, first.width]
        return [TensorShape(channels: dims[axes[1]], height: dims[axes[2]], width: dims[axes[3]])]
    }

    var attributes: [OpAttribute] { [OpAttribute("axes", .ints(axes), text: "axes \(OpAttribute.dims(axes))")] }
}

/// `Op.constant`: a [C, H, W] tensor of stored values; no input.
struct ConstantTensor: OpDefinition, Equatable {
    var shape: [Int]
    var data: Weights
    var kindName: String { "constant" }
    var takesAnyRank: Bool { false }
    var inputCounts: ClosedRange<Int> { 0...0 }

    func checkAttributes() throws(ModelError) {
        guard shape.count == 3 else { throw ModelError("constant shape \(shape) is not [C, H, W]") }
        try AttributeBounds.sizes(shape, "constant size")
    }

    func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        guard let tensor = TensorShape(featureShape: shape) else { throw ModelError("constant shape \(shape) is not [C, H, W]") }
        return [tensor]
    }

    var weightTensors: [NamedWeights] { [NamedWeights("data", shape: shape, data)] }

    func checkWeights() throws(ModelError) {
        try AttributeBounds.weights(data, count: shape.checkedProduct, "constant")
    }

    var attributes: [OpAttribute] { [OpAttribute("shape", .ints(shape), text: "shape \(OpAttribute.dims(shape))")] }
}

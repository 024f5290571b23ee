import ModelFormat
import CaffeSchema
import Protobuf

/// Layers along a chosen axis. The converted tensors are [C, H, W]: axes 1,
/// 2 and 3 of Caffe's [N, C, H, W], or of a blob of lower rank padded with
/// 1s ([N, K] after Flatten is [K, 1, 1]). Core ML's softmax and concat
/// work on channels only; along H or W the converter swaps that axis with
/// C, applies the layer, and swaps back (two Permute layers, iOS 11).
extension CaffeLayerTable {
    static func softmax(_ b: LayerBuilder) throws -> [Node] {
        let axis = try b.axis(Int(b.layer.params.softmax?.pointee.axis ?? 1))
        guard axis >= 1 else { throw b.fail("a softmax over the batch axis is not supported") }
        return alongChannels(b, axis: axis, .softmax)
    }

    static func concat(_ b: LayerBuilder) throws -> [Node] {
        let p = b.layer.params.concat?.pointee
        if let p, p.has_axis != 0, p.has_concat_dim != 0 { throw b.fail("axis and concat_dim are both given (Caffe takes one)") }
        let axis = try b.axis(p.map { $0.has_axis != 0 ? Int($0.axis) : Int($0.concat_dim) } ?? 1)
        guard axis >= 1 else { throw b.fail("concatenation along the batch axis is not supported") }
        guard Set(b.inputRanks).count == 1 else { throw b.fail("its bottoms have different ranks \(b.inputRanks)") }
        return alongChannels(b, axis: axis, .concat)
    }

    /// `op` applied over Caffe's `axis` (1, 2 or 3) of every bottom.
    static func alongChannels(_ b: LayerBuilder, axis: Int, _ op: Op) -> [Node] {
        guard axis != 1 else { return [b.node(op, inputs: b.inputs, output: b.output)] }
        let swap = Op.permute(axes: swappingChannels(with: axis))
        var nodes: [Node] = []
        let swapped = b.inputs.indices.map { index in
            let name = b.temporary("swap\(index)")
            nodes.append(b.node(swap, inputs: [b.inputs[index]], output: name, suffix: "swap\(index)"))
            return name
        }
        let result = b.temporary(op.kindName)
        nodes.append(b.node(op, inputs: swapped, output: result, suffix: op.kindName))
        nodes.append(b.node(swap, inputs: [result], output: b.output))
        return nodes
    }

    /// The permutation of [N, C, H, W] that swaps C with `axis` (2 or 3):
    /// its own inverse.
    static func swappingChannels(with axis: Int) -> [Int] { axis == 2 ? [0, 2, 1, 3] : [0, 3, 2, 1] }

    /// An inner product over Caffe's axes `axis` (2 or 3) to the end, for
    /// each index of the axes before: [C, H, W] with axis 2 is C rows of
    /// H * W values, giving [C, outputs]. Written as a 1x1 convolution over
    /// the rows moved to channels: (reshape to [C, H * W, 1],) swap, convolve, swap.
    static func innerProduct(_ b: LayerBuilder, axis: Int, inputs: Int, outputs: Int, weights: Weights, bias: Weights?) -> [Node] {
        var nodes: [Node] = []
        var source = b.input
        let shape = b.inputShape
        if axis == 2, shape.width != 1 {
            source = b.temporary("rows")
            nodes.append(b.node(.reshape(targetShape: [shape.channels, shape.height * shape.width, 1], order: .channelFirst),
                                inputs: [b.input], output: source, suffix: "rows"))
        }
        let swap = Op.permute(axes: swappingChannels(with: axis))
        let swapped = b.temporary("swap"), product = b.temporary("product")
        let conv = Convolution(outputChannels: outputs, kernelChannels: inputs, groups: 1, kernel: Size2(square: 1),
                               stride: Size2(square: 1), dilation: Size2(square: 1), padding: .explicit(.zero),
                               isDeconvolution: false, outputShape: [], weights: weights, bias: bias)
        nodes.append(b.node(swap, inputs: [source], output: swapped, suffix: "swap"))
        nodes.append(b.node(.convolution(conv), inputs: [swapped], output: product, suffix: "product"))
        nodes.append(b.node(swap, inputs: [product], output: b.output))
        return nodes
    }

    /// Caffe's Scale with the scale as a second bottom (squeeze-and-excitation
    /// blocks): its shape is the first bottom's over axes `axis` ..< `axis` +
    /// its rank, broadcast over the others. Written as a multiply, which
    /// broadcasts [C, 1, 1], [1, H, W] and [1, 1, 1] against [C, H, W].
    static func scaleByBottom(_ b: LayerBuilder, axis raw: Int, biasTerm: Bool) throws -> [Node] {
        let axis = try b.axis(raw)
        let factorRank = b.inputRanks[1], shape = b.inputShape
        guard axis + factorRank <= b.inputRanks[0] else {
            throw b.fail("the scale bottom has \(factorRank) axes, more than the input has from axis \(axis)")
        }
        var broadcast = [1, 1, 1]
        for caffeAxis in axis..<axis + factorRank where caffeAxis >= 1 { broadcast[caffeAxis - 1] = shape.dimensions[caffeAxis - 1] }
        guard broadcast.reduce(1, *) == b.inputShapes[1].count else {
            throw b.fail("the scale bottom holds \(b.inputShapes[1].count) values; the input's axes from \(axis) "
                         + "(\(shape), batch 1) need \(broadcast.reduce(1, *))")
        }
        guard (broadcast[1] == shape.height) == (broadcast[2] == shape.width) else {
            throw b.fail("a scale over \(broadcast) of a \(shape) input is not supported: Core ML broadcasts "
                         + "only [C, 1, 1], [1, H, W] and [1, 1, 1]")
        }
        var nodes: [Node] = []
        var factor = b.inputs[1]
        if b.inputShapes[1].dimensions != broadcast {
            factor = b.temporary("factor")
            nodes.append(b.node(.reshape(targetShape: broadcast, order: .channelFirst), inputs: [b.inputs[1]], output: factor, suffix: "factor"))
        }
        guard biasTerm else { return nodes + [b.node(.multiply(constant: 1), inputs: [b.input, factor], output: b.output)] }
        guard broadcast == [shape.channels, 1, 1] else { throw b.fail("a bias with a scale bottom is supported per channel only") }
        let scaled = b.temporary("scaled")
        let bias = Bias(shape: [shape.channels], bias: try b.blob(0, shape: [shape.channels], "bias"))
        return nodes + [b.node(.multiply(constant: 1), inputs: [b.input, factor], output: scaled, suffix: "scaled"),
                        b.node(.bias(bias), inputs: [scaled], output: b.output)]
    }

    /// The index of the largest value (top_k 1, no max values): over
    /// channels, rows or columns, or, without an axis, over each image's
    /// values when they are a vector (a classifier's output).
    static func argMax(_ b: LayerBuilder) throws -> [Node] {
        try b.expectBottoms(1...1)
        let p = b.layer.params.argMax?.pointee
        guard (p?.top_k ?? 1) == 1 else { throw b.fail("top_k \(p?.top_k ?? 1) is not supported (only 1)") }
        guard (p?.out_max_val ?? 0) == 0 else { throw b.fail("out_max_val is not supported (Core ML's argmax gives the index only)") }
        let axis: Int  // of [C, H, W], counted from the end
        if let p, p.has_axis != 0 {
            switch try b.axis(Int(p.axis)) {
            case 1: axis = -3
            case 2: axis = -2
            case 3: axis = -1
            default: throw b.fail("an argmax over the batch axis is not supported")
            }
        } else {
            guard b.inputShape.height == 1, b.inputShape.width == 1 else {
                throw b.fail("an argmax over C, H and W at once is not supported; give argmax_param's axis")
            }
            axis = -3
        }
        return [b.node(.reduce(Reduce(mode: .argmax, axes: [axis])), inputs: [b.input], output: b.output)]
    }

    /// The rank, as Caffe counts it, of the layer's tops.
    static func outputRank(_ b: LayerBuilder) -> Int {
        switch b.layer.type {
        case "InnerProduct": return ((try? b.axis(Int(b.layer.params.innerProduct?.pointee.axis ?? 1))) ?? 1) + 1
        case "Flatten": return 2
        case "Reshape": return b.layer.params.reshape?.pointee.shape.map { Int($0.pointee.n_dim) } ?? b.inputRanks[0]
        case "ArgMax": return (b.layer.params.argMax?.pointee.has_axis ?? 0) != 0 ? b.inputRanks[0] : 3
        default: return b.inputRanks[0]
        }
    }
}

import ModelFormat

/// Convolution, deconvolution and pooling: every padding is written as MIL's `custom`
/// amounts `[top, bottom, left, right]`, computed from the IR's shapes, so
/// that no padding rule of MIL's has to match one of the source framework.
extension ProgramLowering {
    func convolution(_ convolution: Convolution, _ input: String, node: Node, shape: [Int]) throws -> String {
        let name = node.name
        let source = self.shape(of: node.inputs[0])
        let deconvolution = convolution.isDeconvolution ? try deconvolutionPads(convolution, input: source, output: shape, node: node) : []
        let pads = convolution.isDeconvolution ? deconvolution.map { max($0, 0) }
            : try self.pads(convolution.padding, input: source, output: shape, kernel: convolution.kernel,
                            stride: convolution.stride, dilation: convolution.dilation, node: node)
        // An output past the full one (Keras's output_padding, a stride beyond the kernel): the rows and columns past it hold
        // the bias alone, so conv_transpose without it, zeros padded, then the bias added.
        let past = deconvolution.map { max(-$0, 0) }
        let grown = past.contains { $0 > 0 }
        let bias = grown ? nil : convolution.bias
        let transposedShape = grown ? [shape[0], shape[1], shape[2] - past[0] - past[1], shape[3] - past[2] - past[3]] : shape
        let weightShape = convolution.isDeconvolution
            ? [convolution.kernelChannels, convolution.outputChannels / convolution.groups, convolution.kernel.height, convolution.kernel.width]
            : [convolution.outputChannels, convolution.kernelChannels, convolution.kernel.height, convolution.kernel.width]
        var arguments: [(String, [String])] = [
            ("x", [input]),
            ("weight", [program.constant(name + "_weight", convolution.weights, shape: weightShape)]),
        ]
        if let bias { arguments.append(("bias", [program.constant(name + "_bias", bias, shape: [convolution.outputChannels])])) }
        arguments += [
            ("strides", [program.constant(name + "_strides", .ints([Int32(convolution.stride.height), Int32(convolution.stride.width)]), shape: [2])]),
            ("pad_type", [program.constant(name + "_pad_type", .strings(["custom"]))]),
            ("pad", [program.constant(name + "_pad", .ints(pads.map { Int32($0) }), shape: [4])]),
            ("dilations", [program.constant(name + "_dilations", .ints([Int32(convolution.dilation.height), Int32(convolution.dilation.width)]), shape: [2])]),
            ("groups", [program.constant(name + "_groups", .ints([Int32(convolution.groups)]))]),
        ]
        guard grown else { return program.operation(convolution.isDeconvolution ? "conv_transpose" : "conv", name, arguments, shape: shape) }
        let transposed = program.operation("conv_transpose", name + "_full", arguments, shape: transposedShape)
        let padded = program.operation("pad", convolution.bias == nil ? name : name + "_padded", [
            "x": transposed, "pad": program.constant(name + "_past", .ints(past.map { Int32($0) }), shape: [4]),
            "mode": program.constant(name + "_mode", .strings(["constant"])), "constant_val": program.constant(name + "_constant_val", .floats([0])),
        ], shape: shape)
        guard let bias = convolution.bias else { return padded }
        return program.operation("add", name, ["x": padded, "y": program.constant(name + "_bias", bias, shape: [1, convolution.outputChannels, 1, 1])],
                                 shape: shape)
    }

    /// A deconvolution's `[top, bottom, left, right]` for conv_transpose's
    /// custom padding, whose output is the full one, (in - 1) * stride +
    /// (kernel - 1) * dilation + 1, less the pads: the top and left ones
    /// where the IR's output starts in the full one (the forward
    /// convolution's padding, as the runtime takes it), the bottom and
    /// right ones what is left past the IR's output; negative where the
    /// IR's output runs past the full one.
    func deconvolutionPads(_ convolution: Convolution, input: [Int], output: [Int], node: Node) throws -> [Int] {
        let forward = try pads(convolution.padding, input: output, output: input, kernel: convolution.kernel,
                               stride: convolution.stride, dilation: convolution.dilation, node: node)
        let fullHeight = (input[2] - 1) * convolution.stride.height + (convolution.kernel.height - 1) * convolution.dilation.height + 1
        let fullWidth = (input[3] - 1) * convolution.stride.width + (convolution.kernel.width - 1) * convolution.dilation.width + 1
        return [forward[0], fullHeight - output[2] - forward[0], forward[2], fullWidth - output[3] - forward[2]]
    }

    func pooling(_ pooling: Pooling, _ input: String, node: Node, shape: [Int]) throws -> String {
        let name = node.name
        let kind: String
        switch pooling.kind {
        case .max: kind = "max"
        case .average: kind = "avg"
        case .l2: kind = "l2"
        }
        if pooling.global {
            // coremltools writes a global pooling as a reduction over H and W (an L2 one is the L2 norm's).
            let reductions = ["max": "reduce_max", "avg": "reduce_mean", "l2": "reduce_l2_norm"]
            return program.operation(reductions[kind]!, name, [
                "x": input, "axes": program.constant(name + "_axes", .ints([2, 3]), shape: [2]),
                "keep_dims": program.constant(name + "_keep_dims", .bools([true])),
            ], shape: shape)
        }
        let source = self.shape(of: node.inputs[0])
        var pads = try self.pads(pooling.padding, input: source, output: shape, kernel: pooling.kernel,
                                 stride: pooling.stride, dilation: Size2(1, 1), node: node)
        var (input, excludePadding) = (input, pooling.excludePaddingFromAverage)
        if kind == "avg", !excludePadding, case .includeLastPixel = pooling.padding, pads[1] != pads[0] || pads[3] != pads[2] {
            // Caffe's average divides by the window's cells inside the input padded by the symmetric amounts, not by the
            // kernel (MIL's rule, which would count the bottom and right pads grown to reach its output size): those amounts
            // made zeros by a `pad` (no more than the window needs), and only the growth excluded from the average.
            let padded = [pads[0], min(pads[0], pads[1]), pads[2], min(pads[2], pads[3])]
            var padNode = node
            padNode.name = node.name + "_padded"
            input = self.padding(Padding(kind: .constant(0), edges: Edges(top: padded[0], bottom: padded[1], left: padded[2], right: padded[3])), input, node: padNode,
                                 shape: [source[0], source[1], source[2] + padded[0] + padded[1], source[3] + padded[2] + padded[3]])
            (pads, excludePadding) = ([0, max(0, pads[1] - pads[0]), 0, max(0, pads[3] - pads[2])], true)
        }
        var arguments: [(String, [String])] = [
            ("x", [input]),
            ("kernel_sizes", [program.constant(name + "_kernel_sizes", .ints([Int32(pooling.kernel.height), Int32(pooling.kernel.width)]), shape: [2])]),
            ("strides", [program.constant(name + "_strides", .ints([Int32(pooling.stride.height), Int32(pooling.stride.width)]), shape: [2])]),
            ("pad_type", [program.constant(name + "_pad_type", .strings(["custom"]))]),
            ("pad", [program.constant(name + "_pad", .ints(pads.map { Int32($0) }), shape: [4])]),
        ]
        if kind == "avg" {
            arguments.append(("exclude_padding_from_average", [program.constant(name + "_exclude_padding", .bools([excludePadding]))]))
        }
        arguments.append(("ceil_mode", [program.constant(name + "_ceil_mode", .bools([false]))]))
        return program.operation(kind + "_pool", name, arguments, shape: shape)
    }

    /// `[top, bottom, left, right]` such that MIL's rule, output =
    /// floor((in + pads - extent) / stride) + 1, gives the IR's output:
    /// explicit amounts as they are, `same` split as the IR splits it, and
    /// Caffe's rounded-up pooling as its symmetric pads with the bottom and
    /// right ones grown (or shrunk) to reach its output size.
    func pads(_ padding: WindowPadding, input: [Int], output: [Int], kernel: Size2, stride: Size2, dilation: Size2, node: Node) throws -> [Int] {
        let extentHeight = (kernel.height - 1) * dilation.height + 1, extentWidth = (kernel.width - 1) * dilation.width + 1
        let edges = padding.edges(input: Size2(input[2], input[3]), output: Size2(output[2], output[3]),
                                  kernel: kernel, stride: stride, dilation: dilation)
        let pads = [edges.top, edges.bottom, edges.left, edges.right]
        // The rule must give the IR's size; a window left past the input (a stride larger than the kernel) is not padding's to fix.
        let height = (input[2] + pads[0] + pads[1] - extentHeight) / stride.height + 1
        let width = (input[3] + pads[2] + pads[3] - extentWidth) / stride.width + 1
        guard height == output[2], width == output[3] else {
            throw refusal(node, "this window's padding (output \(output[2])x\(output[3]) from \(input[2])x\(input[3]))")
        }
        return pads
    }
}

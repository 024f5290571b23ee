import Conversion
import ModelFormat

/// ConvTranspose onto Core ML's deconvolution, stated with nothing but a
/// kernel, a stride, groups and explicit (valid) padding: the one form
/// whose meaning the specification leaves no doubt about. Its output is
/// the full transposed convolution, `(in - 1) * stride + kernel` long,
/// with `top` rows cropped before and `bottom` after.
///
/// The rest of ONNX's attributes become that form:
/// - dilations: the kernel itself is dilated (zeros between its taps), as
///   Core ML's specification says a deconvolution ignores dilationFactor;
/// - output_padding, output_shape and auto_pad give, per axis, the output
///   length L and the rows cropped before it, `head` (onnxruntime's rules,
///   checked by the fixtures: with output_shape or auto_pad SAME the total
///   crop is split with the odd row before, or after for SAME_UPPER); the crop after is
///   `full - head - L`, and where that is negative (rows past the full
///   output, which hold only the bias) the kernel grows by as many rows
///   of zeros at its end, so that the deconvolution itself reaches them.
extension ONNXOpTable {
    /// Weights [Cin, Cout / group, kH, kW] are Core ML's deconvolution layout.
    static func transposedConvolution(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let w = try b.constant(1, "the weights")
        guard x.isMap, w.shape.count == 4, w.shape[0] == x.shape.channels, w.count > 0, w.shape.checkedProduct == w.count else {
            throw b.node.fail("weights \(w.shape) are not [\(x.shape.channels), Cout / group, kH, kW]")
        }
        let group = b.node.int("group") ?? 1
        guard group > 0, group <= x.shape.channels, x.shape.channels % group == 0 else {
            throw b.node.fail("group \(group) does not divide \(x.shape.channels) input channels")
        }
        let (perGroup, kh, kw) = (w.shape[1], w.shape[2], w.shape[3])
        let cout = perGroup * group  // at most the weight count times the channels: no overflow
        let bias = try b.convolutionBias(kernel: [kh, kw], outputChannels: cout)
        let stride = try b.window("strides", default: 1), dilation = try b.window("dilations", default: 1)
        let adjust = b.node.ints("output_padding") ?? [0, 0]
        // onnxruntime takes output_padding below the stride only (PyTorch: below the stride or the dilation).
        guard adjust.count == 2, zip(adjust, [stride.height, stride.width]).allSatisfy({ $0 >= 0 && $0 < $1 }) else {
            throw b.node.fail("output_padding \(adjust) must be two values each below its axis's stride \([stride.height, stride.width])")
        }
        let height = try deconvolutionAxis(b, axis: 0, input: x.shape.height, kernel: kh, stride: stride.height, dilation: dilation.height, adjust: adjust[0])
        let width = try deconvolutionAxis(b, axis: 1, input: x.shape.width, kernel: kw, stride: stride.width, dilation: dilation.width, adjust: adjust[1])
        let kernel = Size2(height.kernel, width.kernel)
        let weights = try dilatedWeights(b, w, kernel: kernel, dilation: dilation)
        let conv = Convolution(outputChannels: cout, kernelChannels: x.shape.channels, groups: group, kernel: kernel, stride: stride,
                               padding: .explicit(Edges(top: height.head, bottom: height.tail, left: width.head, right: width.tail)),
                               isDeconvolution: true, weights: weights, bias: bias)
        return b.single(.convolution(conv), x)
    }

    /// One spatial axis: the kernel length Core ML is given (dilated, plus
    /// zero rows for outputs past the full deconvolution) and the rows
    /// cropped before (`head`) and after (`tail`).
    private static func deconvolutionAxis(_ b: ONNXBuilder, axis: Int, input: Int, kernel: Int, stride: Int, dilation: Int,
                                          adjust: Int) throws -> (kernel: Int, head: Int, tail: Int) {
        let dilated = (kernel - 1) * dilation + 1  // kernel and dilation are at most 2^16
        let full = (input - 1) * stride + dilated
        let mode = b.node.string("auto_pad") ?? "NOTSET"
        var head: Int, length: Int
        if let shape = b.node.ints("output_shape") {
            // Spatial sizes, or all four of [N, C, H, W].
            let spatial = shape.count == 4 ? Array(shape.suffix(2)) : shape
            guard spatial.count == 2, spatial.allSatisfy({ $0 > 0 && $0 <= 1 << 20 }) else {
                throw b.node.fail("output_shape \(shape) must be two sizes [H, W] from 1 to \(1 << 20)")
            }
            length = spatial[axis]
            let total = max(full + adjust - length, 0)
            // As onnxruntime: the input must be the one a convolution of this output would give.
            let span = length + total - dilated - adjust
            guard span >= 0, span / stride + 1 == input else {
                throw b.node.fail("output_shape \(shape) does not follow from input size \(input) on axis \(axis + 2) (stride \(stride), kernel \(dilated))")
            }
            head = mode == "SAME_UPPER" ? total / 2 : total - total / 2
        } else {
            switch mode {
            case "NOTSET", "":
                let pads = b.node.ints("pads") ?? [0, 0, 0, 0]
                guard pads.count == 4, pads.allSatisfy({ $0 >= 0 && $0 <= 1 << 16 }) else { throw b.node.fail("pads \(pads) must be four sizes [top, left, bottom, right]") }
                head = pads[axis]
                length = full + adjust - pads[axis] - pads[axis + 2]
            case "VALID":
                (head, length) = (0, full + adjust)
            case "SAME_UPPER", "SAME_LOWER":
                length = input * stride
                let total = max(full + adjust - length, 0)
                head = mode == "SAME_UPPER" ? total / 2 : total - total / 2
            case let other:
                throw b.node.fail("auto_pad \(other) is not supported")
            }
        }
        guard length > 0 else { throw b.node.fail("pads \(b.node.ints("pads") ?? []) crop the whole output of axis \(axis + 2) (\(full + adjust) long)") }
        let tail = full - head - length
        return tail >= 0 ? (dilated, head, tail) : (dilated - tail, head, 0)
    }

    /// [Cin, Cout / group, kH, kW] spread onto `kernel` at `dilation` steps,
    /// zeros between and after; the weights as they are when nothing moves.
    private static func dilatedWeights(_ b: ONNXBuilder, _ w: ONNXConstant, kernel: Size2, dilation: Size2) throws -> Weights {
        let (planes, kh, kw) = (w.shape[0] * w.shape[1], w.shape[2], w.shape[3])
        if kernel == Size2(kh, kw) { return w.weights() }
        guard let count = [planes, kernel.height, kernel.width].checkedProduct, count <= 1 << 26 else {
            throw b.node.fail("dilations or output size need a \(kernel.height)x\(kernel.width) kernel, more than \(1 << 26) weights")
        }
        let source = w.floats
        var spread = [Float](repeating: 0, count: count)
        for plane in 0..<planes {
            for ky in 0..<kh {
                for kx in 0..<kw {
                    spread[(plane * kernel.height + ky * dilation.height) * kernel.width + kx * dilation.width] = source[(plane * kh + ky) * kw + kx]
                }
            }
        }
        return Weights(spread)
    }
}

import ModelFormat
import Threads

/// Convolution by oneDNN when the network was prepared so and oneDNN takes
/// the layer (`FastConvolution`); otherwise as a matrix product: for each
/// group, the input patches are laid out as columns (im2col) and multiplied
/// by the [outputChannels/groups, kernelChannels*kH*kW] weight matrix with
/// OpenBLAS. A 1x1 convolution with stride 1 and no padding needs no
/// im2col: the input already is the matrix.
struct ConvolutionKernel: ReLUFusing, Preparing {
    let conv: Convolution
    let window: Window
    /// Also applies max(0, y) (a ReLU folded in by the network).
    var fusedReLU = false
    /// oneDNN's kernel for the layer, once prepared (with the fused ReLU).
    var fast: FastConvolution?

    var scratchBytes: Int {
        if let fast { return workCost(fast.workspaceFloats, 4) }
        let output = window.output
        return isPointwise ? 0 : workCost(conv.kernelChannels, conv.kernel.height, conv.kernel.width, output.planeSize, 4)
    }

    func prepared(_ choice: KernelChoice, discardingCopiedWeights: Bool) -> any Kernel {
        guard choice == .fastest, let fast = FastConvolution(conv, window: window, relu: fusedReLU) else { return self }
        // oneDNN has its copy: the model's pages leave memory (and, when
        // nothing else reads them, are gone for good).
        if discardingCopiedWeights {
            FastConvolution.discardPages(of: conv.weights)
        } else {
            FastConvolution.releasePages(of: conv.weights)
        }
        var kernel = self
        kernel.fast = fast
        return kernel
    }

    var isPointwise: Bool {
        let (input, output) = (window.input, window.output)
        return conv.kernel == Size2(1, 1) && conv.stride == Size2(1, 1) && window.padTop == 0 && window.padLeft == 0
            && input.height == output.height && input.width == output.width
    }

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        if let fast {
            return inputs[0].values.withUnsafeBufferPointer { x in
                outputs[0].values.withUnsafeMutableBufferPointer { y in fast.run(x.baseAddress!, y.baseAddress!) }
            }
        }
        let (input, output) = (window.input, window.output)
        let groups = conv.groups
        let outputPerGroup = conv.outputChannels / groups
        let patch = conv.kernelChannels * conv.kernel.height * conv.kernel.width
        let pixels = output.planeSize
        let pointwise = isPointwise
        let columns = Scratch.buffer(pointwise ? 0 : patch * pixels)
        conv.weights.withUnsafeBufferPointer { weights in
            withOptionalPointer(conv.bias) { bias in
                inputs[0].values.withUnsafeBufferPointer { x in
                    outputs[0].values.withUnsafeMutableBufferPointer { y in
                        for group in 0..<groups {
                            let xg = x.baseAddress! + group * conv.kernelChannels * input.planeSize
                            let matrix: UnsafePointer<Float>
                            if pointwise {
                                matrix = xg
                            } else {
                                im2col(xg, into: columns.baseAddress!)
                                matrix = UnsafePointer(columns.baseAddress!)
                            }
                            MatrixProduct.multiply(m: outputPerGroup, n: pixels, k: patch,
                                                   weights.baseAddress! + group * outputPerGroup * patch, lda: patch,
                                                   matrix, ldb: pixels, rowBias: bias.map { $0 + group * outputPerGroup },
                                                   relu: fusedReLU, y.baseAddress! + group * outputPerGroup * pixels, ldc: pixels)
                        }
                    }
                }
            }
        }
    }

    /// Writes row (c, ky, kx) x column (oy, ox) = input[c, oy*s - pad + ky*d, ox*s - pad + kx*d] (0 outside).
    func im2col(_ x: UnsafePointer<Float>, into columns: UnsafeMutablePointer<Float>) {
        let (input, output, padTop, padLeft) = (window.input, window.output, window.padTop, window.padLeft)
        let (kh, kw) = (conv.kernel.height, conv.kernel.width)
        let (sh, sw) = (conv.stride.height, conv.stride.width)
        let (dh, dw) = (conv.dilation.height, conv.dilation.width)
        let (inH, inW, outH, outW) = (input.height, input.width, output.height, output.width)
        let rows = conv.kernelChannels * kh * kw
        parallelFor(rows, cost: workCost(outH, outW)) { range in
            for row in range {
                let c = row / (kh * kw), ky = (row / kw) % kh, kx = row % kw
                let plane = x + c * inH * inW
                var target = columns + row * outH * outW
                for oy in 0..<outH {
                    let iy = oy * sh - padTop + ky * dh
                    if iy < 0 || iy >= inH {
                        target.update(repeating: 0, count: outW)
                        target += outW
                        continue
                    }
                    // The columns whose ix = ox*s - pad + kx*d falls inside the row: [first, end).
                    let offset = kx * dw - padLeft
                    let first = min(outW, offset >= 0 ? 0 : (-offset + sw - 1) / sw)
                    let end = max(first, min(outW, inW - offset <= 0 ? 0 : (inW - offset - 1) / sw + 1))
                    target.update(repeating: 0, count: first)
                    let line = plane + iy * inW
                    if sw == 1 {
                        (target + first).update(from: line + (first + offset), count: end - first)
                    } else {
                        for ox in first..<end { target[ox] = line[ox * sw + offset] }
                    }
                    (target + end).update(repeating: 0, count: outW - end)
                    target += outW
                }
            }
        }
    }
}

/// y[c, :, :] += bias[c], then max(0, y) when `relu`: one pass over y,
/// channels shared among the cores.
func finishChannels(_ y: UnsafeMutableBufferPointer<Float>, bias: Weights?, pixels: Int, relu: Bool) {
    guard bias != nil || relu else { return }
    withOptionalPointer(bias) { b in
        let channels = pixels == 0 ? 0 : y.count / pixels
        parallelFor(channels, cost: pixels) { range in
            for c in range {
                let plane = y.baseAddress! + c * pixels, value = b?[c] ?? 0
                if relu {
                    for i in 0..<pixels { plane[i] = Swift.max(plane[i] + value, 0) }
                } else {
                    for i in 0..<pixels { plane[i] += value }
                }
            }
        }
    }
}

/// Calls `body` with the weights' values, or nil.
func withOptionalPointer<R>(_ weights: Weights?, _ body: (UnsafePointer<Float>?) -> R) -> R {
    guard let weights else { return body(nil) }
    return weights.withUnsafeBufferPointer { body($0.baseAddress) }
}

/// Where a window layer's kernel meets its input: the [C, H, W] input and
/// output, and the padding before the first row and column of the larger
/// side (a convolution's or pooling's input, a deconvolution's output: the
/// same geometry run backwards).
struct Window {
    let input: TensorShape
    let output: TensorShape
    let padTop: Int
    let padLeft: Int

    init(_ conv: Convolution, input: TensorShape, output: TensorShape) {
        self.input = input
        self.output = output
        let (large, small) = conv.isDeconvolution ? (output, input) : (input, output)
        (padTop, padLeft) = leadingPadding(conv.padding, input: large, output: small, kernel: conv.kernel,
                                           stride: conv.stride, dilation: conv.dilation)
    }

    /// A global pooling has no padding.
    init(_ pool: Pooling, input: TensorShape, output: TensorShape) {
        self.input = input
        self.output = output
        (padTop, padLeft) = pool.global ? (0, 0) : leadingPadding(pool.padding, input: input, output: output,
                                                                  kernel: pool.kernel, stride: pool.stride, dilation: Size2(1, 1))
    }
}

/// Top and left padding of a window layer. `same` pads like TensorFlow:
/// the total is what makes the output ceil(in / stride), and the odd pixel
/// goes bottom/right unless the mode is top-left heavy.
func leadingPadding(_ padding: WindowPadding, input: TensorShape, output: TensorShape, kernel: Size2,
                    stride: Size2, dilation: Size2) -> (top: Int, left: Int) {
    let edges = padding.edges(input: Size2(input.height, input.width), output: Size2(output.height, output.width),
                              kernel: kernel, stride: stride, dilation: dilation)
    return (edges.top, edges.left)
}

/// Working memory for the kernels (im2col columns): one grow-only buffer
/// per thread that predicts, shared by all its kernels, which run one after
/// another; kept for the thread's next prediction and freed when it ends.
/// Concurrent predictions on other threads have buffers of their own.
enum Scratch {
    private final class Buffer {
        var storage = UnsafeMutableBufferPointer<Float>(start: nil, count: 0)
        deinit { storage.deallocate() }
    }

    private static let buffers = ThreadLocal { Buffer() }

    /// `count` floats of this thread's buffer, valid until its next call.
    static func buffer(_ count: Int) -> UnsafeMutableBufferPointer<Float> {
        let buffer = buffers.value
        if buffer.storage.count < count {
            buffer.storage.deallocate()
            buffer.storage = .allocate(capacity: count)
        }
        return UnsafeMutableBufferPointer(rebasing: buffer.storage[0..<count])
    }
}

extension Convolution: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        let window = Window(self, input: inputs[0], output: outputs[0])
        return isDeconvolution ? DeconvolutionKernel(conv: self, window: window) : ConvolutionKernel(conv: self, window: window)
    }
}

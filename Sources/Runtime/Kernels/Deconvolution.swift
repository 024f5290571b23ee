import ModelFormat

/// Transposed convolution: per group, columns = Wᵀ · x (each input pixel's
/// contribution to a kH x kW patch of every output channel), then col2im
/// adds the patches into the output at stride steps, cropped by the padding.
/// Weights are [inputChannels, outputChannels / groups, kH, kW].
struct DeconvolutionKernel: Kernel {
    let conv: Convolution
    let window: Window

    var scratchBytes: Int {
        let input = window.input
        return workCost(conv.outputChannels / max(conv.groups, 1), conv.kernel.height, conv.kernel.width, input.planeSize, 4)
    }

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        let (input, output) = (window.input, window.output)
        let groups = conv.groups
        let inputPerGroup = input.channels / groups
        let outputPerGroup = conv.outputChannels / groups
        let patch = outputPerGroup * conv.kernel.height * conv.kernel.width
        let pixels = input.planeSize
        let columns = Scratch.buffer(patch * pixels)
        conv.weights.withUnsafeBufferPointer { weights in
            inputs[0].values.withUnsafeBufferPointer { x in
                outputs[0].values.withUnsafeMutableBufferPointer { y in
                    y.update(repeating: 0)
                    for group in 0..<groups {
                        MatrixProduct.multiply(m: patch, n: pixels, k: inputPerGroup,
                                               weights.baseAddress! + group * inputPerGroup * patch, lda: patch, transposeA: true,
                                               x.baseAddress! + group * inputPerGroup * pixels, ldb: pixels,
                                               columns.baseAddress!, ldc: pixels)
                        col2im(columns.baseAddress!, into: y.baseAddress! + group * outputPerGroup * output.planeSize,
                               channels: outputPerGroup)
                    }
                    finishChannels(y, bias: conv.bias, pixels: output.planeSize, relu: false)
                }
            }
        }
    }

    /// y[c, iy*s - pad + ky*d, ix*s - pad + kx*d] += columns[(c, ky, kx), (iy, ix)].
    func col2im(_ columns: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, channels: Int) {
        let (input, output, padTop, padLeft) = (window.input, window.output, window.padTop, window.padLeft)
        let (kh, kw) = (conv.kernel.height, conv.kernel.width)
        let (sh, sw) = (conv.stride.height, conv.stride.width)
        let (dh, dw) = (conv.dilation.height, conv.dilation.width)
        let (inH, inW, outH, outW) = (input.height, input.width, output.height, output.width)
        // Channels are independent: parallel over them, serial within one.
        parallelFor(channels, cost: workCost(kh, kw, inH, inW)) { range in
            for c in range {
                let plane = y + c * outH * outW
                for ky in 0..<kh {
                    for kx in 0..<kw {
                        var source = columns + ((c * kh + ky) * kw + kx) * inH * inW
                        for iy in 0..<inH {
                            let oy = iy * sh - padTop + ky * dh
                            if oy < 0 || oy >= outH {
                                source += inW
                                continue
                            }
                            let line = plane + oy * outW
                            var ox = -padLeft + kx * dw
                            for _ in 0..<inW {
                                if ox >= 0 && ox < outW { line[ox] += source.pointee }
                                source += 1
                                ox += sw
                            }
                        }
                    }
                }
            }
        }
    }
}

import ModelFormat

/// Max, average and L2 pooling over [C, H, W], with every Core ML padding
/// mode. Windows are clipped to the input; what an average divides by
/// depends on the mode:
/// - `includeLastPixel` (Caffe): the window clipped to the *padded* input,
///   so windows that run past the padded edge divide by fewer elements;
/// - explicit and same padding: the full kernel, or only the valid pixels
///   when `excludePaddingFromAverage` is set.
struct PoolingKernel: Kernel {
    let pool: Pooling
    let input: TensorShape
    let output: TensorShape
    let padTop: Int
    let padLeft: Int

    init(_ pool: Pooling, input: TensorShape, output: TensorShape) {
        self.pool = pool
        self.input = input
        self.output = output
        (padTop, padLeft) = pool.global ? (0, 0) : leadingPadding(pool.padding, input: input, output: output,
                                                                  kernel: pool.kernel, stride: pool.stride, dilation: Size2(1, 1))
    }

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        let (inH, inW, outH, outW) = (input.height, input.width, output.height, output.width)
        let (kh, kw) = pool.global ? (inH, inW) : (pool.kernel.height, pool.kernel.width)
        let (sh, sw) = pool.global ? (1, 1) : (pool.stride.height, pool.stride.width)
        // Caffe clips windows to the input plus its leading padding.
        var paddedHeight = inH, paddedWidth = inW
        if case .includeLastPixel(let pads) = pool.padding {
            paddedHeight += pads.height
            paddedWidth += pads.width
        }
        let caffeStyle = if case .includeLastPixel = pool.padding { !pool.global } else { false }
        let kind = pool.kind
        let isMax = kind == .max
        let exclude = pool.excludePaddingFromAverage
        inputs[0].values.withUnsafeBufferPointer { x in
            outputs[0].values.withUnsafeMutableBufferPointer { y in
                parallelFor(input.channels, cost: outH * outW * kh * kw) { channels in
                    for c in channels {
                        let plane = x.baseAddress! + c * inH * inW
                        var target = y.baseAddress! + c * outH * outW
                        for oy in 0..<outH {
                            let y0 = oy * sh - padTop
                            let y1 = caffeStyle ? min(y0 + kh, paddedHeight) : y0 + kh
                            let top = max(y0, 0), bottom = min(y1, inH)
                            for ox in 0..<outW {
                                let x0 = ox * sw - padLeft
                                let x1 = caffeStyle ? min(x0 + kw, paddedWidth) : x0 + kw
                                let left = max(x0, 0), right = min(x1, inW)
                                var value: Float
                                if isMax {
                                    value = -.infinity
                                    var row = plane + top * inW
                                    for _ in top..<max(top, bottom) {
                                        for ix in left..<max(left, right) { value = max(value, row[ix]) }
                                        row += inW
                                    }
                                    target.pointee = value
                                    target += 1
                                    continue
                                }
                                switch kind {
                                case .max:
                                    value = -.infinity
                                case .average, .l2:
                                    var sum: Float = 0
                                    for iy in top..<max(top, bottom) {
                                        for ix in left..<max(left, right) {
                                            let v = plane[iy * inW + ix]
                                            sum += kind == .l2 ? v * v : v
                                        }
                                    }
                                    if kind == .l2 {
                                        value = sum.squareRoot()
                                    } else {
                                        let valid = (bottom - top) * (right - left)
                                        let divisor = exclude ? valid : caffeStyle ? (y1 - y0) * (x1 - x0) : kh * kw
                                        value = sum / Float(max(divisor, 1))
                                    }
                                }
                                target.pointee = value
                                target += 1
                            }
                        }
                    }
                }
            }
        }
    }
}

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
    let window: Window
    var input: TensorShape { window.input }
    var output: TensorShape { window.output }
    var padTop: Int { window.padTop }
    var padLeft: Int { window.padLeft }

    init(_ pool: Pooling, input: TensorShape, output: TensorShape) {
        self.pool = pool
        window = Window(pool, input: input, output: output)
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
                parallelFor(input.channels, cost: workCost(outH, outW, kh, kw)) { channels in
                    for c in channels {
                        let plane = x.baseAddress! + c * inH * inW
                        var target = y.baseAddress! + c * outH * outW
                        if isMax {
                            maxPool(plane, into: target, kernel: (kh, kw), stride: (sh, sw), padded: (paddedHeight, paddedWidth),
                                    caffeStyle: caffeStyle)
                            continue
                        }
                        for oy in 0..<outH {
                            let y0 = oy * sh - padTop
                            let y1 = caffeStyle ? min(y0 + kh, paddedHeight) : y0 + kh
                            let top = max(y0, 0), bottom = min(y1, inH)
                            for ox in 0..<outW {
                                let x0 = ox * sw - padLeft
                                let x1 = caffeStyle ? min(x0 + kw, paddedWidth) : x0 + kw
                                let left = max(x0, 0), right = min(x1, inW)
                                var sum: Float = 0
                                for iy in top..<max(top, bottom) {
                                    for ix in left..<max(left, right) {
                                        let v = plane[iy * inW + ix]
                                        sum += kind == .l2 ? v * v : v
                                    }
                                }
                                if kind == .l2 {
                                    target.pointee = sum.squareRoot()
                                } else {
                                    let valid = (bottom - top) * (right - left)
                                    let divisor = exclude ? valid : caffeStyle ? (y1 - y0) * (x1 - x0) : kh * kw
                                    target.pointee = sum / Float(max(divisor, 1))
                                }
                                target += 1
                            }
                        }
                    }
                }
            }
        }
    }

    /// Max pooling of one channel. Output columns whose windows lie wholly
    /// inside the input rows take the fast path: each window row is folded
    /// into the output row one kernel column at a time, a tight loop along
    /// the output; the few edge columns clip their windows one by one.
    /// A window with no pixel inside the input gives -infinity.
    private func maxPool(_ plane: UnsafePointer<Float>, into target: UnsafeMutablePointer<Float>, kernel: (Int, Int),
                         stride: (Int, Int), padded: (height: Int, width: Int), caffeStyle: Bool) {
        let (inH, inW, outH, outW) = (input.height, input.width, output.height, output.width)
        let (kh, kw) = kernel, (sh, sw) = stride
        // Interior columns: x0 = ox * sw - padLeft >= 0 and x0 + kw <= inW.
        let firstInterior = min((padLeft + sw - 1) / sw, outW)
        let lastInterior = inW + padLeft - kw < 0 ? firstInterior
                                                  : max(min((inW + padLeft - kw) / sw + 1, outW), firstInterior)
        for oy in 0..<outH {
            let y0 = oy * sh - padTop
            let y1 = caffeStyle ? min(y0 + kh, padded.height) : y0 + kh
            let top = max(y0, 0), bottom = max(min(y1, inH), top)
            let out = target + oy * outW
            func edge(_ ox: Int) {
                let x0 = ox * sw - padLeft
                let x1 = caffeStyle ? min(x0 + kw, padded.width) : x0 + kw
                let left = max(x0, 0), right = max(min(x1, inW), left)
                var value = -Float.infinity
                for iy in top..<bottom {
                    for ix in left..<right { value = max(value, plane[iy * inW + ix]) }
                }
                out[ox] = value
            }
            for ox in 0..<firstInterior { edge(ox) }
            for ox in lastInterior..<outW { edge(ox) }
            guard firstInterior < lastInterior else { continue }
            let count = lastInterior - firstInterior
            let row = out + firstInterior
            row.update(repeating: -.infinity, count: count)
            for iy in top..<bottom {
                let line = plane + iy * inW + firstInterior * sw - padLeft
                for kx in 0..<kw {
                    var source = line + kx
                    for i in 0..<count {
                        // A strict select compiles to one maxss; Swift's max (y >= x ? y : x)
                        // to a compare-and-blend. Either skips a NaN pixel.
                        let (value, best) = (source.pointee, row[i])
                        row[i] = value > best ? value : best
                        source += sw
                    }
                }
            }
        }
    }
}

extension Pooling: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        PoolingKernel(self, input: inputs[0], output: outputs[0])
    }
}

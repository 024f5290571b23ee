import ModelFormat

/// Kernels that move values without arithmetic: flatten, reshape, split,
/// crop, padding, upsample, constants (slice: SliceKernel.swift).
struct CopyKernel: Kernel {
    /// Channel-last flatten / reshape reads the input in H, W, C order.
    let input: TensorShape
    let output: TensorShape
    let channelLast: Bool

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        guard channelLast else {
            outputs[0].values = inputs[0].values
            return
        }
        // To H, W, C order, reinterpret as the output in H, W, C order, back to C, H, W.
        let hwc = toChannelLast(inputs[0].values, input)
        outputs[0].values = fromChannelLast(hwc, output)
    }

    func toChannelLast(_ x: [Float], _ s: TensorShape) -> [Float] {
        var result = [Float](repeating: 0, count: x.count)
        for c in 0..<s.channels {
            for p in 0..<s.planeSize { result[p * s.channels + c] = x[c * s.planeSize + p] }
        }
        return result
    }

    func fromChannelLast(_ x: [Float], _ s: TensorShape) -> [Float] {
        var result = [Float](repeating: 0, count: x.count)
        for c in 0..<s.channels {
            for p in 0..<s.planeSize { result[c * s.planeSize + p] = x[p * s.channels + c] }
        }
        return result
    }
}

/// Splits channels evenly among the outputs.
struct SplitKernel: Kernel {
    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        var offset = 0
        for index in outputs.indices {
            let count = outputs[index].values.count
            outputs[index].values = Array(inputs[0].values[offset..<offset + count])
            offset += count
        }
    }
}

/// Constant, reflection or replication padding of H and W.
struct PaddingKernel: Kernel {
    let padding: Padding
    let input: TensorShape
    let output: TensorShape

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        let (inH, inW) = (input.height, input.width)
        let (top, left) = (padding.edges.top, padding.edges.left)
        let x = inputs[0].values
        func source(_ i: Int, _ size: Int) -> Int? {
            if i >= 0 && i < size { return i }
            switch padding.kind {
            case .constant: return nil
            case .replication: return min(max(i, 0), size - 1)
            case .reflection:
                // Mirror without repeating the edge: -1 -> 1, size -> size - 2.
                guard size > 1 else { return 0 }
                let period = 2 * (size - 1)
                var m = i % period
                if m < 0 { m += period }
                return m < size ? m : period - m
            }
        }
        let fill: Float = if case .constant(let value) = padding.kind { value } else { 0 }
        var index = 0
        outputs[0].values.withUnsafeMutableBufferPointer { y in
            for c in 0..<output.channels {
                for h in 0..<output.height {
                    let sh = source(h - top, inH)
                    for w in 0..<output.width {
                        if let sh, let sw = source(w - left, inW) {
                            y[index] = x[(c * inH + sh) * inW + sw]
                        } else {
                            y[index] = fill
                        }
                        index += 1
                    }
                }
            }
        }
    }
}

/// Upsampling by whole factors, nearest neighbour or bilinear, or by
/// fractional ones, bilinear; bilinear samples on one of Core ML's grids (NeuralNetwork.proto's LinearUpsampleMode; see
/// `Upsample.Alignment`), the source coordinate clamped to the input.
struct UpsampleKernel: Kernel {
    let upsample: Upsample
    let input: TensorShape

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        let x = inputs[0].values
        let (inH, inW) = (input.height, input.width)
        let (fh, fw) = (upsample.scale.height, upsample.scale.width)
        let (outH, outW) = (upsample.outputLength(inH, axis: 0), upsample.outputLength(inW, axis: 1))
        var index = 0
        outputs[0].values.withUnsafeMutableBufferPointer { y in
            for c in 0..<input.channels {
                let plane = c * inH * inW
                for h in 0..<outH {
                    let sourceY = source(h, factor: fh, size: inH, output: outH)
                    let y0 = min(Int(sourceY), inH - 1), y1 = min(y0 + 1, inH - 1), dy = sourceY - Float(y0)
                    for w in 0..<outW {
                        if upsample.mode == .nearest {
                            y[index] = x[plane + (h / fh) * inW + w / fw]
                        } else {
                            let sourceX = source(w, factor: fw, size: inW, output: outW)
                            let x0 = min(Int(sourceX), inW - 1), x1 = min(x0 + 1, inW - 1), dx = sourceX - Float(x0)
                            let top = x[plane + y0 * inW + x0] * (1 - dx) + x[plane + y0 * inW + x1] * dx
                            let bottom = x[plane + y1 * inW + x0] * (1 - dx) + x[plane + y1 * inW + x1] * dx
                            y[index] = top * (1 - dy) + bottom * dy
                        }
                        index += 1
                    }
                }
            }
        }
    }
}

extension UpsampleKernel {
    /// Where output pixel `i` of `output` samples an input of `size`
    /// pixels, in [0, size - 1]. Whole factors divide by the factor;
    /// fractional ones space the grid by the sizes, as the specification's
    /// LinearUpsampleMode writes it.
    func source(_ i: Int, factor: Int, size: Int, output: Int) -> Float {
        let fractional = !upsample.fractionalScale.isEmpty
        let position: Float = switch upsample.alignment {
        case .legacy: Float(i) / Float(factor)
        case .alignCorners: output > 1 ? Float(i) * Float(size - 1) / Float(output - 1) : 0
        case .halfPixel: fractional ? (Float(i) + 0.5) * (Float(size) / Float(output)) - 0.5 : (Float(i) + 0.5) / Float(factor) - 0.5
        }
        return min(max(position, 0), Float(size - 1))
    }
}

/// A constant tensor.
struct ConstantKernel: Kernel {
    let data: Weights

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        outputs[0].values = data.values
    }
}

extension Flatten: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        CopyKernel(input: inputs[0], output: outputs[0], channelLast: order == .channelLast)
    }
}

extension Split: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        SplitKernel()
    }
}

extension Padding: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        PaddingKernel(padding: self, input: inputs[0], output: outputs[0])
    }
}

/// The window of H and W the crop keeps: a slice of those axes.
extension Crop: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        let (top, left) = switch self {
        case .edges(let edges): (edges.top, edges.left)
        case .like(let offset): offset.count == 2 ? (offset[0], offset[1]) : (0, 0)
        }
        var first = Array(repeating: 0, count: inputs[0].rank)
        (first[first.count - 2], first[first.count - 1]) = (top, left)
        return SliceKernel(input: inputs[0], output: outputs[0], first: first, strides: Array(repeating: 1, count: first.count))
    }
}

extension Upsample: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        UpsampleKernel(upsample: self, input: inputs[0])
    }
}

/// A constant of either kind ([C, H, W] or any rank): its values, whatever the shape.
protocol ConstantValues: KernelMaking {
    var data: Weights { get }
}

extension ConstantValues {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        ConstantKernel(data: data)
    }
}

extension Constant: ConstantValues {}

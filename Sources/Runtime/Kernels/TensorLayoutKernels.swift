import ModelFormat

// Kernels of the rank-N reshape, concatenation and slice.

/// The values as they are (a reshape only renames the shape), or in
/// channel-last order re-read in H, W, C order (`CopyKernel`).
extension Reshape: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        CopyKernel(input: inputs[0], output: outputs[0], channelLast: order == .channelLast)
    }
}

/// Each input's block of values per outer index, in turn (one block each
/// along the channels of a map: the inputs one after the other).
struct ConcatKernel: Kernel {
    /// The product of the sizes before the axis.
    let outer: Int

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        outputs[0].values.withUnsafeMutableBufferPointer { y in
            var target = 0
            for o in 0..<outer {
                for input in inputs {
                    let block = input.values.count / outer
                    input.values.withUnsafeBufferPointer { x in
                        _ = UnsafeMutableBufferPointer(rebasing: y[target..<target + block])
                            .update(fromContentsOf: UnsafeBufferPointer(rebasing: x[o * block..<(o + 1) * block]))
                    }
                    target += block
                }
            }
        }
    }
}

extension Concat: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        let index = inputs[0].axisIndex(axis)!  // checked by shape inference
        return ConcatKernel(outer: inputs[0].dimensions[..<index].reduce(1, *))
    }
}

/// Each output element read from the input at begin + index * stride.
struct SliceKernel: Kernel {
    let output: TensorShape
    /// The input offset of the first element read.
    let start: Int
    /// The input's stride along each output axis (times the slice's stride).
    let strides: [Int]

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        gather(inputs[0].values, into: &outputs[0].values, shape: output, start: start, strides: strides)
    }
}

extension SliceND: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        let input = inputs[0]
        var inputStrides = Array(repeating: 1, count: input.rank)
        for axis in stride(from: input.rank - 2, through: 0, by: -1) {
            inputStrides[axis] = inputStrides[axis + 1] * input.dimensions[axis + 1]
        }
        return SliceKernel(output: outputs[0], start: zip(begin, inputStrides).reduce(0) { $0 + $1.0 * $1.1 },
                           strides: zip(inputStrides, strides).map { $0 * $1 })
    }
}

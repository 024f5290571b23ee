import ModelFormat

// Kernels of the rank-N reshape and concatenation.

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

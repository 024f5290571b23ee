import ModelFormat

/// Each output element read from the input at first + index * stride
/// along every axis (`gather`): slices, and crops of H and W.
struct SliceKernel: Kernel {
    let output: TensorShape
    /// The input offset of the first element read.
    let start: Int
    /// The input's stride along each output axis (times the slice's stride).
    let strides: [Int]

    /// Reads `input` from the index `first` (one per axis) in steps of
    /// `strides` (one per axis).
    init(input: TensorShape, output: TensorShape, first: [Int], strides: [Int]) {
        var inputStrides = Array(repeating: 1, count: input.rank)
        for axis in stride(from: input.rank - 2, through: 0, by: -1) {
            inputStrides[axis] = inputStrides[axis + 1] * input.dimensions[axis + 1]
        }
        self.output = output
        self.start = zip(first, inputStrides).reduce(0) { $0 + $1.0 * $1.1 }
        self.strides = zip(inputStrides, strides).map { $0 * $1 }
    }

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        gather(inputs[0].values, into: &outputs[0].values, shape: output, start: start, strides: strides)
    }
}

/// The listed axes from their first element (a negative bound resolved,
/// as `Slice.range` does), the others whole.
extension Slice: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        let input = inputs[0]
        var first = Array(repeating: 0, count: input.rank), steps = Array(repeating: 1, count: input.rank)
        for (listed, index) in axisIndices(rank: input.rank).enumerated() {
            guard let index else { continue }  // checked by shape inference
            (first[index], steps[index]) = (range(listed, of: input.dimensions[index]).first, strides[listed])
        }
        return SliceKernel(input: input, output: outputs[0], first: first, strides: steps)
    }
}

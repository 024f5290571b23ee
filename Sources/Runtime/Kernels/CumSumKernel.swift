import ModelFormat

/// The running sum along one axis, each line of the [outer, size, inner]
/// view on its own, in float32 from the line's first value (its last when
/// reversed) as Core ML and the frameworks add.
struct CumSumKernel: Kernel {
    let outer: Int
    let size: Int
    let inner: Int
    let exclusive: Bool
    let reverse: Bool

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        inputs[0].values.withUnsafeBufferPointer { x in
            outputs[0].values.withUnsafeMutableBufferPointer { y in
                for o in 0..<outer {
                    for p in 0..<inner {
                        let base = o * size * inner + p
                        var sum: Float = 0
                        for step in 0..<size {
                            let at = base + (reverse ? size - 1 - step : step) * inner
                            if exclusive {
                                y[at] = sum
                                sum += x[at]
                            } else {
                                sum += x[at]
                                y[at] = sum
                            }
                        }
                    }
                }
            }
        }
    }
}

extension CumSum: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        let (outer, size, inner) = AxisView.of(inputs[0], axis: inputs[0].axisIndex(axis)!)  // checked by shape inference
        return CumSumKernel(outer: outer, size: size, inner: inner, exclusive: exclusive, reverse: reverse)
    }
}

import ModelFormat

/// Where each input's values lie along the output's rows (its last axis),
/// the inputs broadcast to it as numpy does: per input, the offset of each
/// row's first value and the step along the row (0 where it repeats).
struct BroadcastInputs {
    let rowStarts: [[Int]]
    let steps: [Int]
    let width: Int

    init(_ inputs: [TensorShape], to output: TensorShape) {
        let dimensions = output.dimensions
        width = dimensions.last ?? 1
        var starts: [[Int]] = [], steps: [Int] = []
        for input in inputs {
            let strides = broadcastStrides(of: input.dimensions, to: dimensions)
            var rows = [Int](repeating: 0, count: output.count / width)
            forEachOffset(Array(dimensions.dropLast()), strides: Array(strides.dropLast())) { rows[$0] = $1 }
            starts.append(rows)
            steps.append(strides.last ?? 0)
        }
        (rowStarts, self.steps) = (starts, steps)
    }

    /// Calls `body(outputIndex, offsets)` for every output value, `offsets`
    /// holding each input's offset for it.
    func forEach(_ body: (Int, [Int]) -> Void) {
        var offsets = [Int](repeating: 0, count: steps.count)
        for row in 0..<(rowStarts.first?.count ?? 0) {
            for column in 0..<width {
                for input in steps.indices { offsets[input] = rowStarts[input][row] + column * steps[input] }
                body(row * width + column, offsets)
            }
        }
    }
}

/// A comparison or logical operation value by value: 1 where it holds, 0
/// elsewhere. Swift's float comparisons are IEEE 754's, as ONNX's are:
/// NaN equals nothing and is neither less nor greater.
struct ComparisonKernel: Kernel {
    let kind: Comparison.Kind
    let alpha: Float
    let layout: BroadcastInputs

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        let a = inputs[0].values, b = inputs.count > 1 ? inputs[1].values : [alpha]
        let one = inputs.count == 1
        let holds: (Float, Float) -> Bool = switch kind {
        case .equal: { $0 == $1 }
        case .notEqual: { $0 != $1 }
        case .less: { $0 < $1 }
        case .lessOrEqual: { $0 <= $1 }
        case .greater: { $0 > $1 }
        case .greaterOrEqual: { $0 >= $1 }
        case .and: { $0 != 0 && $1 != 0 }
        case .or: { $0 != 0 || $1 != 0 }
        case .xor: { ($0 != 0) != ($1 != 0) }
        case .not: { x, _ in x == 0 }
        }
        outputs[0].values.withUnsafeMutableBufferPointer { y in
            layout.forEach { i, at in y[i] = holds(a[at[0]], b[one ? 0 : at[1]]) ? 1 : 0 }
        }
    }
}

extension Comparison: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        ComparisonKernel(kind: kind, alpha: alpha, layout: BroadcastInputs(inputs, to: outputs[0]))
    }
}

/// `condition != 0 ? x : y` value by value, the three broadcast.
struct WhereKernel: Kernel {
    let layout: BroadcastInputs

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        let (condition, x, y) = (inputs[0].values, inputs[1].values, inputs[2].values)
        outputs[0].values.withUnsafeMutableBufferPointer { out in
            layout.forEach { i, at in out[i] = condition[at[0]] != 0 ? x[at[1]] : y[at[2]] }
        }
    }
}

extension Where: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        WhereKernel(layout: BroadcastInputs(inputs, to: outputs[0]))
    }
}

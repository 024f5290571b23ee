import ModelFormat

extension GraphConstant {
    /// `combine` of `a` and `b` value by value, the two broadcast against
    /// each other as numpy does (`ShapeInference.broadcast`): the one
    /// broadcasting fold of the graph frontends (TensorFlow, ONNX).
    /// - Parameter limit: what the conversion may still make (`MadeValues.remaining`).
    /// - Throws: `ModelError` for a negative size (an Expand's shape), shapes
    ///   that do not broadcast, a result of more than `maximumMadeCount`
    ///   values or more than `limit`, each found before any value is made.
    public static func broadcast(_ a: GraphConstant, _ b: GraphConstant, limit: Int = maximumMadeTotal,
                                 _ combine: (Double, Double) -> Double) throws(ModelError) -> GraphConstant {
        try broadcast(a, b, readingB: true, limit: limit, combine)
    }

    /// `self` repeated to the shape it broadcasts to against `shape` (ONNX's
    /// Expand), made without a second operand's values.
    public func expanded(to shape: [Int], limit: Int = maximumMadeTotal) throws(ModelError) -> GraphConstant {
        try Self.broadcast(self, GraphConstant(shape: shape, values: []), readingB: false, limit: limit) { a, _ in a }
    }

    private static func broadcast(_ a: GraphConstant, _ b: GraphConstant, readingB: Bool, limit: Int,
                                  _ combine: (Double, Double) -> Double) throws(ModelError) -> GraphConstant {
        guard (a.shape + b.shape).allSatisfy({ $0 >= 0 }) else { throw ModelError("shapes \(a.shape) and \(b.shape) hold a negative size") }
        let shape = try ShapeInference.broadcast(a.shape, b.shape)
        // Counted before the strides: an empty operand may carry huge sizes.
        guard let count = shape.checkedProduct, count <= maximumMadeCount, shape.allSatisfy({ $0 <= maximumMadeCount }) else {
            throw ModelError("folding \(a.shape) with \(b.shape) would make a constant of shape \(shape), more than \(maximumMadeCount) values")
        }
        guard count <= limit else {
            throw ModelError("folding would make \(count) more values: the constants made so far hold "
                             + "\(maximumMadeTotal - limit), and at most \(maximumMadeTotal) in all")
        }
        let rank = shape.count
        func strides(_ s: [Int]) -> [Int] {
            let padded = Array(repeating: 1, count: rank - s.count) + s
            var result = [Int](repeating: 0, count: rank), step = 1
            for axis in stride(from: rank - 1, through: 0, by: -1) {
                result[axis] = padded[axis] == 1 ? 0 : step
                step *= padded[axis]
            }
            return result
        }
        let (ta, tb) = (strides(a.shape), readingB ? strides(b.shape) : [Int](repeating: 0, count: rank))
        // Row by row along the last axis, operand offsets advanced rather
        // than recomputed: 2^24 values take a fraction of a second.
        let (av, bv) = (a.values, readingB ? b.values : [0])
        let inner = rank == 0 ? 1 : shape[rank - 1]
        let (stepA, stepB) = rank == 0 ? (0, 0) : (ta[rank - 1], tb[rank - 1])
        var values = [Double](repeating: 0, count: count)
        var index = [Int](repeating: 0, count: max(rank - 1, 0))
        values.withUnsafeMutableBufferPointer { out in
            av.withUnsafeBufferPointer { av in
                bv.withUnsafeBufferPointer { bv in
                    var flat = 0
                    while flat < count {
                        var ia = 0, ib = 0
                        for axis in index.indices { ia += index[axis] * ta[axis]; ib += index[axis] * tb[axis] }
                        for _ in 0..<inner {
                            out[flat] = combine(av[ia], bv[ib])
                            flat += 1
                            ia += stepA
                            ib += stepB
                        }
                        var axis = index.count - 1
                        while axis >= 0 {
                            index[axis] += 1
                            if index[axis] < shape[axis] { break }
                            index[axis] = 0
                            axis -= 1
                        }
                    }
                }
            }
        }
        return GraphConstant(shape: shape, values: values)
    }
}

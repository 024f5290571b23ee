import ModelFormat
import TensorFlowSchema

/// Folds a node whose inputs are all constants into a constant: the one
/// evaluator behind constant folding, used for the shape arithmetic
/// (Shape -> StridedSlice -> Pack -> Reshape) and the unfused batch-norm
/// constants (Rsqrt, Mul, Sub, Add) that frozen graphs carry.
enum ConstantEvaluator {
    /// Ops `evaluate` can fold.
    static let foldable: Set<String> = [
        "Identity", "StopGradient", "Snapshot", "PlaceholderWithDefault", "Cast", "Add", "AddV2", "Sub", "Mul", "RealDiv",
        "Maximum", "Minimum", "Rsqrt", "Sqrt", "Neg", "Reciprocal", "Pack", "ConcatV2", "Reshape", "StridedSlice", "Prod",
        "ExpandDims", "Squeeze", "Shape",
    ]

    /// The node's value, or nil when the op is not one the evaluator knows.
    /// - Parameter budget: how many values the conversion may still make
    ///   (`TFConstant.maximumMadeTotal` less what it holds): a result that
    ///   would not fit is refused before it is computed.
    static func evaluate(_ node: TFNode, _ inputs: [TFConstant], budget: Int = TFConstant.maximumMadeTotal) throws -> TFConstant? {
        guard foldable.contains(node.op) else { return nil }
        let type = node.type("T")
        if let type {
            let floatOnly: Set<String> = ["RealDiv", "Rsqrt", "Sqrt", "Reciprocal"]
            guard floatOnly.contains(node.op) ? floatTypes.contains(type) : floatTypes.contains(type) || integerRanges[type.rawValue] != nil
                    || (type == TENSORFLOW__DATA_TYPE__DT_BOOL && ["Identity", "StopGradient", "Snapshot", "Pack", "ConcatV2", "Reshape",
                                                                  "ExpandDims", "Squeeze", "Shape", "StridedSlice", "Cast"].contains(node.op)) else {
                throw node.fail("T \(TFNode.typeName(type)) is not supported")
            }
        }
        guard let result = try fold(node, inputs, budget: budget) else { return nil }
        // Integers must stay what TensorFlow's integer arithmetic gives:
        // no fraction, no wrap-around, exact in a double.
        if let type, let range = integerRanges[type.rawValue], node.op != "Shape" {
            for index in 0..<result.count where !(range.contains(result[index]) && result[index] == result[index].rounded(.towardZero)) {
                throw node.fail("folding gives \(result[index]), which is not a \(TFNode.typeName(type)) (T)")
            }
        }
        return result
    }

    static let floatTypes: Set<Tensorflow__DataType> = [TENSORFLOW__DATA_TYPE__DT_FLOAT, TENSORFLOW__DATA_TYPE__DT_DOUBLE, TENSORFLOW__DATA_TYPE__DT_HALF]
    /// Integer types by raw value, with the values each holds (int64: those exact in a double).
    static let integerRanges: [UInt32: ClosedRange<Double>] = [
        TENSORFLOW__DATA_TYPE__DT_INT32.rawValue: -2147483648...2147483647, TENSORFLOW__DATA_TYPE__DT_INT64.rawValue: -9007199254740992...9007199254740992,
        TENSORFLOW__DATA_TYPE__DT_INT16.rawValue: -32768...32767, TENSORFLOW__DATA_TYPE__DT_INT8.rawValue: -128...127,
        TENSORFLOW__DATA_TYPE__DT_UINT8.rawValue: 0...255,
    ]

    /// Cast to `DstT`: integers truncate toward zero (a value out of the
    /// type's range, or NaN, is refused: TensorFlow's result is the
    /// hardware's), bool is `x != 0`, float rounds to float32.
    static func cast(_ node: TFNode, _ x: TFConstant, _ budget: Int) throws -> TFConstant? {
        let target = node.type("DstT") ?? TENSORFLOW__DATA_TYPE__DT_FLOAT
        let name = TFNode.typeName(target)
        if target == TENSORFLOW__DATA_TYPE__DT_DOUBLE { return x }
        if target == TENSORFLOW__DATA_TYPE__DT_FLOAT { return try map([x], node, budget) { Double(Float($0)) } }
        if target == TENSORFLOW__DATA_TYPE__DT_BOOL { return try map([x], node, budget) { $0 != 0 ? 1 : 0 } }
        guard let range = integerRanges[target.rawValue] else { throw node.fail("DstT \(name) is not supported") }
        for index in 0..<x.count where !range.contains(x[index].rounded(.towardZero)) {
            throw node.fail("casting \(x[index]) to DstT \(name) is out of its range")
        }
        return try map([x], node, budget) { $0.rounded(.towardZero) }
    }

    static func fold(_ node: TFNode, _ inputs: [TFConstant], budget: Int) throws -> TFConstant? {
        switch node.op {
        case "Cast":
            guard let x = inputs.first else { return nil }
            return try cast(node, x, budget)
        case "Identity", "StopGradient", "Snapshot", "PlaceholderWithDefault":
            return inputs.first
        case "Add", "AddV2": return try broadcast(inputs, node, budget, +)
        case "Sub": return try broadcast(inputs, node, budget, -)
        case "Mul": return try broadcast(inputs, node, budget, *)
        case "RealDiv": return try broadcast(inputs, node, budget, /)
        case "Maximum": return try broadcast(inputs, node, budget) { max($0, $1) }
        case "Minimum": return try broadcast(inputs, node, budget) { min($0, $1) }
        case "Rsqrt": return try map(inputs, node, budget) { 1 / $0.squareRoot() }
        case "Sqrt": return try map(inputs, node, budget) { $0.squareRoot() }
        case "Neg": return try map(inputs, node, budget) { -$0 }
        case "Reciprocal": return try map(inputs, node, budget) { 1 / $0 }
        case "Pack":
            // Scalars or equal-shaped tensors stacked along axis 0.
            guard let first = inputs.first else { return nil }
            let axis = node.int("axis") ?? 0
            guard axis == 0 || (first.shape.isEmpty && axis == -1) else { throw node.fail("axis \(axis) is not supported (only 0)") }
            guard inputs.allSatisfy({ $0.shape == first.shape }) else {
                throw node.fail("packs tensors of different shapes \(inputs.map(\.shape))")
            }
            try checkMade(inputs.reduce(0) { $0 + $1.count }, node, budget: budget)
            return TFConstant(shape: [inputs.count] + first.shape, values: inputs.flatMap(\.values))
        case "ConcatV2":
            guard inputs.count >= 2, inputs.dropLast().allSatisfy({ $0.shape.count <= 1 }) else { return nil }
            let parts = inputs.dropLast()
            let count = parts.reduce(0) { $0 + $1.count }
            try checkMade(count, node, budget: budget)
            return TFConstant(shape: [count], values: parts.flatMap(\.values))
        case "Reshape":
            guard inputs.count == 2 else { return nil }
            let shape = try resolvedShape(try inputs[1].ints(node, "the shape"), count: inputs[0].count, node)
            return inputs[0].reshaped(shape)
        case "StridedSlice":
            return try stridedSlice(node, inputs)
        case "Prod":
            guard inputs.count == 2, inputs[0].shape.count <= 1 else { return nil }
            let axes = try inputs[1].ints(node, "the axis")
            guard axes.allSatisfy({ $0 == 0 || $0 == -1 }) || (axes.isEmpty && inputs[0].shape.isEmpty) else {
                throw node.fail("axis \(axes) is out of range for a vector")
            }
            let product = axes.isEmpty ? inputs[0].values : [inputs[0].values.reduce(1, *)]
            return TFConstant(shape: node.bool("keep_dims") == true || (axes.isEmpty && !inputs[0].shape.isEmpty) ? [product.count] : [], values: product)
        case "ExpandDims":
            guard inputs.count == 2, let x = inputs.first else { return nil }
            let axes = try inputs[1].ints(node, "the axis")
            let rank = x.shape.count
            guard axes.count == 1, (-rank - 1...rank).contains(axes[0]) else { throw node.fail("axis \(axes) is out of range for rank \(rank)") }
            var shape = x.shape
            shape.insert(1, at: axes[0] < 0 ? axes[0] + rank + 1 : axes[0])
            return x.reshaped(shape)
        case "Squeeze":
            guard let x = inputs.first else { return nil }
            let dims = node.ints("squeeze_dims") ?? [], rank = x.shape.count
            guard dims.allSatisfy({ (-rank..<rank).contains($0) && x.shape[$0 < 0 ? $0 + rank : $0] == 1 }) else {
                throw node.fail("squeeze_dims \(dims) does not name axes of size 1 of \(x.shape)")
            }
            let squeezed = dims.isEmpty ? Set(x.shape.indices.filter { x.shape[$0] == 1 }) : Set(dims.map { $0 < 0 ? $0 + rank : $0 })
            return x.reshaped(x.shape.indices.filter { !squeezed.contains($0) }.map { x.shape[$0] })
        default:
            return nil
        }
    }

    /// A folded result of `count` values must stay within the cap on what
    /// the converter makes, and within what the conversion may still make.
    static func checkMade(_ count: Int, _ node: TFNode, budget: Int) throws {
        guard count <= TFConstant.maximumMadeCount else {
            throw node.fail("folding would make a constant of \(count) values, more than \(TFConstant.maximumMadeCount)")
        }
        guard count <= budget else {
            throw node.fail("folding would make \(count) more values: the constants made so far hold "
                            + "\(TFConstant.maximumMadeTotal - budget), and at most \(TFConstant.maximumMadeTotal) in all")
        }
    }

    /// A reshape's target with one -1 inferred from `count` values
    /// (`TensorShape.reshapeTarget`).
    static func resolvedShape(_ target: [Int], count: Int, _ node: TFNode) throws -> [Int] {
        do { return try TensorShape.reshapeTarget(target, count: count) } catch { throw node.fail(error.message) }
    }

    static func map(_ inputs: [TFConstant], _ node: TFNode, _ budget: Int, _ f: (Double) -> Double) throws -> TFConstant? {
        guard let x = inputs.first else { return nil }
        try checkMade(x.count, node, budget: budget)
        return TFConstant(shape: x.shape, values: x.values.map(f))
    }

    /// Element-wise with NumPy broadcasting of two operands
    /// (`GraphConstant.broadcast`), within the conversion's budget.
    static func broadcast(_ inputs: [TFConstant], _ node: TFNode, _ budget: Int,
                          _ f: (Double, Double) -> Double) throws -> TFConstant? {
        guard inputs.count == 2 else { return nil }
        let (a, b) = (inputs[0], inputs[1])
        if let shape = try? ShapeInference.broadcast(a.shape, b.shape), let count = shape.checkedProduct, count <= TFConstant.maximumMadeCount {
            try checkMade(count, node, budget: budget)
        }
        do { return try TFConstant.broadcast(a, b, f) } catch { throw node.fail(error.message) }
    }

    /// 1-D strided slices (what shape arithmetic uses), with begin / end /
    /// shrink-axis masks.
    static func stridedSlice(_ node: TFNode, _ inputs: [TFConstant]) throws -> TFConstant? {
        guard inputs.count == 4, inputs[0].shape.count == 1 else { return nil }
        let x = inputs[0], size = x.count
        let begin = try inputs[1].ints(node, "begin").first ?? 0, end = try inputs[2].ints(node, "end").first ?? size
        let step = try inputs[3].ints(node, "strides").first ?? 1
        guard step != 0 else { throw node.fail("stride 0") }
        for mask in ["ellipsis_mask", "new_axis_mask"] where (node.int(mask) ?? 0) != 0 {
            throw node.fail("\(mask) \(node.int(mask) ?? 0) is not supported")
        }
        let beginMask = node.int("begin_mask") ?? 0, endMask = node.int("end_mask") ?? 0
        let shrink = (node.int("shrink_axis_mask") ?? 0) & 1 != 0
        func clamp(_ i: Int) -> Int { min(max(i < 0 ? i + size : i, 0), size) }
        var start = beginMask & 1 != 0 ? (step > 0 ? 0 : size - 1) : clamp(begin)
        var stop = endMask & 1 != 0 ? (step > 0 ? size : -1) : clamp(end)
        if shrink {
            start = begin < 0 ? begin + size : begin
            guard start >= 0, start < size else { throw node.fail("index \(begin) is out of range for \(size) values") }
            return TFConstant(shape: [], values: [x[start]])
        }
        // Walking down, the stop may be -1 (before the first element), never further.
        if step < 0 && endMask & 1 == 0 { stop = max(end < 0 ? end + size : min(end, size - 1), -1) }
        if step < 0 { start = min(start, size - 1) }
        var values: [Double] = []
        var i = start
        while step > 0 ? i < stop : i > stop {
            if i >= 0 && i < size { values.append(x[i]) }
            i += step
        }
        return TFConstant(shape: [values.count], values: values)
    }
}

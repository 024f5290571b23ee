#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ModelFormat

/// Nodes whose inputs are all constants, computed at conversion: the shape
/// arithmetic exporters write around Reshape (Shape, Gather, Unsqueeze,
/// Concat, ...) and constant expressions. Values are doubles, so int64
/// shape arithmetic stays exact; every result is capped in size.
enum ONNXFolding {
    static let foldable: Set<String> = Set([
        "Constant", "Identity", "Dropout", "Cast", "Shape", "Gather", "Unsqueeze", "Squeeze", "Concat", "Reshape", "Flatten",
        "Slice", "Add", "Sub", "Mul", "Div", "Pow", "Equal", "Less", "Greater", "Where", "Max", "Min", "Neg", "Sqrt", "Floor",
        "Ceil", "Abs", "Reciprocal", "ConstantOfShape", "Range", "Expand", "Transpose", "Mod",
        "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor",
    ]).union(maskFoldable)

    /// The node's output 0, or nil when `op` is not foldable.
    /// - Parameter budget: what the conversion may still make
    ///   (`MadeValues.remaining`): a broadcast or Expand past it is refused
    ///   before it is made.
    static func evaluate(_ node: ONNXNode, _ inputs: [ONNXConstant?], graph: ONNXGraph,
                         budget: Int = ONNXConstant.maximumMadeTotal) throws -> ONNXConstant? {
        let opset = graph.opset
        func input(_ index: Int, _ what: String) throws -> ONNXConstant {
            guard index < inputs.count, let value = inputs[index] else { throw node.fail("has no \(what) (input \(index))") }
            return value
        }
        func listed(_ key: String, input index: Int, since version: Int) throws -> [Int]? {
            if opset < version { return node.ints(key) }
            return index < inputs.count ? try inputs[index].map { try $0.ints(node, key) } : nil
        }
        let result: ONNXConstant
        switch node.op {
        case "Constant": result = try constant(node, graph)
        case "Identity", "Dropout":
            if node.op == "Dropout", inputs.count > 2, let mode = inputs[2], !mode.values.allSatisfy({ $0 == 0 }) {
                throw node.fail("a training_mode input that is true (random dropout) is not supported")
            }
            result = try input(0, "input")
        case "Cast": result = try cast(try input(0, "input"), node)
        case "Shape":
            let x = try input(0, "input")
            result = ONNXConstant(vector: shapeSlice(x.shape, node))
        case "Gather": result = try gather(try input(0, "data"), try input(1, "indices"), axis: node.int("axis") ?? 0, node)
        case "Unsqueeze":
            let x = try input(0, "input")
            guard let axes = try listed("axes", input: 1, since: 13) else { throw node.fail("has no axes") }
            var shape = x.shape
            for axis in axes.map({ $0 < 0 ? $0 + x.shape.count + axes.count : $0 }).sorted() {
                guard axis >= 0, axis <= shape.count else { throw node.fail("axis \(axis) is out of range") }
                shape.insert(1, at: axis)
            }
            result = x.reshaped(shape)
        case "Squeeze":
            let x = try input(0, "input")
            let axes = try squeezedAxes(try listed("axes", input: 1, since: 13), of: x.shape, node)
            result = x.reshaped(x.shape.enumerated().filter { !axes.contains($0.offset) }.map(\.element))
        case "Concat": result = try concat(inputs.compactMap { $0 }, axis: node.int("axis") ?? 0, node)
        case "Reshape": result = try reshape(try input(0, "data"), try input(1, "shape").ints(node, "the shape"), allowZero: node.int("allowzero") == 1, node)
        case "Flatten":
            let x = try input(0, "input")
            var axis = node.int("axis") ?? 1
            if axis < 0 { axis += x.shape.count }
            guard axis >= 0, axis <= x.shape.count else { throw node.fail("axis \(axis) is out of range") }
            result = x.reshaped([x.shape.prefix(axis).reduce(1, *), x.shape.dropFirst(axis).reduce(1, *)])
        case "Slice": result = try slice(node, inputs, opset: opset)
        case "Mod":
            let floored = node.int("fmod") != 1
            result = try broadcast(try input(0, "A"), try input(1, "B"), node) { a, b in
                b == 0 ? .nan : floored ? a - (a / b).rounded(.down) * b : fmod(a, b)
            }
        case "Add", "Sub", "Mul", "Div", "Pow", "Equal", "Less", "Greater", "Max", "Min", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor":
            let integer = try input(0, "A").isInteger && input(1, "B").isInteger, integerBase = try input(0, "A").isInteger
            result = try broadcast(try input(0, "A"), try input(1, "B"), node, limit: budget) { a, b in
                switch node.op {
                case "Add": a + b
                case "Sub": a - b
                case "Mul": a * b
                // Integer division truncates (exporters compute sizes this way).
                case "Div": b == 0 ? .nan : integer ? (a / b).rounded(.towardZero) : a / b
                case "Pow": integerBase ? pow(a, b).rounded(.towardZero) : pow(a, b)
                case "Equal": a == b ? 1 : 0
                case "Less": a < b ? 1 : 0
                case "Greater": a > b ? 1 : 0
                case "LessOrEqual": a <= b ? 1 : 0
                case "GreaterOrEqual": a >= b ? 1 : 0
                case "And": a != 0 && b != 0 ? 1 : 0
                case "Or": a != 0 || b != 0 ? 1 : 0
                case "Xor": (a != 0) != (b != 0) ? 1 : 0
                case "Max": max(a, b)
                default: min(a, b)
                }
            }.integer(integer)
        case "Where":
            let condition = try input(0, "condition")
            let chosen = try broadcast(condition, try input(1, "X"), node) { c, x in c != 0 ? x : .nan }
            result = try broadcast(chosen, try broadcast(condition, try input(2, "Y"), node) { c, y in c != 0 ? .nan : y }, node) { x, y in x.isNaN ? y : x }
        case "Neg", "Sqrt", "Floor", "Ceil", "Abs", "Reciprocal":
            let x = try input(0, "input")
            result = ONNXConstant(shape: x.shape, values: x.values.map { v in
                switch node.op {
                case "Neg": -v
                case "Sqrt": v.squareRoot()
                case "Floor": v.rounded(.down)
                case "Ceil": v.rounded(.up)
                case "Abs": abs(v)
                default: 1 / v
                }
            })
        case "ConstantOfShape":
            let shape = try input(0, "shape").ints(node, "the shape")
            guard shape.allSatisfy({ $0 >= 0 }), let count = shape.checkedProduct, count <= ONNXConstant.maximumMadeCount else {
                throw node.fail("shape \(shape) is invalid or larger than \(ONNXConstant.maximumMadeCount) values")
            }
            let fill = try node.tensor("value").map { try ONNXConstant($0, owner: graph.decoded, folder: graph.folder, what: "node '\(node.name)' value").values.first ?? 0 } ?? 0
            result = ONNXConstant(shape: shape, values: [Double](repeating: fill, count: count))
        case "Range": result = try range(try input(0, "start"), try input(1, "limit"), try input(2, "delta"), node)
        case "Expand":
            let x = try input(0, "input"), shape = try input(1, "shape").ints(node, "the shape")
            do { result = try x.expanded(to: shape, limit: budget) } catch { throw node.fail(error.message) }
        case "Transpose": result = try transpose(try input(0, "input"), node.ints("perm"), node)
        default:
            guard let folded = try evaluateMask(node, inputs, opset: opset) else { return nil }
            result = folded
        }
        guard result.count <= ONNXConstant.maximumMadeCount else { throw node.fail("folds to \(result.count) values") }
        return result.integer(try resultIsInteger(node, inputs, result, graph))
    }

    /// Whether the folded output has an integer (or bool) type, by ONNX's
    /// type rules: comparisons, logic and Shape make bool or int64; Constant,
    /// Cast and ConstantOfShape name their type; every other foldable op
    /// keeps its data input's type (Where's X). A later Div truncates only
    /// what is marked here, so a mark lost on the way (an int64 Range halved
    /// to 0.5) would be a silently wrong shape or index.
    static func resultIsInteger(_ node: ONNXNode, _ inputs: [ONNXConstant?], _ result: ONNXConstant, _ graph: ONNXGraph) throws -> Bool {
        switch node.op {
        case "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Not", "Shape": return true
        case "Constant", "Cast": return result.isInteger
        case "ConstantOfShape":
            guard let value = node.tensor("value") else { return false }
            return ONNXConstant.integerTypes.contains(value.pointee.data_type)
        case "Where": return inputs.count > 1 && inputs[1]?.isInteger == true
        case "Concat": return inputs.allSatisfy { $0?.isInteger == true }
        default: return inputs.first??.isInteger == true
        }
    }

    /// Range: `start + i * delta` for `i` in `0..<max(0, ceil((limit - start) / delta))`.
    /// Start, limit and delta are scalars (ONNX; a one-value vector too, as
    /// onnxruntime reads it), finite, with a nonzero delta; the count is
    /// computed and capped before any value is made.
    static func range(_ start: ONNXConstant, _ limit: ONNXConstant, _ delta: ONNXConstant, _ node: ONNXNode) throws -> ONNXConstant {
        for (name, value) in [("start", start), ("limit", limit), ("delta", delta)] where value.shape.count > 1 || value.count != 1 {
            throw node.fail("\(name) has shape \(value.shape); it must be a scalar")
        }
        let (first, last, step) = (start[0], limit[0], delta[0])
        guard step != 0, step.isFinite, first.isFinite, last.isFinite else { throw node.fail("has a zero or non-finite step") }
        // In doubles: an overflow is an infinity, refused here, never a trap.
        let steps = ((last - first) / step).rounded(.up)
        guard steps.isFinite, steps <= Double(ONNXConstant.maximumMadeCount) else { throw node.fail("makes \(steps) values, too many") }
        let count = steps > 0 ? Int(steps) : 0
        return ONNXConstant(shape: [count], values: (0..<count).map { first + Double($0) * step })
    }

    /// Squeeze's axes (all axes of size 1 when none are listed), each in
    /// range and of size 1, as ONNX requires.
    static func squeezedAxes(_ listed: [Int]?, of shape: [Int], _ node: ONNXNode) throws -> Set<Int> {
        guard let listed else { return Set(shape.indices.filter { shape[$0] == 1 }) }
        let axes = listed.map { $0 < 0 ? $0 + shape.count : $0 }
        guard axes.allSatisfy({ shape.indices.contains($0) }), Set(axes).count == axes.count else {
            throw node.fail("axes \(listed) are out of range for rank \(shape.count) (or repeat)")
        }
        guard axes.allSatisfy({ shape[$0] == 1 }) else { throw node.fail("axes \(listed) of \(shape) are not all of size 1") }
        return Set(axes)
    }

    /// Cast's `to`: float and double as they are (float rounded to float32),
    /// bool as nonzero, integers truncated toward zero and within the type's
    /// range. Half and brain floats (values rounded), strings and the 8-bit
    /// and 4-bit types are refused.
    static func cast(_ x: ONNXConstant, _ node: ONNXNode) throws -> ONNXConstant {
        let to = node.int("to") ?? 0
        let ranges: [Int: (name: String, low: Double, high: Double)] = [
            2: ("uint8", 0, 255), 3: ("int8", -128, 127), 4: ("uint16", 0, 65535), 5: ("int16", -32768, 32767),
            6: ("int32", -0x1p31, 0x1p31 - 1), 7: ("int64", -0x1p63, 0x1p63.nextDown), 12: ("uint32", 0, 0x1p32 - 1), 13: ("uint64", 0, 0x1p64.nextDown),
        ]
        switch to {
        case 1: return ONNXConstant(shape: x.shape, values: x.values.map { Double(Float($0)) })
        case 11: return x.integer(false)
        case 9: return ONNXConstant(shape: x.shape, values: x.values.map { $0 != 0 ? 1 : 0 }).integer(true)
        case let type where ranges[type] != nil:
            let (name, low, high) = ranges[type]!
            return ONNXConstant(shape: x.shape, values: try x.values.map { value in
                let truncated = value.rounded(.towardZero)
                guard truncated >= low, truncated <= high else { throw node.fail("to \(name) of \(value), which \(name) cannot hold, is not supported") }
                return truncated
            }).integer(true)
        case 10: throw node.fail("to float16 is not supported (values would be rounded to half precision)")
        case 16: throw node.fail("to bfloat16 is not supported (values would be rounded to 8-bit mantissas)")
        default: throw node.fail("to \(to) (a data type other than float, double, bool and the integers) is not supported")
        }
    }

    private static func constant(_ node: ONNXNode, _ graph: ONNXGraph) throws -> ONNXConstant {
        if let tensor = node.tensor("value") { return try ONNXConstant(tensor, owner: graph.decoded, folder: graph.folder, what: "node '\(node.name)' (Constant)") }
        if let value = node.float("value_float"), node.has("value_float") { return ONNXConstant(shape: [], values: [Double(value)]) }
        if let values = node.floats("value_floats") { return ONNXConstant(shape: [values.count], values: values.map(Double.init)) }
        if let value = node.int("value_int"), node.has("value_int") { return ONNXConstant(shape: [], values: [Double(value)]).integer(true) }
        if let values = node.ints("value_ints") { return ONNXConstant(vector: values) }
        throw node.fail("has no value this converter reads (value, value_float(s), value_int(s))")
    }

    /// Shape's `start` / `end` (opset 15), clamped.
    static func shapeSlice(_ shape: [Int], _ node: ONNXNode) -> [Int] {
        func clamp(_ value: Int) -> Int { min(max(value < 0 ? value + shape.count : value, 0), shape.count) }
        let start = clamp(node.int("start") ?? 0), end = clamp(node.int("end") ?? shape.count)
        return start < end ? Array(shape[start..<end]) : []
    }

    static func gather(_ data: ONNXConstant, _ indices: ONNXConstant, axis: Int, _ node: ONNXNode) throws -> ONNXConstant {
        let rank = data.shape.count
        let axis = axis < 0 ? axis + rank : axis
        guard axis >= 0, axis < rank else { throw node.fail("axis \(axis) is out of range for rank \(rank)") }
        let size = data.shape[axis]
        let picks = try indices.ints(node, "the indices").map { $0 < 0 ? $0 + size : $0 }
        guard picks.allSatisfy({ $0 >= 0 && $0 < size }) else { throw node.fail("indices \(picks) are out of range 0..<\(size)") }
        let outer = data.shape.prefix(axis).reduce(1, *), inner = data.shape.dropFirst(axis + 1).reduce(1, *)
        guard outer * picks.count * inner <= ONNXConstant.maximumMadeCount else { throw node.fail("gathers too many values") }
        var values: [Double] = []
        values.reserveCapacity(outer * picks.count * inner)
        for o in 0..<outer { for p in picks { for i in 0..<inner { values.append(data[(o * size + p) * inner + i]) } } }
        return ONNXConstant(shape: Array(data.shape.prefix(axis)) + indices.shape + Array(data.shape.dropFirst(axis + 1)), values: values).integer(data.isInteger)
    }

    static func concat(_ parts: [ONNXConstant], axis: Int, _ node: ONNXNode) throws -> ONNXConstant {
        guard let first = parts.first else { throw node.fail("concatenates nothing") }
        let rank = first.shape.count
        let axis = axis < 0 ? axis + rank : axis
        guard axis >= 0, axis < max(rank, 1), parts.allSatisfy({ $0.shape.count == rank }) else { throw node.fail("axis \(axis) does not fit the inputs' ranks") }
        let integer = parts.allSatisfy(\.isInteger)
        if rank == 0 { return ONNXConstant(shape: [parts.count], values: parts.map { $0[0] }).integer(integer) }
        for part in parts where Array(part.shape.prefix(axis)) != Array(first.shape.prefix(axis)) || Array(part.shape.dropFirst(axis + 1)) != Array(first.shape.dropFirst(axis + 1)) {
            throw node.fail("shapes \(parts.map(\.shape)) do not concatenate along axis \(axis)")
        }
        let outer = first.shape.prefix(axis).reduce(1, *), inner = first.shape.dropFirst(axis + 1).reduce(1, *)
        var values: [Double] = []
        for o in 0..<outer {
            for part in parts {
                let block = part.shape[axis] * inner
                for i in 0..<block { values.append(part[o * block + i]) }
            }
        }
        var shape = first.shape
        shape[axis] = parts.map { $0.shape[axis] }.reduce(0, +)
        return ONNXConstant(shape: shape, values: values).integer(integer)
    }

    /// Reshape's target: 0 copies the input's size (unless allowzero), -1 is inferred.
    static func reshaped(_ shape: [Int], to requested: [Int], allowZero: Bool, _ node: ONNXNode) throws -> [Int] {
        let count = shape.reduce(1, *)
        var target = requested.enumerated().map { index, size in size == 0 && !allowZero && index < shape.count ? shape[index] : size }
        guard target.filter({ $0 == -1 }).count <= 1, target.allSatisfy({ $0 >= -1 }) else { throw node.fail("shape \(requested) is invalid") }
        if let unknown = target.firstIndex(of: -1) {
            let known = target.enumerated().filter { $0.offset != unknown }.map(\.element).reduce(1, *)
            guard known > 0, count % known == 0 else { throw node.fail("shape \(requested) does not fit \(count) values") }
            target[unknown] = count / known
        }
        guard target.checkedProduct == count else { throw node.fail("shape \(requested) does not fit \(count) values") }
        return target
    }

    private static func reshape(_ x: ONNXConstant, _ requested: [Int], allowZero: Bool, _ node: ONNXNode) throws -> ONNXConstant {
        x.reshaped(try reshaped(x.shape, to: requested, allowZero: allowZero, node))
    }

    /// Slice's range on each axis of `shape`: starts, ends, axes and steps
    /// as attributes before opset 10, as constant inputs 1 to 4 after,
    /// negative bounds counted from the end and clamped as ONNX clamps.
    /// - Throws: `ONNXError` naming the node when they do not match.
    static func sliceRanges(_ node: ONNXNode, _ inputs: [ONNXConstant?], shape: [Int], opset: Int) throws -> [(start: Int, end: Int, step: Int)] {
        let starts: [Int], ends: [Int], axes: [Int], steps: [Int]
        if opset < 10 {
            starts = node.ints("starts") ?? []
            ends = node.ints("ends") ?? []
            axes = node.ints("axes") ?? Array(starts.indices)
            steps = [Int](repeating: 1, count: starts.count)
        } else {
            // Exporters write INT64_MAX (or MIN) for "to the end": clamped, as ONNX clamps.
            func list(_ index: Int, _ what: String) throws -> [Int]? {
                guard index < inputs.count, let values = inputs[index]?.values else { return nil }
                return try values.map { value in
                    guard !value.isNaN else { throw node.fail("\(what) holds NaN") }
                    return value.magnitude >= 0x1p53 ? (value < 0 ? -(1 << 53) : 1 << 53) : Int(value.rounded(.towardZero))
                }
            }
            guard let s = try list(1, "the starts"), let e = try list(2, "the ends") else { throw node.fail("has no constant starts or ends") }
            (starts, ends) = (s, e)
            axes = try list(3, "the axes") ?? Array(starts.indices)
            steps = try list(4, "the steps") ?? [Int](repeating: 1, count: starts.count)
        }
        guard starts.count == ends.count, axes.count == starts.count, steps.count == starts.count else {
            throw node.fail("starts, ends, axes and steps do not match")
        }
        guard !steps.contains(0) else { throw node.fail("steps \(steps) hold a step of 0") }
        var ranges = shape.map { (start: 0, end: $0, step: 1) }
        for (i, rawAxis) in axes.enumerated() {
            let axis = rawAxis < 0 ? rawAxis + shape.count : rawAxis
            guard axis >= 0, axis < shape.count else { throw node.fail("axis \(rawAxis) is out of range") }
            let size = shape[axis], step = steps[i]
            func clamp(_ value: Int, _ low: Int, _ high: Int) -> Int { min(max(value < 0 ? value + size : value, low), high) }
            // A step past the axis's size takes one value, as a step of the size does (2^63-1 stays a valid stride).
            ranges[axis] = step > 0 ? (clamp(starts[i], 0, size), clamp(ends[i], 0, size), min(step, max(size, 1)))
                : (clamp(starts[i], -1, size - 1), clamp(ends[i], -1, size - 1), step)
        }
        return ranges
    }

    private static func slice(_ node: ONNXNode, _ inputs: [ONNXConstant?], opset: Int) throws -> ONNXConstant {
        guard let x = inputs.first ?? nil else { throw node.fail("has no data") }
        let ranges = try sliceRanges(node, inputs, shape: x.shape, opset: opset)
        let counts = ranges.map { r in max(0, (r.end - r.start + r.step + (r.step > 0 ? -1 : 1)) / r.step) }
        let strides = x.shape.indices.map { x.shape.dropFirst($0 + 1).reduce(1, *) }
        var values: [Double] = []
        let total = counts.reduce(1, *)
        guard total <= ONNXConstant.maximumMadeCount else { throw node.fail("slices too many values") }
        for flat in 0..<total {
            var rest = flat, source = 0
            for axis in x.shape.indices.reversed() {
                let index = rest % max(counts[axis], 1)
                rest /= max(counts[axis], 1)
                source += (ranges[axis].start + index * ranges[axis].step) * strides[axis]
            }
            values.append(x[source])
        }
        return ONNXConstant(shape: counts, values: values).integer(x.isInteger)
    }

    /// numpy broadcasting of two constants through `combine`.
    static func broadcast(_ a: ONNXConstant, _ b: ONNXConstant, _ node: ONNXNode, limit: Int = ONNXConstant.maximumMadeTotal,
                          _ combine: (Double, Double) -> Double) throws -> ONNXConstant {
        do { return try ONNXConstant.broadcast(a, b, limit: limit, combine) } catch { throw node.fail(error.message) }
    }

    static func transpose(_ x: ONNXConstant, _ perm: [Int]?, _ node: ONNXNode) throws -> ONNXConstant {
        let rank = x.shape.count
        let perm = perm ?? Array((0..<rank).reversed())
        guard perm.sorted() == Array(0..<rank) else { throw node.fail("perm \(perm) is not a permutation of the axes") }
        let shape = perm.map { x.shape[$0] }
        let strides = x.shape.indices.map { x.shape.dropFirst($0 + 1).reduce(1, *) }
        var values: [Double] = []
        values.reserveCapacity(x.count)
        for flat in 0..<x.count {
            var rest = flat, source = 0
            for axis in (0..<rank).reversed() {
                let index = rest % shape[axis]
                rest /= shape[axis]
                source += index * strides[perm[axis]]
            }
            values.append(x[source])
        }
        return ONNXConstant(shape: shape, values: values)
    }
}

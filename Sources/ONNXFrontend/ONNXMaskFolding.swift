#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The constant expressions of shifted-window attention, folded at
/// conversion: torchvision's Swin fills a zero mask region by region
/// (slice assignment, exported as ScatterND; dynamo's export gathers its
/// relative-position table with GatherND) and compares it (Equal, Not,
/// Where); Swin V2 runs a small MLP over a constant table of log-spaced
/// relative coordinates (Sign, Log, MatMul, Relu, Sigmoid) and clamps a constant scale (Clip). Ops
/// `ONNXFolding.evaluate` does not spell out itself.
extension ONNXFolding {
    static let maskFoldable: Set<String> = ["Not", "ScatterND", "MatMul", "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sign", "Clip", "GatherND"]

    /// The node's output 0 from constant inputs, or nil for another op.
    static func evaluateMask(_ node: ONNXNode, _ inputs: [ONNXConstant?], opset: Int) throws -> ONNXConstant? {
        func input(_ index: Int, _ what: String) throws -> ONNXConstant {
            guard index < inputs.count, let value = inputs[index] else { throw node.fail("has no \(what) (input \(index))") }
            return value
        }
        switch node.op {
        case "Not":
            let x = try input(0, "input")
            return ONNXConstant(shape: x.shape, values: x.values.map { $0 == 0 ? 1 : 0 })
        case "ScatterND":
            return try scatterND(try input(0, "data"), try input(1, "indices"), try input(2, "updates"), node)
        case "GatherND":
            return try gatherND(try input(0, "data"), try input(1, "indices"), node)
        case "MatMul":
            return try matMul(try input(0, "A"), try input(1, "B"), node)
        case "Clip":
            // Bounds as attributes before opset 11, optional inputs after (open when left out).
            let x = try input(0, "input")
            func bound(_ index: Int, _ key: String) throws -> Double? {
                if opset < 11 { return node.float(key).map(Double.init) }
                guard index < inputs.count, let value = inputs[index] else { return nil }
                guard value.count == 1 else { throw node.fail("\(key) of shape \(value.shape) is not one value") }
                return value[0]
            }
            let (low, high) = (try bound(1, "min") ?? -.infinity, try bound(2, "max") ?? .infinity)
            return ONNXConstant(shape: x.shape, values: x.values.map { min(max($0, low), high) })
        case "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sign":
            let x = try input(0, "input")
            return ONNXConstant(shape: x.shape, values: x.values.map { v in
                switch node.op {
                case "Relu": max(v, 0)
                case "Sigmoid": 1 / (1 + exp(-v))
                case "Tanh": tanh(v)
                case "Exp": exp(v)
                case "Log": log(v)
                default: v > 0 ? 1 : v < 0 ? -1 : v
                }
            })
        default:
            return nil
        }
    }

    /// A copy of `data` with the slices `indices` ([..., k]: the first k
    /// coordinates of each) replaced by `updates` ([..., data's sizes
    /// after k]), in order (a later index wins). Negative coordinates count
    /// from the end, as onnxruntime reads them; anything else out of range
    /// is refused.
    static func scatterND(_ data: ONNXConstant, _ indices: ONNXConstant, _ updates: ONNXConstant, _ node: ONNXNode) throws -> ONNXConstant {
        let (offsets, block, expected) = try blockOffsets(data, indices, node)
        guard updates.shape == expected else { throw node.fail("updates of shape \(updates.shape) are not \(expected)") }
        var values = data.values
        for (tuple, offset) in offsets.enumerated() {
            for element in 0..<block { values[offset * block + element] = updates[tuple * block + element] }
        }
        return ONNXConstant(shape: data.shape, values: values)
    }

    /// The slices of `data` that `indices` ([..., k]) pick (batch_dims 0).
    static func gatherND(_ data: ONNXConstant, _ indices: ONNXConstant, _ node: ONNXNode) throws -> ONNXConstant {
        let (offsets, block, shape) = try blockOffsets(data, indices, node)
        guard let count = shape.checkedProduct, count <= ONNXConstant.maximumMadeCount else { throw node.fail("gathers too many values") }
        let values = data.values
        return ONNXConstant(shape: shape, values: offsets.flatMap { values[($0 * block)..<($0 * block + block)] })
    }

    /// For indices [..., k] into data: each index tuple's block number (the
    /// block being data's sizes after k), the block's size, and the shape
    /// [indices' sizes but the last, data's sizes after k]. Negative
    /// coordinates count from the end, as onnxruntime reads them; anything
    /// else out of range is refused.
    private static func blockOffsets(_ data: ONNXConstant, _ indices: ONNXConstant, _ node: ONNXNode) throws -> (offsets: [Int], block: Int, shape: [Int]) {
        guard let k = indices.shape.last, k >= 1, k <= data.shape.count else {
            throw node.fail("indices of shape \(indices.shape) do not index data of rank \(data.shape.count)")
        }
        let tuples = indices.shape.dropLast().reduce(1, *)
        let inner = Array(data.shape.dropFirst(k))
        let coordinates = try indices.ints(node, "the indices")
        let offsets = try (0..<tuples).map { tuple in
            var offset = 0
            for axis in 0..<k {
                var index = coordinates[tuple * k + axis]
                let size = data.shape[axis]
                if index < 0 { index += size }
                guard index >= 0, index < size else {
                    throw node.fail("index \(coordinates[tuple * k + axis]) is out of range for axis \(axis) of size \(size)")
                }
                offset = offset * size + index
            }
            return offset
        }
        return (offsets, inner.reduce(1, *), Array(indices.shape.dropLast()) + inner)
    }

    /// numpy's matmul of two constants of rank 2 or more, batch axes
    /// broadcast; at most 2^28 multiplications.
    static func matMul(_ a: ONNXConstant, _ b: ONNXConstant, _ node: ONNXNode) throws -> ONNXConstant {
        guard a.shape.count >= 2, b.shape.count >= 2 else { throw node.fail("folds only products of matrices of rank 2 or more, not \(a.shape) and \(b.shape)") }
        let (m, k) = (a.shape[a.shape.count - 2], a.shape[a.shape.count - 1]), (k2, n) = (b.shape[b.shape.count - 2], b.shape[b.shape.count - 1])
        guard k == k2 else { throw node.fail("cannot multiply \(a.shape) by \(b.shape)") }
        // The batch axes broadcast as an element-wise op would: an index constant per operand.
        let batchA = Array(a.shape.dropLast(2)), batchB = Array(b.shape.dropLast(2))
        let indexA = try broadcast(ONNXConstant(shape: batchA, values: (0..<batchA.reduce(1, *)).map(Double.init)),
                                   ONNXConstant(shape: batchB, values: [Double](repeating: 0, count: batchB.reduce(1, *))), node) { x, _ in x }
        let indexB = try broadcast(ONNXConstant(shape: batchA, values: [Double](repeating: 0, count: batchA.reduce(1, *))),
                                   ONNXConstant(shape: batchB, values: (0..<batchB.reduce(1, *)).map(Double.init)), node) { _, y in y }
        // The product's size bounded on its own: with an inner size of 0 the work is none, the output still m x n.
        guard let count = [indexA.count, m, n].checkedProduct, let work = [count, max(k, 1)].checkedProduct, work <= 1 << 28 else {
            throw node.fail("folding \(a.shape) x \(b.shape) is too much work")
        }
        let (va, vb) = (a.values, b.values)
        var values = [Double](repeating: 0, count: count)
        for batch in 0..<indexA.count {
            let (offsetA, offsetB) = (Int(indexA[batch]) * m * k, Int(indexB[batch]) * k * n)
            for row in 0..<m {
                for column in 0..<n {
                    var sum = 0.0
                    for inner in 0..<k { sum += va[offsetA + row * k + inner] * vb[offsetB + inner * n + column] }
                    values[(batch * m + row) * n + column] = sum
                }
            }
        }
        return ONNXConstant(shape: indexA.shape + [m, n], values: values)
    }
}

/// The constant expressions of shifted-window attention's masks, folded at
/// conversion: torchvision's Swin fills a zero mask region by region
/// (slice assignment, exported as ScatterND) and compares it (Equal, Not,
/// Where). Ops `ONNXFolding.evaluate` does not spell out itself.
extension ONNXFolding {
    static let maskFoldable: Set<String> = ["Not", "ScatterND"]

    /// The node's output 0 from constant inputs, or nil for another op.
    static func evaluateMask(_ node: ONNXNode, _ inputs: [ONNXConstant?]) throws -> ONNXConstant? {
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
        guard let k = indices.shape.last, k >= 1, k <= data.shape.count else {
            throw node.fail("indices of shape \(indices.shape) do not index data of rank \(data.shape.count)")
        }
        let tuples = indices.shape.dropLast().reduce(1, *)
        let inner = Array(data.shape.dropFirst(k))
        let expected = Array(indices.shape.dropLast()) + inner
        guard updates.shape == expected else { throw node.fail("updates of shape \(updates.shape) are not \(expected)") }
        let block = inner.reduce(1, *)
        let coordinates = try indices.ints(node, "the indices")
        var values = data.values
        for tuple in 0..<tuples {
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
            for element in 0..<block { values[offset * block + element] = updates[tuple * block + element] }
        }
        return ONNXConstant(shape: data.shape, values: values)
    }
}

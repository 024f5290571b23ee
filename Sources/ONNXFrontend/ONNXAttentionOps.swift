import Conversion
import ModelFormat

/// The tensor patterns of vision transformers' exports (torchvision's Swin
/// and ViT): Expand of a computed tensor, Einsum of the matrix-product
/// forms attention writes, Gather of several indices.
extension ONNXOpTable {
    static let attentionPatterns: [String: Mapping] = ["Expand": expand, "Einsum": einsum]

    /// x broadcast to `shape` (numpy's rules, a size 1 in either kept by
    /// the other): x times a constant of ones holding only the sizes x
    /// broadcasts along.
    static func expand(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let shape = try b.constant(1, "the shape").ints(b.node, "the shape")
        guard shape.count <= 5, shape.allSatisfy({ $0 >= 1 && $0 <= 1 << 31 }) else {
            throw b.node.fail("shape \(shape) must hold 1 to 5 sizes, each 1 to \(1 << 31)")
        }
        let rank = max(x.rank, shape.count)
        let xs = [Int](repeating: 1, count: rank - x.rank) + x.dims
        guard let result = try? ShapeInference.broadcast(x.dims, shape) else { throw b.node.fail("shape \(shape) does not broadcast \(x.dims)") }
        guard let count = result.checkedProduct, count <= TensorShape.maximumCount else { throw b.node.fail("expands \(x.dims) to \(result), too many values") }
        if result == x.dims { return ([], .tensor(name: x.name, rank: x.rank)) }
        guard x.isExact else { throw b.needsTensors("an expand") }
        let ones = zip(xs, result).map { $0 == 1 ? $1 : 1 }
        guard let onesCount = ones.checkedProduct, onesCount <= ONNXConstant.maximumMadeCount else {
            throw b.node.fail("expands \(x.dims) to \(result): a broadcast of \(ones) values is too large")
        }
        return try exactWithConstant(b, x, ONNXConstant(shape: ones, values: [Double](repeating: 1, count: onesCount)), .multiply(constant: 1))
    }

    /// A matrix product written as an equation, "bhqd,bhkd->bhqk" (say):
    /// two operands, each letter once per term; letters in both operands
    /// and the output are batch axes, one letter in both operands only is
    /// summed over, one in each operand and the output is its row or column.
    /// Each operand is transposed to [batch, rows, k] and [batch, k, columns]
    /// (a swap of the last two is MatMul's own transpose), the product
    /// transposed to the output's order. Any other equation is refused.
    static func einsum(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        guard let equation = b.node.string("equation") else { throw b.node.fail("has no equation") }
        let terms = try einsumTerms(equation, operands: b.inputs.count, b.node)
        let (lhs, rhs, out) = (terms[0], terms[1], terms[2])
        let batch = out.filter { lhs.contains($0) && rhs.contains($0) }
        let rows = out.filter { lhs.contains($0) && !rhs.contains($0) }, columns = out.filter { rhs.contains($0) && !lhs.contains($0) }
        let summed = lhs.filter { rhs.contains($0) && !out.contains($0) }
        guard rows.count == 1, columns.count == 1, summed.count == 1, lhs.count == batch.count + 2, rhs.count == batch.count + 2 else {
            throw b.node.fail("equation '\(equation)' is not a matrix product (only batch letters, one row, one column and one summed letter are supported)")
        }
        var nodes: [Node] = []
        func operand(_ index: Int, _ term: [Character], _ order: [Character], suffix: String) throws -> (name: String, transposed: Bool) {
            var name: String, rank: Int
            if b.isConstant(index) {
                let made = try constantTensor(b, try b.constant(index, "operand \(index)"), suffix: "\(suffix)_constant")
                (nodes, name, rank) = (nodes + made.nodes, made.name, try b.constant(index, "operand \(index)").shape.count)
            } else {
                let x = try b.tensor(index)
                guard x.isExact else { throw b.needsTensors("an einsum") }
                (name, rank) = (x.name, x.rank)
            }
            guard rank == term.count else { throw b.node.fail("operand \(index) has rank \(rank), its term '\(String(term))' \(term.count) letters") }
            let perm = order.map { term.firstIndex(of: $0)! }
            let identity = Array(0..<perm.count)
            if perm == identity { return (name, false) }
            if perm == identity.dropLast(2) + [perm.count - 1, perm.count - 2] { return (name, true) }
            let transpose = b.emit(.defined(Transpose(axes: perm)), [name], suffix: suffix)
            nodes.append(transpose)
            return (transpose.outputs[0], false)
        }
        let a = try operand(0, lhs, batch + rows + summed, suffix: "a")
        let c = try operand(1, rhs, batch + summed + columns, suffix: "b")
        let product = batch + rows + columns
        let perm = out.map { product.firstIndex(of: $0)! }
        let multiply = Op.defined(MatMul(transposeA: a.transposed, transposeB: c.transposed))
        if perm == Array(0..<perm.count) { return (nodes + [b.emit(multiply, [a.name, c.name])], .tensor(name: b.name, rank: out.count)) }
        let matmul = b.emit(multiply, [a.name, c.name], suffix: "product")
        return (nodes + [matmul, b.emit(.defined(Transpose(axes: perm)), matmul.outputs)], .tensor(name: b.name, rank: out.count))
    }

    /// The equation's two input terms and its output, checked: explicit
    /// output (`->`), letters only (no ellipsis), none repeated in a term,
    /// every output letter in an input.
    static func einsumTerms(_ equation: String, operands: Int, _ node: ONNXNode) throws -> [[Character]] {
        let text = equation.filter { $0 != " " }
        let sides = text.components(separatedBy: "->")
        guard sides.count == 2 else { throw node.fail("equation '\(equation)' has no single '->' (an implicit output is not supported)") }
        let inputs = sides[0].split(separator: ",", omittingEmptySubsequences: false).map(Array.init)
        guard inputs.count == 2, operands == 2 else {
            throw node.fail("equation '\(equation)' with \(operands) operands: only products of two operands are supported")
        }
        let terms = inputs + [Array(sides[1])]
        for term in terms {
            guard term.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                throw node.fail("equation '\(equation)': only letters are supported in a term (no ellipsis '...')")
            }
            guard Set(term).count == term.count else { throw node.fail("equation '\(equation)': a letter repeated in a term (a diagonal) is not supported") }
        }
        guard terms[2].allSatisfy({ terms[0].contains($0) || terms[1].contains($0) }) else {
            throw node.fail("equation '\(equation)': an output letter appears in no operand")
        }
        return terms
    }

    /// Several constant indices along `axis` of an exact tensor: each run
    /// of evenly spaced increasing indices one strided slice, the slices
    /// joined along the axis, then shaped [before axis, indices' shape,
    /// after axis].
    static func gatherSeveral(_ b: ONNXBuilder, _ x: ONNXTensor, _ indices: ONNXConstant, axis: Int) throws -> (nodes: [Node], value: GraphValue) {
        let dims = x.dims, size = dims[axis]
        guard indices.count > 0 else { throw b.node.fail("gathers no indices") }
        let listed = try indices.ints(b.node, "the indices")
        let wanted = try listed.map { given in
            let index = given < 0 ? given + size : given
            guard index >= 0, index < size else { throw b.node.fail("index \(given) is out of range \(-size)..<\(size) of axis \(axis)") }
            return index
        }
        var runs: [(first: Int, step: Int, count: Int)] = []
        for index in wanted {
            if let last = runs.last, last.count == 1, index > last.first { runs[runs.count - 1] = (last.first, index - last.first, 2); continue }
            if let last = runs.last, last.count > 1, index == last.first + last.step * last.count { runs[runs.count - 1].count += 1; continue }
            runs.append((index, 1, 1))
        }
        guard runs.count <= 256 else { throw b.node.fail("gathers \(runs.count) separate ranges of indices; at most 256 are supported") }
        let target = Array(dims.prefix(axis)) + indices.shape + Array(dims.dropFirst(axis + 1))
        let reshaped = target != dims.prefix(axis) + [wanted.count] + dims.dropFirst(axis + 1)
        var nodes: [Node] = []
        for (number, run) in runs.enumerated() {
            var begin = [Int](repeating: 0, count: x.rank), end = dims, strides = [Int](repeating: 1, count: x.rank)
            (begin[axis], end[axis], strides[axis]) = (run.first, run.first + run.step * (run.count - 1) + 1, run.step)
            let last = runs.count == 1 && !reshaped
            nodes.append(b.emit(.slice(Slice(begin: begin, end: end, strides: strides)), [x.name], suffix: last ? nil : "run\(number)"))
        }
        if runs.count > 1 { nodes.append(b.emit(.defined(Concat(axis: axis)), nodes.map { $0.outputs[0] }, suffix: reshaped ? "joined" : nil)) }
        guard reshaped else { return (nodes, .tensor(name: b.name, rank: x.rank)) }
        guard !target.isEmpty else { throw b.node.fail("a gather to a scalar is not supported") }
        return (nodes + [b.emit(.reshape(targetShape: target), [nodes.last!.outputs[0]])], .tensor(name: b.name, rank: target.count))
    }
}

extension ONNXOpTable {
    /// Constant padding of any axes of an exact tensor (Swin pads [1, H, W,
    /// C] to whole windows): along each padded axis in turn, the tensor
    /// joined with constant blocks of the value before and after.
    static func padExactly(_ b: ONNXBuilder, _ x: ONNXTensor, pads: [Int], value: Float, mode: String) throws -> (nodes: [Node], value: GraphValue) {
        guard mode == "constant" else { throw b.node.fail("mode \(mode) on a tensor of rank \(x.rank) is only supported along H and W of [1, C, H, W]") }
        guard pads.count == 2 * x.rank, pads.allSatisfy({ $0 >= 0 && $0 <= 1 << 20 }) else {
            throw b.node.fail("pads \(pads) are not \(2 * x.rank) sizes of 0 to \(1 << 20) for a tensor of rank \(x.rank)")
        }
        var dims = x.dims, name = x.name, nodes: [Node] = []
        let padded = (0..<x.rank).filter { pads[$0] > 0 || pads[$0 + x.rank] > 0 }
        for (number, axis) in padded.enumerated() {
            var parts: [String] = []
            for (side, size) in [("before", pads[axis]), ("after", pads[axis + x.rank])] where size > 0 {
                var shape = dims
                shape[axis] = size
                guard let count = shape.checkedProduct, count <= ONNXConstant.maximumMadeCount else { throw b.node.fail("pads \(pads) make too many values") }
                let block = b.emit(.defined(Constant(shape: shape, data: Weights([Float](repeating: value, count: count)))), [], suffix: "pad\(axis)_\(side)")
                nodes.append(block)
                parts.append(block.outputs[0])
            }
            let joined = [pads[axis] > 0 ? parts[0] : nil, name, pads[axis + x.rank] > 0 ? parts.last : nil].compactMap { $0 }
            let last = number == padded.count - 1
            let concat = b.emit(.defined(Concat(axis: axis)), joined, suffix: last ? nil : "padded\(axis)")
            nodes.append(concat)
            name = concat.outputs[0]
            dims[axis] += pads[axis] + pads[axis + x.rank]
        }
        if padded.isEmpty { return ([], .tensor(name: x.name, rank: x.rank)) }
        return (nodes, .tensor(name: b.name, rank: x.rank))
    }
}

extension ONNXOpTable {
    /// Softmax of an exact tensor along `axis`. Before opset 13 the input
    /// is flattened from the axis and those values normalized together: the
    /// same where every size after the axis is 1 (the last axis, as
    /// attention's scores take it at opset 11), refused elsewhere.
    static func softmaxExactly(_ b: ONNXBuilder, _ x: ONNXTensor) throws -> (nodes: [Node], value: GraphValue) {
        let given = b.node.int("axis") ?? (b.opset < 13 ? 1 : -1)
        guard (-x.rank..<x.rank).contains(given) else { throw b.node.fail("axis \(given) is outside the input \(x.dims.map(String.init).joined(separator: "x"))") }
        let axis = given < 0 ? given + x.rank : given
        guard b.opset >= 13 || x.dims[(axis + 1)...].allSatisfy({ $0 == 1 }) else {
            throw b.node.fail("before opset 13 Softmax flattens its input \(x.dims) from axis \(axis) and normalizes those values together "
                              + "(this model's opset is \(b.opset)); only where that is one axis (the last) is it supported")
        }
        return b.single(.defined(Softmax(axis: given)), x)
    }
}

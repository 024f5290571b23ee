import Conversion
import ModelFormat

/// Split (the one op with several outputs), the reductions, Sum and Mean
/// of several inputs, and DepthToSpace / SpaceToDepth.
extension ONNXOpTable {
    /// A mapping that gives the value of every output of the node, in order.
    typealias MultiMapping = @Sendable (ONNXBuilder) throws -> (nodes: [Node], values: [GraphValue])

    static let multiOutput: [String: MultiMapping] = ["Split": split]

    /// Along `axis`: sizes from opset 11's `split` attribute, opset 13's
    /// `split` input, or opset 18's `num_outputs` (the last part smaller
    /// where the axis does not divide); else equal parts, one per output.
    /// Each part is a slice: of channels, rows or columns of a map (or the
    /// features of a vector), of any axis of a tensor.
    static func split(_ b: ONNXBuilder) throws -> (nodes: [Node], values: [GraphValue]) {
        let x = try b.tensor(0)
        let dims = x.dims, given = b.node.int("axis") ?? 0
        guard (-dims.count..<dims.count).contains(given) else { throw b.node.fail("axis \(given) is out of range for rank \(dims.count)") }
        let axis = given < 0 ? given + dims.count : given, size = dims[axis], outputs = b.node.outputs.count
        let listed = b.opset < 13 ? b.node.ints("split") : (b.has(1) ? try b.constant(1, "the split sizes").ints(b.node, "the split sizes") : nil)
        var sizes: [Int]
        if let listed {
            if b.node.has("num_outputs") { throw b.node.fail("has both split sizes and num_outputs") }
            guard listed.count == outputs else { throw b.node.fail("split \(listed) lists \(listed.count) sizes for \(outputs) outputs") }
            // Each within the axis before they are added: no sum of huge sizes overflows.
            guard listed.allSatisfy({ $0 > 0 && $0 <= size }), listed.reduce(0, +) == size else {
                throw b.node.fail("split \(listed) does not divide axis \(axis) of \(dims) (\(size) elements) into parts of at least one")
            }
            sizes = listed
        } else {
            let count = b.node.int("num_outputs") ?? outputs
            guard count == outputs else { throw b.node.fail("num_outputs \(count) differs from its \(outputs) outputs") }
            guard count > 0, count <= size else { throw b.node.fail("cannot split axis \(axis) of \(dims) (\(size) elements) into \(count) parts") }
            let part = b.opset >= 18 ? (size + count - 1) / count : size / count
            guard b.opset >= 18 || size % count == 0 else { throw b.node.fail("axis \(axis) of \(dims) (\(size) elements) does not split into \(count) equal parts") }
            sizes = (0..<count).map { min(part, size - $0 * part) }
            guard sizes.allSatisfy({ $0 > 0 }) else { throw b.node.fail("num_outputs \(count) leaves an empty part of axis \(axis) (\(size) elements)") }
        }
        if sizes.count == 1 { return ([], [.tensor(name: x.name, rank: x.rank)]) }
        let mapAxis: Slice.Axis?
        switch (x.isExact, x.isVector, axis) {
        case (true, _, _): mapAxis = nil
        case (false, true, 1), (false, false, 1): mapAxis = .channel
        case (false, false, 2): mapAxis = .height
        case (false, false, 3): mapAxis = .width
        default: throw b.needsTensors("a split along axis \(axis)")
        }
        var nodes: [Node] = [], values: [GraphValue] = [], start = 0
        for (output, part) in zip(b.node.outputs, sizes) {
            defer { start += part }
            guard !output.isEmpty else { values.append(.tensor(name: x.name, rank: x.rank)); continue }  // left out: never read
            let op: Op
            if let mapAxis {
                op = .slice(Slice(axis: mapAxis, start: start, end: start + part))
            } else {
                var begin = [Int](repeating: 0, count: x.rank), end = dims
                (begin[axis], end[axis]) = (start, start + part)
                op = .slice(Slice(begin: begin, end: end))
            }
            nodes.append(Node(name: output, operation: op, inputs: [x.name], outputs: [output]))
            values.append(.tensor(name: output, rank: x.rank))
        }
        return (nodes, values)
    }
}

extension ONNXOpTable {
    /// What a reduction computes, as the reduction of a map (Core ML's
    /// reduce layer) and of a tensor (its rank-N reduce layers, with the
    /// element-wise steps before and after) take it.
    enum Reduction {
        case sum, mean, max, min, product, l2, sumSquare, logSumExp

        var mapMode: Reduce.Mode {
            switch self {
            case .sum, .logSumExp: .sum  // LogSumExp is never a map's: see `reduce`
            case .mean: .average
            case .max: .max
            case .min: .min
            case .product: .product
            case .l2: .l2
            case .sumSquare: .sumSquare
            }
        }

        var tensorMode: Reduce.Mode {
            switch self {
            case .sum, .l2, .sumSquare, .logSumExp: .sum
            case .mean: .average
            case .max: .max
            case .min: .min
            case .product: .product
            }
        }
    }

    static let reductions: [String: Mapping] = [
        "ReduceMean": { try reduce($0, .mean) }, "ReduceSum": { try reduce($0, .sum) }, "ReduceMax": { try reduce($0, .max) },
        "ReduceMin": { try reduce($0, .min) }, "ReduceProd": { try reduce($0, .product) }, "ReduceL2": { try reduce($0, .l2) },
        "ReduceSumSquare": { try reduce($0, .sumSquare) }, "ReduceLogSumExp": { try reduce($0, .logSumExp) },
    ]

    /// Over the listed axes (all of them when none are listed, or the list
    /// is empty), kept as size 1 or dropped (keepdims). Axes are an
    /// attribute before opset 18 (13 for ReduceSum), an input after;
    /// noop_with_empty_axes, which would make the node an identity, is
    /// refused by the ledger. Maps reduce over C, H, W, HW or CHW with
    /// Core ML's reduce layer; anything else (and any LogSumExp) is a
    /// tensor's reduction (its rank-N reduce layers).
    static func reduce(_ b: ONNXBuilder, _ reduction: Reduction) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let axesAsInput = b.opset >= (b.node.op == "ReduceSum" ? 13 : 18)
        let listed = axesAsInput ? (b.has(1) ? try b.constant(1, "the axes").ints(b.node, "the axes") : nil) : b.node.ints("axes")
        let given = listed?.isEmpty == false ? listed! : Array(0..<x.rank)
        let axes = given.map { $0 < 0 ? $0 + x.rank : $0 }
        guard axes.allSatisfy({ (0..<x.rank).contains($0) }), Set(axes).count == axes.count else {
            throw b.node.fail("axes \(given) are not distinct axes of \(x.dims)")
        }
        let keep = (b.node.int("keepdims") ?? 1) != 0
        // Squares before the sum for L2 and SumSquare, a root after it for L2.
        var nodes: [Node] = [], source = x.name
        func step(_ op: Op, _ inputs: [String], _ suffix: String?) {
            nodes.append(b.emit(op, inputs, suffix: suffix))
            source = nodes.last!.outputs[0]
        }
        if x.isExact {
            let rank = keep ? x.rank : max(1, x.rank - axes.count)
            if reduction == .logSumExp { return (logSumExp(b, x, axes: axes.sorted(), keep: keep), .tensor(name: b.name, rank: rank)) }
            if reduction == .l2 || reduction == .sumSquare { step(.multiply(constant: 1), [x.name, x.name], "square") }
            step(.reduce(Reduce(mode: reduction.tensorMode, axes: axes.sorted(), keepDimensions: keep)), [source], reduction == .l2 ? "reduce" : nil)
            if reduction == .l2 { step(.unary(Unary(kind: .sqrt)), [source], nil) }
            return (nodes, .tensor(name: b.name, rank: rank))
        }
        // exp of a map's values overflows from 89 on; the tensors' reduction subtracts the maximum first.
        guard reduction != .logSumExp else { throw b.needsTensors("a log-sum-exp") }
        // Axes 1, 2, 3 of [1, C, H, W]: a map's C, H, W (-3, -2, -1 of [C, H, W]).
        let over = axes.sorted().map { $0 - 4 }
        guard axes.allSatisfy({ $0 >= 1 }), Reduce.mapAxes.contains(where: { $0.axes == over }) else {
            throw b.needsTensors("a reduction over axes \(given)")
        }
        guard x.isMap || over == [-3] else { throw b.needsTensors("a reduction over axes \(given)") }
        // Kept as a map, or H and W dropped from a map: a vector [1, C].
        guard keep || (x.isMap && over == [-2, -1]) else { throw b.needsTensors("a reduction over axes \(given) with keepdims 0") }
        if reduction == .mean, over == [-2, -1] { return try globalPool(b, .average, keepDimensions: keep) }
        return ([b.emit(.reduce(Reduce(mode: reduction.mapMode, axes: over)), [x.name])], .tensor(name: b.name, rank: keep ? x.rank : 2))
    }

    /// log(sum(exp(x))) as onnxruntime computes it, finite where exp(x) is
    /// not: m + log(sum(exp(x - m))), m the maximum over the axes.
    static func logSumExp(_ b: ONNXBuilder, _ x: ONNXTensor, axes: [Int], keep: Bool) -> [Node] {
        let top = b.emit(.reduce(Reduce(mode: .max, axes: axes)), [x.name], suffix: "max")
        let negated = b.emit(.multiply(constant: -1), top.outputs, suffix: "negated")
        let shifted = b.emit(.add(constant: 0), [x.name, negated.outputs[0]], suffix: "shifted")
        let exp = b.emit(.unary(Unary(kind: .exp)), shifted.outputs, suffix: "exp")
        let sum = b.emit(.reduce(Reduce(mode: .sum, axes: axes)), exp.outputs, suffix: "sum")
        let log = b.emit(.unary(Unary(kind: .log)), sum.outputs, suffix: "log")
        let total = b.emit(.add(constant: 0), [log.outputs[0], top.outputs[0]], suffix: keep ? nil : "kept")
        let nodes = [top, negated, shifted, exp, sum, log, total]
        guard !keep else { return nodes }
        let dropped = x.dims.enumerated().filter { !axes.contains($0.offset) }.map(\.element)
        return nodes + [b.emit(.reshape(targetShape: dropped.isEmpty ? [1] : dropped), total.outputs)]
    }

    /// Sum and Mean of any number of inputs, broadcast as Add broadcasts:
    /// one input is itself; a Sum of two may include a constant (it is an
    /// Add); otherwise tensors added in pairs (Core ML's broadcasting add
    /// takes two), a Mean's total then divided by the count.
    static func variadic(_ b: ONNXBuilder, mean: Bool) throws -> (nodes: [Node], value: GraphValue) {
        guard !b.inputs.isEmpty else { throw b.node.fail("has no input") }
        if b.inputs.count == 1 { return try passThrough(b) }
        if !mean, b.inputs.count == 2 { return try add(b) }
        var (nodes, value) = try pairwise(b, .add(constant: 0), "sum", last: !mean, constants: "a Sum of two inputs")
        if mean { nodes.append(b.emit(.multiply(constant: 1 / Float(b.inputs.count)), [nodes.last!.outputs[0]])) }
        return (nodes, value)
    }

    /// Max and Min of any number of inputs: one is itself, two (a constant
    /// allowed) as before, more taken in pairs (Core ML's max and min
    /// layers broadcast two at a time, as ONNX broadcasts them all).
    static func extremumOfSeveral(_ b: ONNXBuilder, max: Bool) throws -> (nodes: [Node], value: GraphValue) {
        guard !b.inputs.isEmpty else { throw b.node.fail("has no input") }
        if b.inputs.count == 1 { return try passThrough(b) }
        return try pairwise(b, max ? .maximum : .minimum, max ? "max" : "min", last: true, constants: "a \(b.node.op) of two inputs")
    }

    /// The inputs (tensors only) combined two at a time by `op`, left to
    /// right; `last` names the final node for the ONNX output (others take
    /// `label` and their index).
    private static func pairwise(_ b: ONNXBuilder, _ op: Op, _ label: String, last: Bool, constants: String) throws -> (nodes: [Node], value: GraphValue) {
        let parts = try b.inputs.indices.map { index in
            guard !b.isConstant(index) else {
                throw b.node.fail("a constant operand (input \(index)) is supported only in \(constants)")
            }
            return try b.tensor(index)
        }
        var nodes: [Node] = [], total = parts[0].name
        for (index, part) in parts.enumerated().dropFirst() {
            let named = index == parts.count - 1 && last
            nodes.append(b.emit(op, [total, part.name], suffix: named ? nil : "\(label)\(index)"))
            total = nodes.last!.outputs[0]
        }
        return (nodes, .tensor(name: b.name, rank: parts.map(\.rank).max()!))
    }

    /// DepthToSpace (DCR, CRD) and SpaceToDepth of [1, C, H, W] with a
    /// blocksize b: ONNX's rank-6 reshape and transpose, written without the
    /// batch axis of 1 so that they stay within Core ML's rank 5.
    static func depthSpace(_ b: ONNXBuilder, toSpace: Bool) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        guard x.rank == 4, x.dims[0] == 1 else { throw b.node.fail("only [1, C, H, W] values are supported, not \(x.dims)") }
        guard x.isExact else { throw b.needsTensors("a \(toSpace ? "depth to space" : "space to depth") rearrangement") }
        let (c, h, w) = (x.dims[1], x.dims[2], x.dims[3])
        guard let block = b.node.int("blocksize"), block > 0, block <= 1 << 16 else {
            throw b.node.fail("blocksize \(b.node.int("blocksize").map(String.init) ?? "(none)") must be 1 to \(1 << 16)")
        }
        let split: [Int], perm: [Int], target: [Int]
        if toSpace {
            guard c % (block * block) == 0 else { throw b.node.fail("blocksize \(block): \(c) channels are not a multiple of \(block * block)") }
            let depth = c / (block * block)
            switch b.node.string("mode") ?? "DCR" {
            case "DCR": (split, perm) = ([block, block, depth, h, w], [2, 3, 0, 4, 1])
            case "CRD": (split, perm) = ([depth, block, block, h, w], [0, 3, 1, 4, 2])
            case let mode: throw b.node.fail("mode \(mode) is not supported (DCR or CRD)")
            }
            target = [1, depth, h * block, w * block]
        } else {
            guard h % block == 0, w % block == 0 else { throw b.node.fail("blocksize \(block) does not divide \(h)x\(w)") }
            (split, perm) = ([c, h / block, block, w / block, block], [2, 4, 0, 1, 3])
            target = [1, c * block * block, h / block, w / block]
        }
        let nodes = [b.emit(.reshape(targetShape: split), [x.name], suffix: "blocks"),
                     b.emit(.defined(Transpose(axes: perm)), ["\(b.name)__blocks"], suffix: "moved"),
                     b.emit(.reshape(targetShape: target), ["\(b.name)__moved"])]
        return (nodes, .tensor(name: b.name, rank: 4))
    }
}

import Conversion
import ModelFormat

/// Element-wise arithmetic with numpy broadcasting, and the matrix
/// products of a classifier's head (Gemm, MatMul with constant weights).
extension ONNXOpTable {
    /// Two tensors combined by one Core ML layer, which broadcasts ([C, 1, 1]
    /// against [C, H, W]).
    static func both(_ b: ONNXBuilder, _ op: Op, second: (ONNXTensor) -> (nodes: [Node], name: String) = { ([], $0.name) })
        throws -> (nodes: [Node], value: GraphValue) {
        let (x, y) = (try b.tensor(0), try b.tensor(1))
        let (prepared, name) = second(y)
        return (prepared + [b.emit(op, [x.name, name])], .tensor(name: b.name, rank: max(x.rank, y.rank)))
    }

    static func add(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) { try combine(b, .add) }

    static func multiply(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) { try combine(b, .multiply) }

    /// A tensor and a constant: one value or one per channel, or (an exact
    /// tensor) a constant of its shape; two tensors: the add or multiply layer.
    private static func combine(_ b: ONNXBuilder, _ kind: AddOrMultiply) throws -> (nodes: [Node], value: GraphValue) {
        guard let (x, c, _) = try b.withConstant() else { return try both(b, kind.ofTensors) }
        if x.isExact, !c.isScalar { return try exactWithConstant(b, x, c, kind.ofTensors) }
        guard let values = b.perChannel(c, of: x) else {
            throw b.node.fail("\(kind.verb) a constant of shape \(c.shape) is not supported (only scalars and per-channel)")
        }
        return b.single(kind.with(values), x)
    }

    static func subtract(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        guard let (x, c, constantFirst) = try b.withConstant() else {
            return try both(b, .add(constant: 0)) { y in
                let negated = b.emit(.multiply(constant: -1), [y.name], suffix: "negate")
                return ([negated], negated.outputs[0])
            }
        }
        if x.isExact, !c.isScalar {
            guard constantFirst else { return try exactWithConstant(b, x, c, .add(constant: 0)) { -$0 } }
            let negated = b.emit(.multiply(constant: -1), [x.name], suffix: "negate")
            let (nodes, value) = try exactWithConstant(b, ONNXTensor(name: negated.outputs[0], rank: x.rank, shape: x.shape), c, .add(constant: 0))
            return ([negated] + nodes, value)
        }
        guard let values = b.perChannel(c, of: x) else { throw b.node.fail("subtracting a constant of shape \(c.shape) is not supported (only scalars and per-channel)") }
        guard constantFirst else {
            return b.single(AddOrMultiply.add.with(values.map { -$0 }), x)
        }
        // c - x: x negated, then c added.
        let negated = b.emit(.multiply(constant: -1), [x.name], suffix: "negate")
        return ([negated, b.emit(AddOrMultiply.add.with(values), negated.outputs)], .tensor(name: b.name, rank: x.rank))
    }

    static func divide(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        guard let (x, c, constantFirst) = try b.withConstant() else {
            return try both(b, .multiply(constant: 1)) { y in
                let inverse = b.emit(.unary(Unary(kind: .inverse)), [y.name], suffix: "inverse")
                return ([inverse], inverse.outputs[0])
            }
        }
        if x.isExact, !c.isScalar {
            guard !constantFirst else { throw b.node.fail("dividing a constant by a sequence tensor is not supported") }
            guard !c.values.contains(0) else { throw b.node.fail("divides by zero") }
            return try exactWithConstant(b, x, c, .multiply(constant: 1)) { 1 / $0 }
        }
        guard let values = b.perChannel(c, of: x) else { throw b.node.fail("dividing by a constant of shape \(c.shape) is not supported (only scalars and per-channel)") }
        if constantFirst {
            let inverse = b.emit(.unary(Unary(kind: .inverse)), [x.name], suffix: "inverse")
            return ([inverse, b.emit(AddOrMultiply.multiply.with(values), inverse.outputs)], .tensor(name: b.name, rank: x.rank))
        }
        guard !values.contains(0) else { throw b.node.fail("divides by zero") }
        return b.single(AddOrMultiply.multiply.with(values.map { 1 / $0 }), x)
    }

    /// alpha * A * B' + beta * C with B constant: an inner product on the
    /// features of [1, F] (B [out, in] when transB, else [in, out]).
    static func gemm(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let w = try b.constant(1, "B")
        let transA = b.node.int("transA") ?? 0
        guard transA == 0 else { throw b.node.fail("transA \(transA) is not supported (only [1, F] times a constant matrix)") }
        guard x.rank == 2, w.shape.count == 2 else {
            throw b.node.fail("only [1, F] times a constant matrix is supported")
        }
        let transposed = (b.node.int("transB") ?? 0) != 0
        let (inputs, outputs) = transposed ? (w.shape[1], w.shape[0]) : (w.shape[0], w.shape[1])
        let features = x.isExact ? x.shape.width : x.shape.count
        guard inputs == features, outputs > 0 else { throw b.node.fail("B \(w.shape) does not take \(features) features") }
        let alpha = b.node.float("alpha") ?? 1, beta = b.node.float("beta") ?? 1
        var weights = transposed ? w.weights() : w.weights { NHWCLayout.transposed(inputs: inputs, outputs: outputs, from: $0) }
        if alpha != 1 {
            weights = Weights(weights.values.map { $0 * alpha })
            guard weights.values.allSatisfy(\.isFinite) || !w.floats.allSatisfy(\.isFinite) else { throw b.node.fail("alpha \(alpha) times B overflows float32") }
        }
        var bias: Weights?
        if b.has(2) {
            let c = try b.constant(2, "C")
            guard c.count == outputs || c.isScalar else { throw b.node.fail("C has \(c.count) values for \(outputs) outputs") }
            let values = c.isScalar ? [Float](repeating: Float(c[0]), count: outputs) : c.floats
            bias = Weights(values.map { $0 * beta })
            guard bias!.values.allSatisfy(\.isFinite) || !values.allSatisfy(\.isFinite) else { throw b.node.fail("beta \(beta) times C overflows float32") }
        }
        if x.isExact {
            return b.single(.defined(MatMul(inputChannels: inputs, outputChannels: outputs, weights: weights, bias: bias)), x)
        }
        let product = InnerProduct(inputChannels: inputs, outputChannels: outputs, weights: weights, bias: bias)
        return b.single(.innerProduct(product), x)
    }

    /// [1, F] times a constant [F, O]: an inner product.
    static func matMul(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        if x.isExact { return try matMulExactly(b, x) }
        let w = try b.constant(1, "the right-hand matrix")
        guard x.rank == 2, w.shape.count == 2, w.shape[0] == x.shape.count, w.shape[1] > 0 else {
            throw b.node.fail("only [1, F] times a constant [F, O] matrix is supported (tensor products need the rank-N layers)")
        }
        let (inputs, outputs) = (w.shape[0], w.shape[1])
        let product = InnerProduct(inputChannels: inputs, outputChannels: outputs,
                                   weights: w.weights { NHWCLayout.transposed(inputs: inputs, outputs: outputs, from: $0) })
        return b.single(.innerProduct(product), x)
    }
}

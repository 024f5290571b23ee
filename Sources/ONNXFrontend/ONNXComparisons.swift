import Conversion
import ModelFormat

/// Comparisons, logic, Where and Cast on computed tensors (on constants they
/// fold: `ONNXFolding`), as Core ML's specification-4 layers with numpy's
/// broadcasting. Booleans are floats, 1 and 0, so an integer constant is
/// compared exactly only up to 2^24: one beyond it is refused.
extension ONNXOpTable {
    static let comparisons: [String: Mapping] = [
        "Equal": { try compare($0, .equal, mirrored: .equal) },
        "Less": { try compare($0, .less, mirrored: .greater) },
        "Greater": { try compare($0, .greater, mirrored: .less) },
        "LessOrEqual": { try compare($0, .lessOrEqual, mirrored: .greaterOrEqual) },
        "GreaterOrEqual": { try compare($0, .greaterOrEqual, mirrored: .lessOrEqual) },
        "And": { try combine($0, Comparison(.and)) }, "Or": { try combine($0, Comparison(.or)) },
        "Xor": { try combine($0, Comparison(.xor)) },
        "Not": { b in b.single(.defined(Comparison(.not)), try b.tensor(0)) },
        "Where": { try combine($0, Where()) },
        "Cast": cast,
    ]

    /// Cast of a computed tensor, whose values are float32 (a comparison's
    /// 1 and 0 too): to float it is the same tensor, to bool `x != 0`; to
    /// any other type it would round or truncate, which is refused.
    static func cast(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        switch b.node.int("to") ?? 0 {
        case 1: return ([], .tensor(name: x.name, rank: x.rank))
        case 9: return b.single(.defined(Comparison(.notEqual)), x)
        case let to: throw b.node.fail("to type \(to) of a computed tensor is not supported (only to float and to bool: the model's values are float32)")
        }
    }

    /// `kind` of inputs 0 and 1; against a constant of one value (of no
    /// higher rank), one input compared with alpha (`mirrored` when the
    /// constant comes first: c < x is x > c).
    static func compare(_ b: ONNXBuilder, _ kind: Comparison.Kind, mirrored: Comparison.Kind) throws -> (nodes: [Node], value: GraphValue) {
        if let (x, c, constantFirst) = try b.withConstant(), c.count == 1, c.shape.count <= x.rank {
            try checkExactInFloat(b, c)
            return b.single(.defined(Comparison(constantFirst ? mirrored : kind, alpha: Float(c[0]))), x)
        }
        return try combine(b, Comparison(kind))
    }

    /// One node of `operation` over every input, constants loaded as tensors
    /// of their shape; maps and vectors only with others of their kind and
    /// no constants (a constant's shape is ONNX's, which a map is not).
    static func combine(_ b: ONNXBuilder, _ operation: some OpDefinition) throws -> (nodes: [Node], value: GraphValue) {
        guard b.inputs.count == operation.inputCounts.upperBound, b.inputs.allSatisfy({ $0 != nil }) else {
            throw b.node.fail("takes \(operation.inputCounts.upperBound) inputs, not \(b.inputs.count)")
        }
        let tensors = try b.inputs.indices.filter { !b.isConstant($0) }.map { try b.tensor($0) }
        if let first = tensors.first, !first.isExact {
            guard tensors.count == b.inputs.count, tensors.allSatisfy({ !$0.isExact && $0.rank == first.rank }) else {
                throw b.needsTensors("a \(b.node.op) with constants, or of tensors of different ranks,")
            }
        }
        var nodes: [Node] = [], names: [String] = [], rank = 0
        for index in b.inputs.indices {
            if b.isConstant(index) {
                let c = try b.constant(index, "input \(index)")
                try checkExactInFloat(b, c)
                let (made, name) = try constantTensor(b, c, suffix: "input\(index)")
                nodes += made
                names.append(name)
                rank = max(rank, c.shape.count)
            } else {
                let x = try b.tensor(index)
                names.append(x.name)
                rank = max(rank, x.rank)
            }
        }
        return (nodes + [b.emit(.defined(operation), names)], .tensor(name: b.name, rank: rank))
    }

    /// Refuses an integer constant that float32 does not hold exactly.
    static func checkExactInFloat(_ b: ONNXBuilder, _ c: ONNXConstant) throws {
        guard c.isInteger, let wide = c.values.first(where: { abs($0) > 16_777_216 }) else { return }
        throw b.node.fail("compares the integer \(Int(wide)), beyond 2^24, which float32 values (Core ML's) do not hold exactly")
    }
}

import Conversion
import ModelFormat

/// ADD, MUL and SUB with their fused activation (options field 0): two
/// activations (broadcast as Core ML's add and multiply do: a [1, 1, 1, C]
/// gate over a [1, H, W, C] map), or an activation and a constant of one
/// value or one per channel ([C], [1, C] or [1, 1, 1, C]).
extension TFLiteOpTable {
    enum Arithmetic { case add, multiply, subtract }

    static func arithmetic(_ b: TFLiteBuilder, _ kind: Arithmetic) throws -> (nodes: [Node], rank: Int) {
        guard b.inputs.count == 2 else { throw TFLiteOpError("has \(b.inputs.count) inputs, not 2") }
        let constants = try [b.isConstant(0), b.isConstant(1)]
        if constants == [false, false] {
            let (x, y) = (try b.input(0), try b.input(1))
            let rank = max(b.rank(0), b.rank(1))
            switch kind {
            case .add: return (try b.fused(AddOrMultiply.add.ofTensors, [x, y], activation: 0), rank)
            case .multiply: return (try b.fused(AddOrMultiply.multiply.ofTensors, [x, y], activation: 0), rank)
            case .subtract:
                let negated = b.node(.multiply(constant: -1), [y], suffix: "negate")
                return ([negated] + (try b.fused(.add(constant: 0), [x, negated.outputs[0]], activation: 0)), rank)
            }
        }
        guard constants != [true, true] else { throw TFLiteOpError("both inputs are constants, which is not supported") }
        let variable = constants[0] ? 1 : 0, constant = 1 - variable
        let x = try b.input(variable)
        let (shape, bytes) = try b.floats(constant, "constant operand")
        let channels = b.shape(variable).channels
        let perChannel = shape.last == channels && shape.dropLast().allSatisfy({ $0 == 1 }) && (b.rank(variable) == 4 || shape.count <= 2)
        guard bytes.count == 4 || perChannel else {
            throw TFLiteOpError("a constant operand of shape \(shape) is not supported (one value, or one per channel, is)")
        }
        let values = bytes.withBytes { raw in (0..<raw.count / 4).map { raw.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self) } }
        // c - x is -(x) + c; x - c is x + (-c).
        var nodes: [Node] = []
        var source = x
        if kind == .subtract && variable == 1 {
            nodes.append(b.node(.multiply(constant: -1), [x], suffix: "negate"))
            source = nodes[0].outputs[0]
        }
        let signed = kind == .subtract && variable == 0 ? values.map { -$0 } : values
        let op = (kind == .multiply ? AddOrMultiply.multiply : .add).with(signed)
        return (nodes + (try b.fused(op, [source], activation: 0)), b.rank(variable))
    }
}

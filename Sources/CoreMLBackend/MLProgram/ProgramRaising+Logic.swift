import ModelFormat
import CoreMLSchema

/// The comparisons, logic and `select` `ProgramLowering+Logic` writes, back
/// as the IR's `Comparison` and `Where` nodes: their bool values are the
/// IR's 1 and 0 (the `cast` after them reads as the value itself), a
/// comparison with a scalar constant one with that alpha, a truth
/// (`not_equal` to 0) a comparison node of its own (the same 1 and 0).
extension ProgramRaising {
    static let comparisonKinds = Dictionary(uniqueKeysWithValues: ProgramLowering.comparisons.map { ($1, $0) })

    mutating func raiseLogic(_ operation: UnsafeMutablePointer<MILOperation>, type: String, name: String) throws {
        if type == "select" {
            append(name, .defined(Where()), try ["cond", "a", "b"].map { try operand(operation, $0) })
            return
        }
        let kind = Self.comparisonKinds[type]!
        let x = try operand(operation, "x")
        guard kind != .not else { return append(name, .defined(Comparison(kind)), [x]) }
        if case .constant(let scalar)? = try argument(operation, "y")?.first, scalar.shape.isEmpty, let value = scalar.floats, value.count == 1,
           Comparison(kind).isComparison {
            return append(name, .defined(Comparison(kind, alpha: value.values[0])), [x])
        }
        append(name, .defined(Comparison(kind)), [x, try operand(operation, "y")])
    }

    /// The one tensor bound to `key`, a constant made a `Constant` node.
    private mutating func operand(_ operation: UnsafeMutablePointer<MILOperation>, _ key: String) throws -> String {
        let bound = try operands(operation, key)
        guard bound.count == 1 else { throw fail("'\(key)' is bound to \(bound.count) values, not one", operation) }
        return bound[0]
    }
}

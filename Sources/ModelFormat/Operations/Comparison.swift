/// Comparisons and logic of tensors of any rank, broadcast as numpy does,
/// giving 1 (true) or 0 (false) as floats: Core ML's specification-4
/// equal, notEqual, lessThan, lessEqual, greaterThan, greaterEqual and
/// logicalAnd/Or/Xor/Not layers. A comparison of one input compares it
/// with `alpha`; the logical ones read any value but 0 as true. NaN
/// compares as IEEE 754 says: unequal to everything, itself included, and
/// neither less nor greater.
public struct Comparison: OpDefinition, Equatable {
    /// Named as Core ML's layers are.
    public enum Kind: String, CaseIterable, Sendable {
        case equal, notEqual, less = "lessThan", lessOrEqual = "lessEqual", greater = "greaterThan", greaterOrEqual = "greaterEqual"
        case and = "logicalAnd", or = "logicalOr", xor = "logicalXor", not = "logicalNot"
    }
    public var kind: Kind
    /// The right-hand side of a comparison of one input (any float:
    /// infinities and NaN compare as they do between inputs).
    public var alpha: Float

    public init(_ kind: Kind, alpha: Float = 0) {
        self.kind = kind
        self.alpha = alpha
    }

    /// Whether it compares values (rather than combining truths).
    public var isComparison: Bool { ![.and, .or, .xor, .not].contains(kind) }

    public var kindName: String { kind.rawValue }
    public var inputCounts: ClosedRange<Int> { 1...2 }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        switch kind {
        case .not: guard inputs.count == 1 else { throw ModelError("a logicalNot takes one input, not \(inputs.count)") }
        case .and, .or, .xor: guard inputs.count == 2 else { throw ModelError("a \(kind.rawValue) takes two inputs, not \(inputs.count)") }
        default: break
        }
        return [try Where.broadcast(inputs)]
    }

    public var attributes: [OpAttribute] {
        isComparison ? [OpAttribute("alpha", .float(alpha), text: alpha == 0 ? nil : "alpha \(alpha)")] : []
    }
}

/// `condition ? x : y` value by value (condition, x, y: the three inputs,
/// broadcast as numpy does; any condition but 0 is true): Core ML's
/// specification-4 whereBroadcastable layer.
public struct Where: OpDefinition, Equatable {
    public init() {}

    public var kindName: String { "where" }
    public var inputCounts: ClosedRange<Int> { 3...3 }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        [try Self.broadcast(inputs)]
    }

    /// The shape `inputs` broadcast to, as numpy broadcasts them.
    static func broadcast(_ inputs: [TensorShape]) throws(ModelError) -> TensorShape {
        guard let shape = ShapeInference.broadcast(inputs) else {
            throw ModelError("cannot broadcast shapes \(inputs.map(\.description).joined(separator: ", ")) together")
        }
        return shape
    }
}

/// Element-wise functions applied to `scale * x + shift`.
public struct Unary: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case sqrt, rsqrt, inverse, power, exp, log, abs, threshold }
    public var kind: Kind
    /// Exponent for `.power`, lower bound for `.threshold`.
    public var alpha: Float
    /// Added before rsqrt, inverse and log, to keep them finite.
    public var epsilon: Float
    public var shift: Float
    public var scale: Float

    public init(kind: Kind, alpha: Float = 0, epsilon: Float = 0, shift: Float = 0, scale: Float = 1) {
        self.kind = kind
        self.alpha = alpha
        self.epsilon = epsilon
        self.shift = shift
        self.scale = scale
    }
}

extension Unary: OpDefinition {
    public var kindName: String { "unary" }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] { [inputs[0]] }

    public var attributes: [OpAttribute] {
        let function = "\(kind)"
        var list = [OpAttribute("function", .string(function), text: function)]
        let usesAlpha = kind == .power || kind == .threshold
        list.append(OpAttribute("alpha", .float(alpha), text: usesAlpha ? "alpha \(alpha)" : nil))
        // Only rsqrt, inverse and log add epsilon; 1e-6 is Core ML's default.
        let usesEpsilon = kind == .rsqrt || kind == .inverse || kind == .log
        list.append(OpAttribute("epsilon", .float(epsilon),
                                text: usesEpsilon && epsilon != 0 && epsilon != 1e-6 ? "epsilon \(epsilon)" : nil))
        list.append(OpAttribute("shift", .float(shift), text: shift == 0 ? nil : "shift \(shift)"))
        list.append(OpAttribute("scale", .float(scale), text: scale == 1 ? nil : "scale \(scale)"))
        return list
    }
}

/// `Op.add`, `.multiply`, `.maximum`, `.minimum` and `.average`: inputs of
/// any rank combined value by value, broadcast as numpy does; add and
/// multiply apply `constant` to a single input.
public struct Elementwise: OpDefinition, Equatable {
    public enum Kind: String, Sendable { case add, multiply, maximum, minimum, average }
    public var kind: Kind
    public var constant: Float = 0

    public var kindName: String { kind.rawValue }
    public var inputCounts: ClosedRange<Int> { 1...Int.max }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        guard let shape = ShapeInference.broadcast(inputs) else {
            throw ModelError("cannot combine shapes \(inputs.map(\.description).joined(separator: " and "))")
        }
        // Core ML gives maximum and minimum the first input's shape: no broadcasting to a larger one.
        if kind == .maximum || kind == .minimum, shape != inputs[0] {
            throw ModelError("the first input \(inputs[0]) must have the full shape \(shape) (Core ML does not broadcast it)")
        }
        return [shape]
    }

    public var attributes: [OpAttribute] {
        switch kind {
        case .add: [OpAttribute("constant", .float(constant), text: constant == 0 ? nil : "constant \(constant)")]
        case .multiply: [OpAttribute("constant", .float(constant), text: constant == 1 ? nil : "constant \(constant)")]
        case .maximum, .minimum, .average: []
        }
    }
}

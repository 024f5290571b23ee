/// Sum, average, product, maximum, minimum, norms and argmax over some
/// axes of a tensor (negative counts from the end), which stay as size 1
/// (`keepDimensions`) or go; reducing every axis away leaves [1].
///
/// Over C, H, W, HW or CHW of a [C, H, W] map (axes -3, -2, -1, [-2, -1],
/// [-3, -2, -1]), kept, it is what Core ML's classic reduce layer does;
/// the backend writes that layer in a model of maps, and the rank-N
/// reduce layers of specification 4 otherwise. Argmax and logSum (a sum
/// of logarithms) have no rank-N layer: they are written on maps only.
public struct Reduce: OpDefinition, Equatable {
    /// In the order of Core ML's ReduceOperation (SUM = 0 ... ARGMAX = 9).
    public enum Mode: String, Sendable, CaseIterable {
        case sum, average, product
        /// The sum of log(x + epsilon) (Core ML's LOGSUM).
        case logSum
        case sumSquare, l1, l2, max, min
        /// The index of the first largest value, counted over the reduced
        /// values in order.
        case argmax
    }

    public var mode: Mode
    public var axes: [Int]
    public var keepDimensions: Bool
    /// Added to each value before its logarithm (logSum only).
    public var epsilon: Float

    public init(mode: Mode, axes: [Int], keepDimensions: Bool = true, epsilon: Float = 1e-6) {
        self.mode = mode
        self.axes = axes
        self.keepDimensions = keepDimensions
        self.epsilon = epsilon
    }

    /// The axes of a [C, H, W] map, counted from the end, by the names
    /// Core ML's reduce layer gives them.
    public static let mapAxes: [(name: String, axes: [Int])] = [
        ("CHW", [-3, -2, -1]), ("HW", [-2, -1]), ("C", [-3]), ("H", [-2]), ("W", [-1]),
    ]

    public var kindName: String { "reduce" }

    /// The axes as indices of `shape`, sorted; nil when one is outside or repeated.
    public func axisIndices(of shape: TensorShape) -> [Int]? {
        let indices = axes.compactMap { shape.axisIndex($0) }
        guard indices.count == axes.count, Set(indices).count == indices.count, !indices.isEmpty else { return nil }
        return indices.sorted()
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        guard let reduced = axisIndices(of: inputs[0]) else {
            throw ModelError("axes \(axes) are not distinct axes of the input \(inputs[0])")
        }
        let dims = inputs[0].dimensions.indices.compactMap { axis in
            reduced.contains(axis) ? (keepDimensions ? 1 : nil) : inputs[0].dimensions[axis]
        }
        return [TensorShape(dims.isEmpty ? [1] : dims)]
    }

    /// Over a map's axes by name ("over C"), other axes as a list.
    public var attributes: [OpAttribute] {
        let named = Self.mapAxes.first { $0.axes == axes }?.name
        var list = [OpAttribute("mode", .string(mode.rawValue), text: mode.rawValue),
                    OpAttribute("axes", .ints(axes), text: named.map { "over \($0)" } ?? "axes \(OpAttribute.dims(axes))"),
                    OpAttribute("keepDimensions", .bool(keepDimensions), text: keepDimensions ? nil : "dropping them")]
        if mode == .logSum { list.append(OpAttribute("epsilon", .float(epsilon), text: epsilon == 1e-6 ? nil : "epsilon \(epsilon)")) }
        return list
    }
}

extension Op {
    /// A reduction (`Reduce`): the one constructor frontends build it with.
    public static func reduce(_ reduce: Reduce) -> Op { .defined(reduce) }
}

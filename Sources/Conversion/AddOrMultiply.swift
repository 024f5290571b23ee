import ModelFormat

/// Add and multiply as the graph frontends map them onto the IR: of two
/// tensors (Core ML's add and multiply layers broadcast a [C, 1, 1] gate
/// over a [C, H, W] map), of a tensor and one value, or of a tensor and one
/// value per channel (a bias or scale layer).
public enum AddOrMultiply: Sendable {
    case add, multiply

    /// Of two tensors.
    public var ofTensors: Op {
        switch self {
        case .add: .add(constant: 0)
        case .multiply: .multiply(constant: 1)
        }
    }

    /// With one value per channel: a bias or scale layer of shape
    /// [values.count] (one value too, a TensorFlow graph's).
    public func perChannel(_ values: [Float]) -> Op {
        switch self {
        case .add: .bias(Bias(shape: [values.count], bias: Weights(values)))
        case .multiply: .scale(Scale(shape: [values.count], scale: Weights(values)))
        }
    }

    /// With one value, the add or multiply layer's own constant; with more,
    /// one per channel (`perChannel`).
    public func with(_ values: [Float]) -> Op {
        guard values.count == 1 else { return perChannel(values) }
        switch self {
        case .add: return .add(constant: values[0])
        case .multiply: return .multiply(constant: values[0])
        }
    }

    /// "adding", "multiplying by": for "... a constant of shape [2, 3] is
    /// not supported".
    public var verb: String {
        switch self {
        case .add: "adding"
        case .multiply: "multiplying by"
        }
    }
}

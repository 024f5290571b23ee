import ModelFormat

/// A float32 [C, H, W] tensor, row-major, as the runtime passes between layers.
public struct Tensor: Equatable, Sendable {
    public var shape: TensorShape
    public var values: [Float]

    /// A tensor of `shape` holding `values` (C*H*W of them, in C, H, W order).
    public init(shape: TensorShape, values: [Float]) {
        precondition(values.count == shape.count, "\(values.count) values for shape \(shape)")
        self.shape = shape
        self.values = values
    }

    /// A tensor of zeros.
    public init(zeros shape: TensorShape) {
        self.init(shape: shape, values: [Float](repeating: 0, count: shape.count))
    }
}

/// Why a model cannot run, or an input does not fit it.
public typealias RuntimeError = MessageError<RuntimeErrorKind>
public enum RuntimeErrorKind {}

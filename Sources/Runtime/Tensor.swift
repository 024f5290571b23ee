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

extension Tensor {
    /// Each value rounded to the nearest float16 (ties to even; beyond
    /// 65504, infinity), as an operation computing in float16 gives it.
    /// This is how the runtime emulates an ML Program's float16 compute:
    /// each layer computes in float32 from float16 inputs and weights, and
    /// its output is rounded, so a layer's sums are not rounded term by
    /// term as float16 hardware may round them.
    mutating func roundToFloat16() {
        values.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index] = Float(halfBits: buffer[index].halfBits) }
        }
    }
}

import ModelFormat

/// Weight layouts of channels-last frameworks (TensorFlow, Keras) moved to
/// Core ML's, once, at conversion time, straight into the weights' final
/// memory. `value(i)` reads element i of the source in row-major order, so a
/// source can stay where it lies (a mapped file) until here.
public enum NHWCLayout {
    /// Convolution kernels: [kH, kW, Cin, Cout] -> [Cout, Cin, kH, kW].
    @inlinable
    public static func convolution(kh: Int, kw: Int, cin: Int, cout: Int, _ value: (Int) -> Float) -> Weights {
        // Reads the source in order (it may be paged in from a file as it goes).
        Weights(count: kh * kw * cin * cout) { target in
            var source = 0
            for y in 0..<kh { for x in 0..<kw { for i in 0..<cin {
                var index = (i * kh + y) * kw + x
                for _ in 0..<cout {
                    target[index] = value(source)
                    source += 1
                    index += cin * kh * kw
                }
            } } }
        }
    }

    /// Depthwise kernels: [kH, kW, Cin, multiplier] -> [Cin * multiplier, 1, kH, kW],
    /// output channel c * multiplier + m (a grouped convolution with Cin groups).
    @inlinable
    public static func depthwise(kh: Int, kw: Int, cin: Int, multiplier: Int, _ value: (Int) -> Float) -> Weights {
        Weights(count: kh * kw * cin * multiplier) { target in
            for c in 0..<cin { for m in 0..<multiplier { for y in 0..<kh { for x in 0..<kw {
                target[((c * multiplier + m) * kh + y) * kw + x] = value(((y * kw + x) * cin + c) * multiplier + m)
            } } } }
        }
    }

    /// Dense / MatMul weights: [in, out] -> [out, in].
    @inlinable
    public static func transposed(inputs: Int, outputs: Int, _ value: (Int) -> Float) -> Weights {
        Weights(count: inputs * outputs) { target in
            for index in target.indices { target[index] = value((index % inputs) * outputs + index / inputs) }
        }
    }
}

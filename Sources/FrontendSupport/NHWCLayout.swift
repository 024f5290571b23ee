/// Weight layouts of channels-last frameworks (TensorFlow, Keras) moved to
/// Core ML's, once, at conversion time. `value(i)` reads element i of the
/// source in row-major order, so a source can stay where it lies (a mapped
/// file) until here.
public enum NHWCLayout {
    /// Convolution kernels: [kH, kW, Cin, Cout] -> [Cout, Cin, kH, kW].
    public static func convolution(kh: Int, kw: Int, cin: Int, cout: Int, _ value: (Int) -> Float) -> [Float] {
        var weights = [Float](repeating: 0, count: kh * kw * cin * cout)
        for o in 0..<cout { for i in 0..<cin { for y in 0..<kh { for x in 0..<kw {
            weights[((o * cin + i) * kh + y) * kw + x] = value(((y * kw + x) * cin + i) * cout + o)
        } } } }
        return weights
    }

    /// Depthwise kernels: [kH, kW, Cin, multiplier] -> [Cin * multiplier, 1, kH, kW],
    /// output channel c * multiplier + m (a grouped convolution with Cin groups).
    public static func depthwise(kh: Int, kw: Int, cin: Int, multiplier: Int, _ value: (Int) -> Float) -> [Float] {
        var weights = [Float](repeating: 0, count: kh * kw * cin * multiplier)
        for c in 0..<cin { for m in 0..<multiplier { for y in 0..<kh { for x in 0..<kw {
            weights[((c * multiplier + m) * kh + y) * kw + x] = value(((y * kw + x) * cin + c) * multiplier + m)
        } } } }
        return weights
    }

    /// Dense / MatMul weights: [in, out] -> [out, in].
    public static func transposed(inputs: Int, outputs: Int, _ value: (Int) -> Float) -> [Float] {
        (0..<inputs * outputs).map { value(($0 % inputs) * outputs + $0 / inputs) }
    }
}

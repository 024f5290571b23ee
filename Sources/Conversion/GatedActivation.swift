import ModelFormat

/// Activations that gate their input by a function of it, x * g(x), as
/// nodes reading `input` and writing `output` (intermediate tensors named
/// after `output`): Keras's swish, mish and hard-swish, Darknet's swish and
/// mish, ONNX's and TFLite's hard-swish.
public enum GatedActivation {
    /// x * sigmoid(x) (swish, SiLU).
    public static func swish(input: String, output: String) -> [Node] {
        let gate = "\(output)__sigmoid"
        return [Node(name: gate, operation: .activation(.sigmoid), inputs: [input], outputs: [gate]),
                Node(name: output, operation: .multiply(constant: 1), inputs: [input, gate], outputs: [output])]
    }

    /// x * relu6(x + 3) / 6 (hard-swish, MobileNetV3): the hard sigmoid with
    /// slope 1/6 and offset 1/2 gates x. The gate is named
    /// `<output>__<gate>`.
    public static func hardSwish(input: String, output: String, gate suffix: String = "hard_sigmoid") -> [Node] {
        let gate = "\(output)__\(suffix)"
        return [Node(name: gate, operation: .activation(.sigmoidHard(alpha: 1.0 / 6, beta: 0.5)), inputs: [input], outputs: [gate]),
                Node(name: output, operation: .multiply(constant: 1), inputs: [input, gate], outputs: [output])]
    }

    /// x * tanh(softplus(x)) (mish).
    public static func mish(input: String, output: String) -> [Node] {
        let soft = "\(output)__softplus", gate = "\(output)__tanh"
        return [Node(name: soft, operation: .activation(.softplus), inputs: [input], outputs: [soft]),
                Node(name: gate, operation: .activation(.tanh), inputs: [soft], outputs: [gate]),
                Node(name: output, operation: .multiply(constant: 1), inputs: [input, gate], outputs: [output])]
    }
}

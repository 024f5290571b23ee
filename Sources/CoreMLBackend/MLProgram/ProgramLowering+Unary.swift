import ModelFormat

/// Core ML's unary functions of `scale * x + shift` as iOS15 operations:
/// a `mul` and an `add` when they change something, then sqrt, rsqrt
/// (1 / sqrt(x + epsilon)), inverse (1 / (x + epsilon)), pow (by alpha),
/// exp, log (of x + epsilon), abs or threshold (max(x, alpha)), as
/// coremltools' elementwise_unary.py and elementwise_binary.py state them.
extension ProgramLowering {
    func unary(_ unary: Unary, _ input: String, node: Node, shape: [Int]) throws -> String {
        let name = node.name
        // Every kind is checked against a framework: TensorFlow's Sqrt, Rsqrt, Abs (mlprogram.sh); ONNX's Reciprocal, the inverse
        // of torchvision's convnext and vit (mlprogram_tensors.sh); exp, the box sizes of the Darknet and Caffe SSD detectors
        // (DetectorProgramTests, against OpenCV's and numpy's decoding); Keras's exponential and log_softmax's exp and log;
        // power (Caffe's Power, TensorFlow's and ONNX's Pow) and threshold (ONNX's ThresholdedRelu's and Caffe's) in the
        // frontends' attribute sweeps as programs (each frontend's ProgramSweepTests).
        var x = input
        if unary.scale != 1 {
            x = program.operation("mul", name + "_scaled", ["x": x, "y": program.constant(name + "_scale", .floats([unary.scale]))], shape: shape)
        }
        if unary.shift != 0 {
            x = program.operation("add", name + "_shifted", ["x": x, "y": program.constant(name + "_shift", .floats([unary.shift]))], shape: shape)
        }
        func scalar(_ field: String, _ value: Float) -> (String, [String]) {
            (field, [program.constant("\(name)_\(field)", .floats([value]))])
        }
        let (type, parameters): (String, [(String, [String])]) = switch unary.kind {
        case .sqrt: ("sqrt", [])
        case .rsqrt: ("rsqrt", [scalar("epsilon", unary.epsilon)])
        case .inverse: ("inverse", [scalar("epsilon", unary.epsilon)])
        case .power: ("pow", [scalar("y", unary.alpha)])
        case .exp: ("exp", [])
        case .log: ("log", [scalar("epsilon", unary.epsilon)])
        case .abs: ("abs", [])
        case .threshold: ("threshold", [scalar("alpha", unary.alpha)])
        }
        return program.operation(type, name, [("x", [x])] + parameters, shape: shape)
    }
}

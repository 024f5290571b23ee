public struct Upsample: Equatable, Sendable {
    public enum Mode: Equatable, Sendable { case nearest, bilinear }
    /// Where bilinear upsampling samples the input, output pixel i of a
    /// factor s in an input of n (Core ML's LinearUpsampleMode).
    public enum Alignment: String, Equatable, Sendable {
        /// i / s, clamped to n - 1: specifications 1-4, TensorFlow 1's
        /// resize_bilinear without align_corners or half-pixel centers.
        case legacy
        /// i (n - 1) / (n s - 1): align_corners.
        case alignCorners
        /// (i + 0.5) / s - 0.5, clamped to 0...n - 1: half-pixel centers,
        /// Keras's bilinear UpSampling2D and TensorFlow 2's resize.
        case halfPixel
    }
    public var scale: Size2
    public var mode: Mode
    /// For bilinear upsampling only.
    public var alignment: Alignment
    /// [H, W] factors that need not be whole (specification 5's
    /// fractionalScalingFactor), or empty: then `scale` holds the factors.
    /// Bilinear with aligned corners or half-pixel centers only (Core ML's
    /// validator); the output is floor(in * factor) in float32, and the
    /// grids take the input and output sizes, as the specification writes
    /// them: half-pixel samples (i + 0.5) * in / out - 0.5.
    public var fractionalScale: [Float]

    public init(scale: Size2, mode: Mode = .nearest, alignment: Alignment = .legacy, fractionalScale: [Float] = []) {
        self.scale = scale
        self.mode = mode
        self.alignment = alignment
        self.fractionalScale = fractionalScale
    }

    /// The output length of an axis of `size` (0: height, 1: width).
    public func outputLength(_ size: Int, axis: Int) -> Int {
        guard fractionalScale.count == 2 else { return size * (axis == 0 ? scale.height : scale.width) }
        return Int((Float(size) * fractionalScale[axis]).rounded(.down))
    }

    /// A float32 factor whose product with `input` floors to `output` in
    /// float32 and in double (however Core ML multiplies), at most 65536;
    /// nil when none of the four floats from output / input up does.
    public static func fractionalFactor(input: Int, output: Int) -> Float? {
        var factor = Float(output) / Float(input)
        for _ in 0..<4 {
            if factor <= 65536, Int((Float(input) * factor).rounded(.down)) == output, Int((Double(input) * Double(factor)).rounded(.down)) == output {
                return factor
            }
            factor = factor.nextUp
        }
        return nil
    }
}

extension Upsample: OpDefinition {
    public var kindName: String { "upsample" }
    public var takesAnyRank: Bool { false }

    public func checkAttributes() throws(ModelError) {
        try AttributeBounds.sizes([scale.height, scale.width], "scale factor")
        guard !fractionalScale.isEmpty else { return }
        guard fractionalScale.count == 2, fractionalScale.allSatisfy({ $0 >= 1 && $0 <= 65536 }) else {
            throw ModelError("fractional scale factors \(fractionalScale) must be two factors from 1 to 65536")
        }
        guard scale == Size2(square: 1), mode == .bilinear, alignment != .legacy else {
            throw ModelError("fractional scale factors need bilinear upsampling with aligned corners or half-pixel centers, and no whole factors")
        }
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let first = inputs[0]
        // At most 2^30 * 2^30 (or 2^16) each: checked against the size limit after.
        return [TensorShape(channels: first.channels, height: outputLength(first.height, axis: 0), width: outputLength(first.width, axis: 1))]
    }

    public var attributes: [OpAttribute] {
        let modeText = mode == .nearest ? "nearest" : "bilinear"
        var list = fractionalScale.isEmpty ? [OpAttribute.size("scale", scale, hideUnit: false)]
            : [OpAttribute("fractionalScale", .string(fractionalScale.map { "\($0)" }.joined(separator: "x")),
                           text: "scale \(fractionalScale.map { "\($0)" }.joined(separator: "x"))")]
        list.append(OpAttribute("mode", .string(modeText), text: mode == .nearest ? nil : modeText))
        if mode == .bilinear && alignment != .legacy {
            list.append(OpAttribute("alignment", .string(alignment.rawValue), text: alignment.rawValue))
        }
        return list
    }
}


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

    public init(scale: Size2, mode: Mode = .nearest, alignment: Alignment = .legacy) {
        self.scale = scale
        self.mode = mode
        self.alignment = alignment
    }
}

public struct Reduce: Equatable, Sendable {
    public enum Mode: Equatable, Sendable { case sum, average, product, logSum, sumSquare, l1, l2, max, min, argmax }
    public enum Axes: Equatable, Sendable { case chw, hw, c, h, w }
    public var mode: Mode
    public var axes: Axes
    public var epsilon: Float

    public init(mode: Mode, axes: Axes, epsilon: Float = 1e-6) {
        self.mode = mode
        self.axes = axes
        self.epsilon = epsilon
    }
}

extension Upsample: OpDefinition {
    public var kindName: String { "upsample" }
    public var takesAnyRank: Bool { false }

    public func checkAttributes() throws(ModelError) {
        try AttributeBounds.sizes([scale.height, scale.width], "scale factor")
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let first = inputs[0]
        // At most 2^30 * 2^30 each: checked against the size limit after.
        return [TensorShape(channels: first.channels, height: first.height * scale.height, width: first.width * scale.width)]
    }

    public var attributes: [OpAttribute] {
        let modeText = mode == .nearest ? "nearest" : "bilinear"
        var list = [OpAttribute.size("scale", scale, hideUnit: false), OpAttribute("mode", .string(modeText), text: mode == .nearest ? nil : modeText)]
        if mode == .bilinear && alignment != .legacy {
            list.append(OpAttribute("alignment", .string(alignment.rawValue), text: alignment.rawValue))
        }
        return list
    }
}

extension Reduce: OpDefinition {
    public var kindName: String { "reduce" }
    public var takesAnyRank: Bool { false }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let first = inputs[0]
        return switch axes {
        case .chw: [TensorShape(channels: 1)]
        case .hw: [TensorShape(channels: first.channels)]
        case .c: [TensorShape(channels: 1, height: first.height, width: first.width)]
        case .h: [TensorShape(channels: first.channels, height: 1, width: first.width)]
        case .w: [TensorShape(channels: first.channels, height: first.height, width: 1)]
        }
    }

    public var attributes: [OpAttribute] {
        [OpAttribute("mode", .string("\(mode)"), text: "\(mode)"),
         OpAttribute("axes", .string("\(axes)".uppercased()), text: "over \("\(axes)".uppercased())"),
         OpAttribute("epsilon", .float(epsilon), text: epsilon == 1e-6 ? nil : "epsilon \(epsilon)")]
    }
}

import ModelFormat

/// Upsampling as coremltools' iOS15 image_resizing.py defines it: whole
/// factors as int32 scalars (their type domain is int32 or fp32, never
/// float16, so a float16 program keeps them exact); bilinear sampling with
/// `align_corners` true at i (n - 1) / (out - 1), false at half-pixel
/// centers (i + 0.5) / s - 0.5 clamped to 0...n - 1, the IR's two
/// alignments of those names.
extension ProgramLowering {
    func upsample(_ upsample: Upsample, _ input: String, node: Node, shape: [Int]) throws -> String {
        let name = node.name
        guard upsample.fractionalScale.isEmpty else { throw refusal(node, "upsampling by a fractional factor") }
        var arguments: [(String, [String])] = [
            ("x", [input]),
            ("scale_factor_height", [program.constant(name + "_scale_factor_height", .ints([Int32(upsample.scale.height)]))]),
            ("scale_factor_width", [program.constant(name + "_scale_factor_width", .ints([Int32(upsample.scale.width)]))]),
        ]
        switch upsample.mode {
        case .nearest:
            return program.operation("upsample_nearest_neighbor", name, arguments, shape: shape)
        case .bilinear:
            guard upsample.alignment != .legacy else { throw refusal(node, "bilinear upsampling sampling at i / s (Core ML's legacy alignment)") }
            arguments.append(("align_corners", [program.constant(name + "_align_corners", .bools([upsample.alignment == .alignCorners]))]))
            return program.operation("upsample_bilinear", name, arguments, shape: shape)
        }
    }
}

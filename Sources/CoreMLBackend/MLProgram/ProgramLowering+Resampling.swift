import ModelFormat

/// Upsampling as coremltools' iOS15 image_resizing.py defines it: whole
/// factors as int32 scalars (their type domain is int32 or fp32, never
/// float16, so a float16 program keeps them exact); bilinear sampling with
/// `align_corners` true at i (n - 1) / (out - 1), false at half-pixel
/// centers (i + 0.5) / s - 0.5 clamped to 0...n - 1, the IR's two
/// alignments of those names. Fractional factors and Core ML's legacy grid
/// are `resize_bilinear` to the output's size (int32, exact), whose
/// sampling modes space the grid by the sizes: STRICT_ALIGN_CORNERS
/// i (n - 1) / (out - 1), UNALIGN_CORNERS (i + 0.5) n / out - 0.5, and
/// DEFAULT i (n - n / out) / (out - 1), which is i / s for out = n s.
extension ProgramLowering {
    func upsample(_ upsample: Upsample, _ input: String, node: Node, shape: [Int]) throws -> String {
        let name = node.name
        if upsample.mode == .bilinear, !upsample.fractionalScale.isEmpty || upsample.alignment == .legacy {
            let mode = switch upsample.alignment {
            case .legacy: "DEFAULT"
            case .alignCorners: "STRICT_ALIGN_CORNERS"
            case .halfPixel: "UNALIGN_CORNERS"
            }
            return program.operation("resize_bilinear", name, [
                "x": input, "target_size_height": program.constant(name + "_target_size_height", .ints([Int32(shape[2])])),
                "target_size_width": program.constant(name + "_target_size_width", .ints([Int32(shape[3])])),
                "sampling_mode": program.constant(name + "_sampling_mode", .strings([mode])),
            ], shape: shape)
        }
        guard upsample.fractionalScale.isEmpty else { throw refusal(node, "nearest-neighbour upsampling by a fractional factor") }
        var arguments: [(String, [String])] = [
            ("x", [input]),
            ("scale_factor_height", [program.constant(name + "_scale_factor_height", .ints([Int32(upsample.scale.height)]))]),
            ("scale_factor_width", [program.constant(name + "_scale_factor_width", .ints([Int32(upsample.scale.width)]))]),
        ]
        switch upsample.mode {
        case .nearest:
            return program.operation("upsample_nearest_neighbor", name, arguments, shape: shape)
        case .bilinear:
            arguments.append(("align_corners", [program.constant(name + "_align_corners", .bools([upsample.alignment == .alignCorners]))]))
            return program.operation("upsample_bilinear", name, arguments, shape: shape)
        }
    }
}

import ModelFormat
import CoreMLSchema

/// `resize_bilinear` as `ProgramLowering.upsample` writes it, back as the
/// IR's bilinear upsampling: to a whole multiple of the input's size on any
/// of its three grids, or to a size no whole factor makes (a fractional
/// factor, `Upsample.fractionalFactor`) with aligned corners or half-pixel
/// centers. ALIGN_CORNERS is read as STRICT_ALIGN_CORNERS (they differ for an
/// output of one pixel only, from an input of one: both sample it).
extension ProgramRaising {
    func resizeBilinear(_ operation: UnsafeMutablePointer<MILOperation>, name: String, shape: [Int]) throws -> Upsample {
        let source = sourceShape(operation, tensor: try tensor(operation, "x"))
        let modes: [String: Upsample.Alignment] = ["DEFAULT": .legacy, "STRICT_ALIGN_CORNERS": .alignCorners, "ALIGN_CORNERS": .alignCorners,
                                                   "UNALIGN_CORNERS": .halfPixel]
        let modeName = try constant(operation, "sampling_mode")?.strings.first ?? "DEFAULT"
        guard let alignment = modes[modeName] else { throw fail("resize_bilinear '\(name)' samples in mode \(modeName), which is not read yet", operation) }
        guard source.count >= 3, shape.count == source.count else { throw fail("resize_bilinear '\(name)' does not resize a map", operation) }
        let (input, output) = (Array(source.suffix(2)), Array(shape.suffix(2)))
        let sizes = [try ints(operation, "target_size_height").first ?? 1, try ints(operation, "target_size_width").first ?? 1]
        guard sizes == output, input.allSatisfy({ $0 > 0 }) else {
            throw fail("resize_bilinear '\(name)' resizes \(input) to \(sizes), but its output is declared \(output)", operation)
        }
        if output[0] % input[0] == 0, output[1] % input[1] == 0 {
            return Upsample(scale: Size2(output[0] / input[0], output[1] / input[1]), mode: .bilinear, alignment: alignment)
        }
        guard alignment != .legacy, let height = Upsample.fractionalFactor(input: input[0], output: output[0]),
              let width = Upsample.fractionalFactor(input: input[1], output: output[1]), height >= 1, width >= 1 else {
            throw fail("resize_bilinear '\(name)' resizes \(input) to \(output) in mode \(modeName): not an upsampling the reader takes", operation)
        }
        return Upsample(scale: Size2(1, 1), mode: .bilinear, alignment: alignment, fractionalScale: [height, width])
    }
}

import ModelFormat

/// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR of a map (input 1, the
/// [new_height, new_width] size, a constant): Core ML's upsampling, as
/// TensorFlow's ResizeBilinear and ResizeNearestNeighbor map (`TFMapOps`).
/// TFLite's kernels sample output pixel i of an axis from in to out at
/// - bilinear: i * in / out (lower neighbour clamped to in - 1: Core ML's
///   legacy grid); with align_corners, i (in - 1) / (out - 1); with
///   half_pixel_centers, (i + 0.5) in / out - 0.5 (neighbours clamped to
///   0...in - 1); both flags together are refused (TensorFlow refuses
///   them). Whole multiples are Core ML's upsample by whole factors; other
///   enlargements, with align_corners or half_pixel_centers, specification
///   5's fractional upsample, whose two grids are those (`Upsample`);
///   shrinking, and other sizes on the legacy grid, are refused by name;
/// - nearest: floor(i in / out), and with half_pixel_centers
///   floor((i + 0.5) in / out), the same pixel for a whole factor: each
///   pixel repeated; align_corners rounds i (in - 1) / (out - 1) instead,
///   other pixels, and is refused (the ledger); sizes other than whole
///   multiples are refused.
enum TFLiteResize {
    /// ResizeBilinearOptions: new_height 0, new_width 1 (deprecated,
    /// ignored as LiteRT's kernel ignores them: the size input decides),
    /// align_corners 2, half_pixel_centers 3.
    static func bilinear(_ b: TFLiteBuilder) throws -> (nodes: [Node], rank: Int) {
        let (x, size) = try mapAndSize(b)
        let alignCorners = try b.bool(2), halfPixel = try b.bool(3)
        guard !(alignCorners && halfPixel) else {
            throw TFLiteOpError("align_corners and half_pixel_centers together are not supported (TensorFlow's resize refuses them too)")
        }
        let alignment: Upsample.Alignment = alignCorners ? .alignCorners : halfPixel ? .halfPixel : .legacy
        let (height, width) = (b.shape(0).height, b.shape(0).width)
        if let scale = wholeFactors(size, height, width) {
            return ([b.node(.upsample(Upsample(scale: scale, mode: .bilinear, alignment: alignment)), [x])], 4)
        }
        let resizing = "the size \(size) is not a whole multiple of the \(height)x\(width) input"
        guard alignment != .legacy else {
            throw TFLiteOpError("\(resizing), and with neither align_corners nor half_pixel_centers only whole multiples are supported "
                                + "(Core ML's fractional upsample aligns corners or centres half pixels)")
        }
        guard size[0] >= height, size[1] >= width else { throw TFLiteOpError("\(resizing) and shrinks it; Core ML's fractional upsample only enlarges") }
        var factors: [Float] = []
        for (input, output) in [(height, size[0]), (width, size[1])] {
            guard let factor = Upsample.fractionalFactor(input: input, output: output) else {
                throw TFLiteOpError("\(resizing), and no float32 factor enlarges \(input) to exactly \(output)")
            }
            factors.append(factor)
        }
        let upsample = Upsample(scale: Size2(square: 1), mode: .bilinear, alignment: alignment, fractionalScale: factors)
        return ([b.node(.upsample(upsample), [x])], 4)
    }

    /// ResizeNearestNeighborOptions: align_corners 0 (false only, the
    /// ledger), half_pixel_centers 1 (the same pixels for whole factors).
    static func nearest(_ b: TFLiteBuilder) throws -> (nodes: [Node], rank: Int) {
        let (x, size) = try mapAndSize(b)
        let (height, width) = (b.shape(0).height, b.shape(0).width)
        guard let scale = wholeFactors(size, height, width) else {
            throw TFLiteOpError("the size \(size) is not a whole multiple of the \(height)x\(width) input; resizing to whole multiples is supported")
        }
        return ([b.node(.upsample(Upsample(scale: scale)), [x])], 4)
    }

    /// The map input and the size input, two sizes in 1...maximumSize.
    static func mapAndSize(_ b: TFLiteBuilder) throws -> (x: String, size: [Int]) {
        let x = try b.input(0)
        guard b.rank(0) == 4 else { throw TFLiteOpError("its input is not a [1, H, W, C] map") }
        let size = try b.ints(1, "size")
        let limit = ShapeInference.maximumSize
        guard size.count == 2, (1...limit).contains(size[0]), (1...limit).contains(size[1]) else {
            throw TFLiteOpError("the size \(size) is not two sizes in 1...\(limit)")
        }
        return (x, size)
    }

    /// `size` as whole factors of `height` and `width`, nil when it is not a multiple of both.
    static func wholeFactors(_ size: [Int], _ height: Int, _ width: Int) -> Size2? {
        size[0] % height == 0 && size[1] % width == 0 ? Size2(size[0] / height, size[1] / width) : nil
    }
}

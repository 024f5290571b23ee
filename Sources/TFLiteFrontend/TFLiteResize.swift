import ModelFormat

/// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR to whole multiples of the
/// input map (input 1, the [new_height, new_width] size, a constant):
/// Core ML's upsampling, as TensorFlow's ResizeBilinear and
/// ResizeNearestNeighbor map (`TFMapOps`). TFLite's kernels sample output
/// pixel i of a factor s in an input of n at
/// - bilinear: i / s (lower neighbour clamped to n - 1: Core ML's legacy
///   grid); with align_corners, i (n - 1) / (n s - 1); with
///   half_pixel_centers, (i + 0.5) / s - 0.5 (neighbours clamped to
///   0...n - 1); both flags together are refused (TensorFlow refuses them);
/// - nearest: floor(i / s), and with half_pixel_centers floor((i + 0.5) / s),
///   the same pixel for a whole s: each pixel repeated; align_corners
///   rounds i (n - 1) / (n s - 1) instead, other pixels, and is refused.
enum TFLiteResize {
    /// ResizeBilinearOptions: new_height 0, new_width 1 (deprecated,
    /// ignored as LiteRT's kernel ignores them: the size input decides),
    /// align_corners 2, half_pixel_centers 3.
    static func bilinear(_ b: TFLiteBuilder) throws -> (nodes: [Node], rank: Int) {
        let (x, scale) = try wholeMultiple(b)
        let alignCorners = try b.bool(2), halfPixel = try b.bool(3)
        guard !(alignCorners && halfPixel) else {
            throw TFLiteOpError("align_corners and half_pixel_centers together are not supported (TensorFlow's resize refuses them too)")
        }
        let upsample = Upsample(scale: scale, mode: .bilinear, alignment: alignCorners ? .alignCorners : halfPixel ? .halfPixel : .legacy)
        return ([b.node(.upsample(upsample), [x])], 4)
    }

    /// ResizeNearestNeighborOptions: align_corners 0 (false only, the
    /// ledger), half_pixel_centers 1 (the same pixels for whole factors).
    static func nearest(_ b: TFLiteBuilder) throws -> (nodes: [Node], rank: Int) {
        // align_corners true: refused by the ledger.
        let (x, scale) = try wholeMultiple(b)
        return ([b.node(.upsample(Upsample(scale: scale)), [x])], 4)
    }

    /// The map input and the size input as whole factors of its H and W.
    static func wholeMultiple(_ b: TFLiteBuilder) throws -> (x: String, scale: Size2) {
        let x = try b.input(0)
        guard b.rank(0) == 4 else { throw TFLiteOpError("its input is not a [1, H, W, C] map") }
        let size = try b.ints(1, "size")
        let (height, width) = (b.shape(0).height, b.shape(0).width)
        let limit = ShapeInference.maximumSize
        guard size.count == 2, (1...limit).contains(size[0]), (1...limit).contains(size[1]), size[0] % height == 0, size[1] % width == 0 else {
            throw TFLiteOpError("the size \(size) is not a whole multiple of the \(height)x\(width) input; resizing to whole multiples is supported")
        }
        return (x, Size2(size[0] / height, size[1] / width))
    }
}

/// The checks operations apply to numbers read from a file, before any
/// arithmetic on them: each size (a dimension, kernel, stride, dilation,
/// padding, scale factor, channel count) is at most
/// `ShapeInference.maximumSize` (2^30), so a product of two and a sum of a
/// few fit in an `Int` with room to spare; larger products go through
/// `checkedProduct`. Messages do not name the layer: the caller does.
public enum AttributeBounds {
    public static func size(_ value: Int, _ what: String, minimum: Int = 1) throws(ModelError) {
        guard value >= minimum && value <= ShapeInference.maximumSize else {
            throw ModelError("\(what) \(value) is out of range (\(minimum)...\(ShapeInference.maximumSize))")
        }
    }

    public static func sizes(_ values: [Int], _ what: String, minimum: Int = 1) throws(ModelError) {
        for value in values { try size(value, what, minimum: minimum) }
    }

    public static func edges(_ e: Edges, _ what: String) throws(ModelError) {
        try sizes([e.top, e.bottom, e.left, e.right], what, minimum: 0)
    }

    public static func finite(_ values: [Float], _ what: String) throws(ModelError) {
        guard values.allSatisfy(\.isFinite) else { throw ModelError("\(what) must be finite, not \(values)") }
    }

    /// A sliding window's kernel, stride and padding.
    public static func window(_ kernel: Size2, _ stride: Size2, _ padding: WindowPadding) throws(ModelError) {
        try sizes([kernel.height, kernel.width], "kernel size")
        try sizes([stride.height, stride.width], "stride")
        switch padding {
        case .explicit(let e): try edges(e, "padding")
        case .includeLastPixel(let pads): try sizes([pads.height, pads.width], "padding", minimum: 0)
        case .same: break
        }
    }

    /// A scale or bias constant's shape: [C], [1], [C, H, W] or [1, H, W]
    /// (Core ML's validator takes 1 or 3 dimensions).
    public static func constantShape(_ shape: [Int], _ what: String) throws(ModelError) {
        guard shape.count == 1 || shape.count == 3 else {
            throw ModelError("\(what) shape \(shape) is not [C] or [C, H, W]")
        }
        for value in shape where value < 1 || value > ShapeInference.maximumSize {
            throw ModelError("\(what) shape \(shape) has a size out of range (1...\(ShapeInference.maximumSize))")
        }
    }

    /// Weights holding exactly `count` values (nil: a count an Int cannot
    /// hold), and some (Core ML's validator refuses empty weights).
    public static func weights(_ weights: Weights?, count: Int?, _ what: String) throws(ModelError) {
        guard let weights else { return }
        guard let count else { throw ModelError("\(what) would hold more values than an Int can count") }
        guard weights.count == count else { throw ModelError("\(what) has \(weights.count) values, expected \(count)") }
        guard count > 0 else { throw ModelError("\(what) is empty") }
    }
}

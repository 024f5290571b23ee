/// The shape of a tensor between layers: [C, H, W]. Vectors (inner-product
/// outputs, flattened maps) are [C, 1, 1].
public struct TensorShape: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var channels: Int
    public var height: Int
    public var width: Int

    public init(channels: Int, height: Int = 1, width: Int = 1) {
        self.channels = channels
        self.height = height
        self.width = width
    }

    /// From a [C] or [C, H, W] array shape.
    public init?(dimensions: [Int]) {
        switch dimensions.count {
        case 1: self.init(channels: dimensions[0])
        case 3: self.init(channels: dimensions[0], height: dimensions[1], width: dimensions[2])
        default: return nil
        }
    }

    /// Number of values (Int.max when the product overflows, so a hostile
    /// shape is an error in validation, never a crash).
    public var count: Int {
        let (ch, o1) = channels.multipliedReportingOverflow(by: height)
        let (all, o2) = ch.multipliedReportingOverflow(by: width)
        return o1 || o2 ? .max : all
    }

    /// The most values one tensor may hold (4 GB of float32): what a model
    /// for a device can use, and a bound on what a hostile file can make the
    /// runtime allocate for one tensor.
    public static let maximumCount = 1 << 30

    /// [C, H, W].
    public var dimensions: [Int] { [channels, height, width] }

    /// [C] for a vector, [C, H, W] otherwise: how Core ML describes it.
    public var featureShape: [Int] { height == 1 && width == 1 ? [channels] : dimensions }

    public var description: String { "\(channels)x\(height)x\(width)" }
}

extension Collection where Element == Int {
    /// The product of these dimensions, or nil when it overflows: the size a
    /// shape read from a file claims, checked before anything is allocated.
    public var checkedProduct: Int? {
        var product = 1
        for dimension in self {
            let (next, overflow) = product.multipliedReportingOverflow(by: dimension)
            if overflow { return nil }
            product = next
        }
        return product
    }
}

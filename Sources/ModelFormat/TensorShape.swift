/// The shape of a tensor between layers: its dimensions, outermost first,
/// of any rank from 1.
///
/// The NeuralNetwork layers of Core ML's first specifications see rank-3
/// [C, H, W] tensors, vectors (inner-product outputs, flattened maps) as
/// [C, 1, 1]: `init(channels:height:width:)` and `init?(featureShape:)` make
/// those, and `channels`, `height` and `width` read the last three axes.
/// Rank-N operations (matmul, transpose, softmax along an axis) take the
/// dimensions as they are.
public struct TensorShape: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The sizes of the axes, outermost first; never empty.
    public private(set) var dimensions: [Int]

    /// A shape of exactly these dimensions (at least one).
    public init(_ dimensions: [Int]) {
        precondition(!dimensions.isEmpty, "a tensor shape has at least one dimension")
        self.dimensions = dimensions
    }

    /// The rank-3 [C, H, W] shape.
    public init(channels: Int, height: Int = 1, width: Int = 1) {
        dimensions = [channels, height, width]
    }

    /// From a [C] or [C, H, W] array shape, as Core ML's rank-5 array
    /// mapping reads it: [C] is [C, 1, 1].
    public init?(featureShape: [Int]) {
        switch featureShape.count {
        case 1: self.init(channels: featureShape[0])
        case 3: self.init(featureShape)
        default: return nil
        }
    }

    public var rank: Int { dimensions.count }

    /// The third axis from the end (1 below rank 3).
    public var channels: Int { rank >= 3 ? dimensions[rank - 3] : 1 }
    /// The second axis from the end (1 below rank 2).
    public var height: Int { rank >= 2 ? dimensions[rank - 2] : 1 }
    /// The last axis.
    public var width: Int { dimensions[rank - 1] }

    /// Number of values (Int.max when the product overflows, so a hostile
    /// shape is an error in validation, never a crash).
    public var count: Int { dimensions.checkedProduct ?? .max }

    /// The most values one tensor may hold (4 GB of float32): what a model
    /// for a device can use, and a bound on what a hostile file can make the
    /// runtime allocate for one tensor.
    public static let maximumCount = 1 << 30

    /// `axis` (negative counts from the end) as an index into the
    /// dimensions, or nil when it is outside them.
    public func axisIndex(_ axis: Int) -> Int? {
        let index = axis < 0 ? axis + rank : axis
        return dimensions.indices.contains(index) ? index : nil
    }

    /// The same shape with axis `axis` (counted from the front) set to `size`.
    public func replacing(axis: Int, with size: Int) -> TensorShape {
        var copy = self
        copy.dimensions[axis] = size
        return copy
    }

    /// [C] for a rank-3 vector, the dimensions otherwise: how Core ML describes it.
    public var featureShape: [Int] { rank == 3 && height == 1 && width == 1 ? [channels] : dimensions }

    /// A reshape target as numpy reads it: its one -1 (if any) is what
    /// makes the product `count`, and the product must be `count`.
    /// - Throws: `ModelError` (no layer named) for sizes below -1, two
    ///   -1s, or sizes that cannot hold `count` values.
    public static func reshapeTarget(_ target: [Int], count: Int) throws(ModelError) -> [Int] {
        guard target.allSatisfy({ $0 >= -1 }), target.filter({ $0 == -1 }).count <= 1 else {
            throw ModelError("cannot reshape \(count) values to \(target)")
        }
        var shape = target
        if let unknown = shape.firstIndex(of: -1) {
            var known = shape
            known.remove(at: unknown)
            guard let product = known.checkedProduct, product > 0, count % product == 0 else {
                throw ModelError("cannot infer -1 in \(target) for \(count) values")
            }
            shape[unknown] = count / product
        }
        guard shape.checkedProduct == count else { throw ModelError("cannot reshape \(count) values to \(target)") }
        return shape
    }

    /// `3x224x224`.
    public var description: String { dimensions.map(String.init).joined(separator: "x") }
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

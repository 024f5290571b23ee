/// Which values of a program's compressed constant share a scale or a
/// table, in coremltools' words (`OpLinearQuantizerConfig.granularity`,
/// `OpPalettizerConfig.granularity`). Blocks and groups are iOS 18's.
public enum CompressionGranularity: Equatable, Sendable {
    /// Linear: a scale per output channel (axis 0; one for a vector). A lookup table: one per constant.
    case perChannel
    /// Linear: a scale per output channel and per `size` values along the input axis (axis 1).
    case perBlock(size: Int)
    /// A lookup table per `size` output channels (axis 0).
    case perGroupedChannel(size: Int)

    /// How many runs of a constant of `shape` have their own parameters: contiguous, row-major, of equal length; nil
    /// when the blocks or groups do not divide its axis (coremltools leaves such a constant uncompressed).
    func runs(of shape: [Int], lookupTable: Bool) -> Int? {
        blocks(of: shape, lookupTable: lookupTable)?.reduce(1, *)
    }

    /// How many blocks along each axis of `shape` have their own parameters (iOS 18's scale and table shapes: the
    /// data's rank), nil as for `runs`.
    func blocks(of shape: [Int], lookupTable: Bool) -> [Int]? {
        let ones = { (count: Int) in [Int](repeating: 1, count: max(count, 0)) }
        switch self {
        case .perChannel:
            return lookupTable || shape.count < 2 ? ones(shape.count) : [shape[0]] + ones(shape.count - 1)
        case .perBlock(let size):
            guard shape.count >= 2, shape[1] % size == 0 else { return nil }
            return [shape[0], shape[1] / size] + ones(shape.count - 2)
        case .perGroupedChannel(let size):
            guard shape.count >= 1, shape[0] % size == 0 else { return nil }
            return [shape[0] / size] + ones(shape.count - 1)
        }
    }
}

import ModelFormat

/// TensorFlow's SpaceToDepth on a [C, H, W] map, as Core ML's rank-3
/// reshapes and permutes (specification 1): each s x s block of pixels
/// becomes s² groups of C channels, in the order block row, block column,
/// channel (output channel (by * s + bx) * C + c at (y, x) holds input
/// channel c at (y * s + by, x * s + bx)). Reshape [C·H/s, s, W], permute
/// to [s, C·H/s, W], reshape [s, C·(H/s)·(W/s), s], permute to
/// [s, s, C·(H/s)·(W/s)], reshape to [C·s², H/s, W/s]: each reshape keeps
/// the values' order. Darknet's `[reorg]` is these steps on its input read
/// differently (`DarknetWalk.reorg`).
public enum SpaceToDepth {
    /// The five operations; nil when `block` does not divide H and W.
    public static func steps(channels c: Int, height h: Int, width w: Int, block s: Int) -> [Op]? {
        guard s > 0, h % s == 0, w % s == 0 else { return nil }
        return [.reshape(targetShape: [c * h / s, s, w], order: .channelFirst), .permute(axes: [0, 2, 1, 3]),
                .reshape(targetShape: [s, c * (h / s) * (w / s), s], order: .channelFirst), .permute(axes: [0, 1, 3, 2]),
                .reshape(targetShape: [c * s * s, h / s, w / s], order: .channelFirst)]
    }
}

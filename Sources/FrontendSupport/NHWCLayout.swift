#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import ModelFormat

/// Weight layouts of channels-last frameworks (TensorFlow, Keras) moved to
/// Core ML's, once, at conversion time, straight into the weights' final
/// memory. Sources are little-endian float32 bytes, possibly unaligned, so a
/// tensor can stay where it lies (a mapped file) until here.
///
/// Every move here is the same permutation, [S, A, B] -> [B, A, S] with S the
/// kernel's kH * kW positions, done in tiles so that reads and writes both
/// stay within a few cache lines at a time.
public enum NHWCLayout {
    /// Convolution kernels: [kH, kW, Cin, Cout] -> [Cout, Cin, kH, kW].
    public static func convolution(kh: Int, kw: Int, cin: Int, cout: Int, from source: UnsafeRawBufferPointer) -> Weights {
        permuted(spatial: kh * kw, middle: cin, last: cout, from: source)
    }

    /// Depthwise kernels: [kH, kW, Cin, multiplier] -> [Cin * multiplier, 1, kH, kW],
    /// output channel c * multiplier + m (a grouped convolution with Cin groups).
    public static func depthwise(kh: Int, kw: Int, cin: Int, multiplier: Int, from source: UnsafeRawBufferPointer) -> Weights {
        permuted(spatial: kh * kw, middle: 1, last: cin * multiplier, from: source)
    }

    /// Transposed-convolution kernels: [kH, kW, Cout, Cin] -> [Cin, Cout, kH, kW]
    /// (Core ML's deconvolution layout).
    public static func deconvolution(kh: Int, kw: Int, cout: Int, cin: Int, from source: UnsafeRawBufferPointer) -> Weights {
        permuted(spatial: kh * kw, middle: cout, last: cin, from: source)
    }

    /// Dense / MatMul weights: [in, out] -> [out, in].
    public static func transposed(inputs: Int, outputs: Int, from source: UnsafeRawBufferPointer) -> Weights {
        permuted(spatial: 1, middle: inputs, last: outputs, from: source)
    }

    /// Tile edge along A and B: 16 floats is one 64-byte cache line.
    static let tile = 16
    /// Tensors of at least this many values are split across the cores (by
    /// tiles of B); first-touch page faults of the new memory then run in
    /// parallel too.
    static let parallelCount = 1 << 18
    static let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// [S, A, B] -> [B, A, S]: target[(b * A + a) * S + s] = source[(s * A + a) * B + b].
    static func permuted(spatial: Int, middle: Int, last: Int, from source: UnsafeRawBufferPointer) -> Weights {
        let count = spatial * middle * last
        precondition(source.count >= 4 * count, "weight source holds \(source.count) bytes, \(4 * count) needed")
        return Weights(count: count) { target in
            guard count > 0, let from = source.baseAddress, let to = target.baseAddress else { return }
            let tiles = (last + tile - 1) / tile
            let parts = count >= parallelCount ? min(tiles, 2 * cores) : 1
            // Each part writes its own tiles of B; the source is only read.
            nonisolated(unsafe) let (source, target) = (from, to)
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                for b0 in stride(from: part * tiles / parts * tile, to: (part + 1) * tiles / parts * tile, by: tile) {
                    permuteTile(b0: b0, b1: min(b0 + tile, last), spatial: spatial, middle: middle, last: last, from: source, to: target)
                }
            }
        }
    }

    /// Columns b0..<b1 of every source row: each read is a cache line, each
    /// write run is contiguous along S.
    @inline(__always)
    private static func permuteTile(b0: Int, b1: Int, spatial: Int, middle: Int, last: Int,
                                    from: UnsafeRawPointer, to: UnsafeMutablePointer<Float>) {
        let targetStride = middle * spatial
        for a0 in stride(from: 0, to: middle, by: tile) {
            for s in 0..<spatial {
                for a in a0..<min(a0 + tile, middle) {
                    let row = from + 4 * ((s * middle + a) * last)
                    var t = to + (b0 * middle + a) * spatial + s
                    for b in b0..<b1 {
                        t.pointee = row.loadUnaligned(fromByteOffset: 4 * b, as: Float.self)
                        t += targetStride
                    }
                }
            }
        }
    }
}

import ModelFormat

/// Weight layouts of channels-last frameworks (TensorFlow, Keras) moved to
/// Core ML's, once, at conversion time. Sources are little-endian float32
/// bytes, possibly unaligned, so a tensor can stay where it lies (a mapped
/// file) until here. The moved weights are computed on demand
/// (`WeightProducer`): the Core ML writer streams them from the source
/// straight into the output file, a few rows at a time.
///
/// Every move here is the same permutation, [S, A, B] -> [B, A, S] with S the
/// kernel's kH * kW positions, done in tiles so that reads and writes both
/// stay within a few cache lines at a time.
public enum NHWCLayout {
    /// Convolution kernels: [kH, kW, Cin, Cout] -> [Cout, Cin, kH, kW].
    public static func convolution(kh: Int, kw: Int, cin: Int, cout: Int, from source: FloatBytes) -> Weights {
        permuted(spatial: kh * kw, middle: cin, last: cout, from: source)
    }

    /// Depthwise kernels: [kH, kW, Cin, multiplier] -> [Cin * multiplier, 1, kH, kW],
    /// output channel c * multiplier + m (a grouped convolution with Cin groups).
    public static func depthwise(kh: Int, kw: Int, cin: Int, multiplier: Int, from source: FloatBytes) -> Weights {
        permuted(spatial: kh * kw, middle: 1, last: cin * multiplier, from: source)
    }

    /// Transposed-convolution kernels: [kH, kW, Cout, Cin] -> [Cin, Cout, kH, kW]
    /// (Core ML's deconvolution layout).
    public static func deconvolution(kh: Int, kw: Int, cout: Int, cin: Int, from source: FloatBytes) -> Weights {
        permuted(spatial: kh * kw, middle: cout, last: cin, from: source)
    }

    /// TFLite's convolution kernels (OHWI): [Cout, kH, kW, Cin] -> [Cout, Cin, kH, kW].
    /// A row of the result is one output channel: its [S, Cin] block transposed.
    public static func outputFirst(cout: Int, kh: Int, kw: Int, cin: Int, from source: FloatBytes) -> Weights {
        let spatial = kh * kw, count = cout * spatial * cin
        precondition(source.count >= 4 * count, "weight source holds \(source.count) bytes, \(4 * count) needed")
        guard source.isLoaded else { return Weights(unloadedCount: count) }
        guard count > 0 else { return Weights([]) }
        let rowLength = spatial * cin
        let producer = WeightProducer(count: count, rowLength: rowLength, release: { source.releasePages() }) { start, target in
            source.withBytes { bytes in
                for row in 0..<target.count / rowLength {
                    let from = 4 * (start + row * rowLength), to = row * rowLength
                    for s in 0..<spatial {
                        for c in 0..<cin {
                            target[to + c * spatial + s] = bytes.loadUnaligned(fromByteOffset: from + 4 * (s * cin + c), as: Float.self)
                        }
                    }
                }
            }
        }
        return Weights(producer: producer)
    }

    /// Dense / MatMul weights: [in, out] -> [out, in].
    public static func transposed(inputs: Int, outputs: Int, from source: FloatBytes) -> Weights {
        permuted(spatial: 1, middle: inputs, last: outputs, from: source)
    }

    /// Values that keep their layout (a bias, a MatMul given transposed):
    /// computed like the moves, so that the writer streams them from the
    /// source too instead of from a copy made now.
    public static func unchanged(from source: FloatBytes) -> Weights {
        let count = source.count / 4
        guard source.isLoaded else { return Weights(unloadedCount: count) }
        guard count > 0 else { return Weights([]) }
        let producer = WeightProducer(count: count, rowLength: 1, release: { source.releasePages() }) { start, target in
            source.withBytes { bytes in
                UnsafeMutableRawBufferPointer(target).copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[4 * start..<4 * (start + target.count)]))
            }
        }
        return Weights(producer: producer)
    }

    /// Tile edge along A and B: 16 floats is one 64-byte cache line.
    static let tile = 16

    /// [S, A, B] -> [B, A, S]: target[(b * A + a) * S + s] = source[(s * A + a) * B + b].
    /// A row of the result is one b: A * S values.
    static func permuted(spatial: Int, middle: Int, last: Int, from source: FloatBytes) -> Weights {
        let count = spatial * middle * last
        precondition(source.count >= 4 * count, "weight source holds \(source.count) bytes, \(4 * count) needed")
        guard source.isLoaded else { return Weights(unloadedCount: count) }
        guard count > 0 else { return Weights([]) }
        let rowLength = middle * spatial
        let producer = WeightProducer(count: count, rowLength: rowLength, release: { source.releasePages() }) { start, target in
            // Rows first..<end of the result, by tiles of B.
            let first = start / rowLength, end = first + target.count / rowLength
            source.withBytes { bytes in
                if spatial == 1 {
                    return transposeRows(first, end, columns: middle, rows: last, from: bytes.baseAddress!, to: target.baseAddress!)
                }
                for b0 in stride(from: first, to: end, by: tile) {
                    permuteTile(b0: b0, b1: min(b0 + tile, end), firstRow: first, spatial: spatial, middle: middle, last: last,
                                from: bytes.baseAddress!, to: target.baseAddress!)
                }
            }
        }
        return Weights(producer: producer)
    }

    /// The S = 1 case (1x1 kernels, dense weights: most of a large model's
    /// bytes), a plain transpose [A, B] -> [B, A]: rows first..<end of the
    /// result, in blocks of 4 x 4 values moved as four 4-lane loads and four
    /// 4-lane stores (twice as fast as one value at a time).
    private static func transposeRows(_ first: Int, _ end: Int, columns a: Int, rows b: Int,
                                      from: UnsafeRawPointer, to: UnsafeMutablePointer<Float>) {
        let (sourceRow, targetRow) = (4 * b, 4 * a)
        /// Result row `row` of the chunk, values a0..<a1, one at a time.
        func copyColumn(_ row: Int, _ a0: Int, _ a1: Int) {
            let target = to + (row - first) * a
            for index in a0..<a1 { target[index] = from.loadUnaligned(fromByteOffset: index * sourceRow + 4 * row, as: Float.self) }
        }
        var row = first
        while row + 4 <= end {
            let target = UnsafeMutableRawPointer(to + (row - first) * a)
            var index = 0
            while index + 4 <= a {
                let p = from + index * sourceRow + 4 * row
                let r0 = p.loadUnaligned(as: SIMD4<Float>.self), r1 = (p + sourceRow).loadUnaligned(as: SIMD4<Float>.self)
                let r2 = (p + 2 * sourceRow).loadUnaligned(as: SIMD4<Float>.self), r3 = (p + 3 * sourceRow).loadUnaligned(as: SIMD4<Float>.self)
                let q = target + 4 * index
                q.storeBytes(of: SIMD4(r0[0], r1[0], r2[0], r3[0]), as: SIMD4<Float>.self)
                (q + targetRow).storeBytes(of: SIMD4(r0[1], r1[1], r2[1], r3[1]), as: SIMD4<Float>.self)
                (q + 2 * targetRow).storeBytes(of: SIMD4(r0[2], r1[2], r2[2], r3[2]), as: SIMD4<Float>.self)
                (q + 3 * targetRow).storeBytes(of: SIMD4(r0[3], r1[3], r2[3], r3[3]), as: SIMD4<Float>.self)
                index += 4
            }
            for k in 0..<4 { copyColumn(row + k, index, a) }
            row += 4
        }
        for rest in row..<end { copyColumn(rest, 0, a) }
    }

    /// Columns b0..<b1 of every source row, into rows b0 - firstRow... of
    /// `to`: each read is a cache line, each write run is contiguous along S.
    @inline(__always)
    private static func permuteTile(b0: Int, b1: Int, firstRow: Int, spatial: Int, middle: Int, last: Int,
                                    from: UnsafeRawPointer, to: UnsafeMutablePointer<Float>) {
        let targetStride = middle * spatial
        for a0 in stride(from: 0, to: middle, by: tile) {
            for s in 0..<spatial {
                for a in a0..<min(a0 + tile, middle) {
                    let row = from + 4 * ((s * middle + a) * last)
                    var t = to + ((b0 - firstRow) * middle + a) * spatial + s
                    for b in b0..<b1 {
                        t.pointee = row.loadUnaligned(fromByteOffset: 4 * b, as: Float.self)
                        t += targetStride
                    }
                }
            }
        }
    }
}

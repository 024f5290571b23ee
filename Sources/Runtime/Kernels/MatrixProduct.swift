import CBLAS
import Threads

/// Row-major single-precision products on the runtime's threads. OpenBLAS
/// runs single-threaded (see Sources/CBLAS/include/blas.h): a large
/// product is cut into bands of its result, one per core, each computed by
/// OpenBLAS on the thread that took it.
enum MatrixProduct {
    /// c[m, n] = op(a) op(b) + beta c, where op(a) is a[m, k] (or a[k, m]
    /// read transposed) and op(b) is b[k, n] (or b[n, k] read transposed);
    /// leading dimensions as in CBLAS. With `rowBias`, c's row i starts as
    /// rowBias[i] instead (beta ignored); with `relu`, c = max(0, c) after:
    /// both done band by band, while the band is in cache. Bands are cut
    /// along the longer side of c.
    static func multiply(m: Int, n: Int, k: Int, _ a: UnsafePointer<Float>, lda: Int, transposeA: Bool = false,
                         _ b: UnsafePointer<Float>, ldb: Int, transposeB: Bool = false,
                         beta: Float = 0, rowBias: UnsafePointer<Float>? = nil, relu: Bool = false,
                         _ c: UnsafeMutablePointer<Float>, ldc: Int) {
        forEachBand(m: m, n: n, k: k) { rows, columns in
            guard !rows.isEmpty && !columns.isEmpty else { return }
            let start = c + rows.lowerBound * ldc + columns.lowerBound
            if let rowBias {
                for row in rows { (c + row * ldc + columns.lowerBound).update(repeating: rowBias[row], count: columns.count) }
            }
            let aStart = a + (transposeA ? rows.lowerBound : rows.lowerBound * lda)
            let bStart = b + (transposeB ? columns.lowerBound * ldb : columns.lowerBound)
            cblas_sgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                        Int32(rows.count), Int32(columns.count), Int32(k), 1, aStart, Int32(lda), bStart, Int32(ldb),
                        rowBias == nil ? beta : 1, start, Int32(ldc))
            if relu {
                for row in 0..<rows.count {
                    let line = start + row * ldc
                    for j in 0..<columns.count { line[j] = Swift.max(line[j], 0) }
                }
            }
        }
    }

    /// y[rows] = w[rows, columns] x + beta y, in bands of rows.
    static func multiply(rows: Int, columns: Int, _ w: UnsafePointer<Float>, _ x: UnsafePointer<Float>,
                         beta: Float = 0, _ y: UnsafeMutablePointer<Float>) {
        forEachBand(m: rows, n: 1, k: columns) { band, _ in
            guard !band.isEmpty else { return }
            cblas_sgemv(CblasRowMajor, CblasNoTrans, Int32(band.count), Int32(columns), 1, w + band.lowerBound * columns,
                        Int32(columns), x, 1, beta, y + band.lowerBound, 1)
        }
    }

    /// Calls `body(rows, columns)` for bands that tile an m x n result,
    /// in parallel when the product is worth it. Bands along n are
    /// multiples of 16 columns (whole vectors for OpenBLAS's kernels).
    static func forEachBand(m: Int, n: Int, k: Int, _ body: (Range<Int>, Range<Int>) -> Void) {
        let workers = SerialKernels.isMarked ? 1 : ProcessorCount.online
        let work = workCost(m, n, k)
        guard workers > 1, work >= 1 << 18, max(m, n) >= 2 * 16 else { return body(0..<m, 0..<n) }
        let alongColumns = n >= m
        let length = alongColumns ? n : m
        let unit = alongColumns ? 16 : 4
        let band = (length + workers * unit - 1) / (workers * unit) * unit
        let bands = (length + band - 1) / band
        parallelFor(bands, cost: .max) { range in
            for index in range {
                let part = index * band..<min((index + 1) * band, length)
                if alongColumns { body(0..<m, part) } else { body(part, 0..<n) }
            }
        }
    }
}

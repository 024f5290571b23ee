import CBLAS
import Threads

/// The library behind the runtime's matrix products (OpenBLAS), loaded by
/// the first `Network` with its CPU kernels chosen from cpuid (see
/// Sources/CBLAS/include/blas.h).
public enum MatrixKernels {
    /// Loads the library once per process.
    /// - Throws: `RuntimeError` when it cannot be loaded.
    public static func load() throws(RuntimeError) {
        var message = [CChar](repeating: 0, count: 512)
        guard blas_load(&message, message.count) == 0 else {
            throw RuntimeError(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// Which kernels run: library, version, CPU core type and why it was
    /// chosen, threads; or why the library could not be loaded.
    public static var description: String {
        do {
            try load()
            let threads = ProcessorCount.online
            return String(cString: blas_description())
                + "; each product split over \(threads) thread\(threads == 1 ? "" : "s") of the runtime, OpenBLAS single-threaded"
        } catch {
            return error.message
        }
    }

    /// Whether the kernels running are older than what the CPU can run
    /// (SSE kernels on a CPU with AVX2, as when OPENBLAS_CORETYPE forces them).
    public static var belowCPU: Bool {
        (try? load()) != nil && blas_below_cpu() != 0
    }
}

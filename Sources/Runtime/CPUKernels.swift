import CBLAS
import Naming
import CDNNL
import Threads

/// Which kernels a network's layers run on.
public enum KernelChoice: Sendable {
    /// oneDNN's JIT convolutions where oneDNN takes the layer (see
    /// Sources/CDNNL/include/convolution.h), the runtime's own kernels elsewhere.
    case fastest
    /// The runtime's own kernels everywhere (convolutions as im2col and
    /// OpenBLAS products): for CPUs or layers oneDNN does not cover, and to
    /// check that a result does not depend on oneDNN.
    case generic
}

/// The libraries behind the runtime's heaviest layers, loaded by the first
/// `Network`: OpenBLAS for matrix products, with its CPU kernels chosen from
/// cpuid (Sources/CBLAS/include/blas.h), and oneDNN for convolutions.
public enum CPUKernels {
    /// Loads OpenBLAS once per process (oneDNN loads with the first
    /// convolution, and its absence only leaves the generic kernels).
    /// - Throws: `RuntimeError` when OpenBLAS cannot be loaded.
    public static func load() throws(RuntimeError) {
        var message = [CChar](repeating: 0, count: 512)
        guard blas_load(&message, message.count) == 0 else { throw RuntimeError(text(message)) }
    }

    /// Which kernels run matrix products: library, version, CPU core type and
    /// why it was chosen, threads; or why the library could not be loaded.
    public static var matrixProducts: String {
        do {
            try load()
            let threads = ProcessorCount.online
            return String(cString: blas_description())
                + "; each product split over \(threads) thread\(threads == 1 ? "" : "s") of the runtime, OpenBLAS single-threaded"
        } catch {
            return error.message
        }
    }

    /// Which kernels run convolutions by default, or why oneDNN's do not.
    public static var convolutions: String { convolutionKernels.namingLibraryOptions }

    private static var convolutionKernels: String {
        var message = [CChar](repeating: 0, count: 512)
        guard convolution_load(&message, message.count) == 0 else {
            return "the runtime's own (im2col and the matrix products): \(text(message))"
        }
        return String(cString: convolution_library()) + "; the runtime's own (im2col and the matrix products) "
            + "for a layer oneDNN does not take, and with \(option: .genericKernels)"
    }

    /// What `coreml-predict --version` and `--benchmark` print: a line for
    /// convolutions (as `choice` runs them) and one for matrix products.
    /// They quote the environment (OPENBLAS_CORETYPE): escape them for a terminal.
    /// An option they mention is named by `naming` (a program: its flag).
    public static func summary(_ choice: KernelChoice = .fastest, naming: (OptionName) -> String = \.libraryName) -> [String] {
        let convolutions = choice == .generic ? "the runtime's own (\(option: .genericKernels))" : convolutionKernels
        return ["convolutions: \(convolutions.namingOptions(naming))", "matrix products: \(matrixProducts)"]
    }

    /// Whether the matrix kernels running are older than what the CPU can
    /// run (SSE kernels on a CPU with AVX2, as when OPENBLAS_CORETYPE forces them).
    public static var belowCPU: Bool {
        (try? load()) != nil && blas_below_cpu() != 0
    }

    static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

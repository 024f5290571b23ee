import CDNNL
import FileIO
import ModelFormat

/// One convolution layer as oneDNN runs it (Sources/CDNNL): its weights
/// reordered once into oneDNN's layout, input and output reordered at each
/// run in the thread's `Scratch`. Only read after it is made, so any number
/// of threads may run it at once.
final class FastConvolution: @unchecked Sendable {
    private let handle: OpaquePointer
    /// Floats of the thread's scratch buffer a run works in.
    let workspaceFloats: Int
    /// The JIT kernel oneDNN picked (jit:avx2, jit_1x1:avx2, ...).
    let implementation: String

    /// nil when oneDNN is missing or does not take this geometry (the
    /// caller keeps its generic kernel).
    init?(_ conv: Convolution, window: Window, relu: Bool) {
        let (input, output) = (window.input, window.output)
        let sizes = [input.channels, input.height, input.width, output.channels, output.height, output.width, conv.groups,
                     conv.kernel.height, conv.kernel.width, conv.stride.height, conv.stride.width,
                     conv.dilation.height, conv.dilation.width, window.padTop, window.padLeft]
        guard !conv.isDeconvolution, sizes.allSatisfy({ $0 >= 0 && $0 <= Int(Int32.max) }) else { return nil }
        // oneDNN's ReLU (max with 0) turns NaN into 0: a NaN or infinite weight,
        // a broken model, must show in the outputs as the generic kernels show it.
        guard Self.allFinite(conv.weights), conv.bias.map(Self.allFinite) ?? true else { return nil }
        var geometry = convolution_geometry(
            channels: Int32(input.channels), height: Int32(input.height), width: Int32(input.width),
            output_channels: Int32(output.channels), output_height: Int32(output.height), output_width: Int32(output.width),
            groups: Int32(conv.groups), kernel_height: Int32(conv.kernel.height), kernel_width: Int32(conv.kernel.width),
            stride_height: Int32(conv.stride.height), stride_width: Int32(conv.stride.width),
            dilation_height: Int32(conv.dilation.height), dilation_width: Int32(conv.dilation.width),
            pad_top: Int32(window.padTop), pad_left: Int32(window.padLeft))
        var message = [CChar](repeating: 0, count: 256)
        let made = conv.weights.withUnsafeBufferPointer { weights in
            withOptionalPointer(conv.bias) { bias in
                convolution_create(&geometry, weights.baseAddress, bias, relu ? 1 : 0, &message, message.count)
            }
        }
        guard let made else { return nil }
        handle = made
        workspaceFloats = (convolution_workspace(made) + 3) / 4
        implementation = String(cString: convolution_implementation(made))
    }

    /// Asks the kernel to take back the pages that hold `weights` (oneDNN
    /// has its own copy now): weights borrowed from a mapped file then leave
    /// memory instead of being held twice; contents never change.
    static func releasePages(of weights: Weights) {
        withValues(weights, MemoryPages.pageOut)
    }

    /// Returns the pages of `weights` to the system for good: anonymous
    /// memory reads as zeros afterwards. Only for weights nothing reads again
    /// (`Network.init(_:kernels:modelIsPrivate:)`).
    static func discardPages(of weights: Weights) {
        withValues(weights, MemoryPages.discard)
    }

    /// The values' bytes, unless they are computed on demand or not loaded.
    private static func withValues(_ weights: Weights, _ body: (UnsafeRawBufferPointer) -> Void) {
        guard !weights.isComputed, weights.isLoaded else { return }
        weights.withUnsafeBufferPointer { body(UnsafeRawBufferPointer($0)) }
    }

    static func allFinite(_ weights: Weights) -> Bool {
        weights.withUnsafeBufferPointer { values in values.allSatisfy(\.isFinite) }
    }

    /// output = the convolution of input, both [C, H, W].
    func run(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>) {
        let workspace = Scratch.buffer(workspaceFloats)
        let status = convolution_run(handle, input, output, workspace.baseAddress)
        // oneDNN fails a run only for a broken primitive or no memory for its own use.
        precondition(status == 0, "oneDNN failed to run a convolution (\(implementation)) it accepted")
    }
}

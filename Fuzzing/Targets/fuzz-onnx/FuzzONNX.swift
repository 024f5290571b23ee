import FuzzSupport
import ModelFormat
import ONNXFrontend

/// `convert onnx` end to end on the input as a model file: the binary
/// decoder with ONNX's descriptor, initializers (raw, typed, external data
/// named relative to the scratch folder), folding, the op table, shape
/// inference, then validation of what it made.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzONNX(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let path = ScratchFiles.shared.write(inputBytes(data, size), name: "fuzzed.onnx")
    if let model = try? ONNXConverter.convert(model: path) { _ = try? model.validate() }
    return 0
}

@_cdecl("fuzz_onnx_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzONNX)
}

import FuzzSupport
import ModelFormat
import TFLiteFrontend

/// `convert tflite` end to end on the input as a model file: the flatbuffer
/// reader (vtables, offsets, vectors checked against the mapped bytes), the
/// op table, shape inference, then validation of what it made.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTFLite(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let path = ScratchFiles.shared.write(inputBytes(data, size), name: "fuzzed.tflite")
    if let model = try? TFLiteConverter.convert(model: path) { _ = try? model.validate() }
    return 0
}

@_cdecl("fuzz_tflite_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzTFLite)
}

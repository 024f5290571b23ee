import FuzzSupport
import ImageFiles
import Images

/// PNG and JPEG bytes, as `predict` decodes them (libpng, TurboJPEG).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = try? ImageFile.decode(inputBytes(data, size), name: "input")
    return 0
}

@_cdecl("fuzz_image_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzImage)
}

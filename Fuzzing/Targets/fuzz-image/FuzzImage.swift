import FuzzSupport
import ImageFiles
import Images

/// PNG and JPEG bytes, as `predict` decodes them (libpng, TurboJPEG): in
/// memory (`ImageFile.decode`, each decoder given at most what the header
/// declares) and as a mapped file (`ImageFile.read`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    _ = try? ImageFile.decode(bytes, name: "input")
    let path = ScratchFiles.shared.write(bytes, name: "input.img")
    _ = try? ImageFile.read(path: path)
    return 0
}

@_cdecl("fuzz_image_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzImage)
}

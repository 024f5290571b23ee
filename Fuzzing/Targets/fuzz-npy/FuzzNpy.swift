import FuzzSupport
import Runtime

/// `.npy` files, as `predict --input NAME=FILE.npy` reads them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNpy(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let path = ScratchFiles.shared.write(inputBytes(data, size), name: "input.npy")
    _ = try? NumpyFile.read(path: path)
    return 0
}

@_cdecl("fuzz_npy_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzNpy)
}

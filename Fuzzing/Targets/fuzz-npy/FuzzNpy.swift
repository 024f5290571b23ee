import FuzzSupport
import ModelFormat
import Runtime

/// The shapes a fuzzed `.npy` is read for, as `predict --input` and
/// `convert --probe` read it (header first, compared before any data).
private let inputShapes = [TensorShape(channels: 3, height: 8, width: 8), TensorShape(channels: 5), TensorShape([2, 3])]

/// `.npy` files, as `predict --input NAME=FILE.npy` reads them: whole
/// (`NumpyFile.read`), and for a model input (`NumpyFile.tensor`), the
/// input's shape chosen by the file's last byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNpy(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    let path = ScratchFiles.shared.write(bytes, name: "input.npy")
    _ = try? NumpyFile.read(path: path)
    let shape = inputShapes[Int(bytes.last ?? 0) % inputShapes.count]
    _ = try? NumpyFile.tensor(path: path, fitting: shape, input: "x")
    return 0
}

@_cdecl("fuzz_npy_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzNpy)
}

import Conversion
import FuzzSupport

/// Class-label files: any bytes, with and without an expected class count.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLabels(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let path = ScratchFiles.shared.write(inputBytes(data, size), name: "labels.txt")
    _ = try? LabelFile.read(path: path)
    _ = try? LabelFile.read(path: path, expectedCount: 8)
    return 0
}

@_cdecl("fuzz_labels_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzLabels)
}

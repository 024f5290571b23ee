import CodeGeneration
import CoreMLBackend
import FuzzSupport
import ModelFormat

/// `.mlmodel` bytes: the binary protobuf decoder with Core ML's descriptor,
/// the spec reader (full and structure-only, as `inspect` reads), then
/// validation and shape inference of what was read, as `predict` does;
/// and the interface alone, with the classes `generate` writes for it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMLModel(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    if let file = try? CoreMLReader.read(bytes: bytes, owner: nil, structureOnly: false) {
        _ = try? file.model.validate()
    }
    _ = try? CoreMLReader.read(bytes: bytes, owner: nil, structureOnly: true)
    if let interface = try? CoreMLReader.interface(bytes: bytes, owner: nil),
       let generator = try? ClassGenerator(interface: interface, className: "M", resourceName: "M") {
        _ = generator.files(in: .swift)
        _ = generator.files(in: .objc)
    }
    return 0
}

@_cdecl("fuzz_mlmodel_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzMLModel)
}

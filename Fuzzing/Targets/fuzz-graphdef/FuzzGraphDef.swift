import Conversion
import FuzzSupport
import ModelFormat
import TensorFlowFrontend

/// `convert tensorflow` end to end on a GraphDef file: binary or text as the
/// converter tells them apart by content (`.pbtxt` seeds start like text),
/// pruning, constant folding, the op table, shape inference, validation.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGraphDef(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let path = ScratchFiles.shared.write(inputBytes(data, size), name: "graph.pb")
    _ = try? TensorFlowConverter.convert(graph: path)
    return 0
}

@_cdecl("fuzz_graphdef_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzGraphDef)
}

import DarknetFrontend
import FuzzSupport
import ModelFormat

/// `convert darknet` end to end: a fixture's network definition and its
/// weights, of which one side is fuzzed. The first input byte picks the
/// fixture (low 7 bits) and the side (high bit clear: the rest of the input
/// is the .weights, with the fixture's .cfg; set: the rest is the .cfg, with
/// the fixture's .weights, and also read alone, as inspect reads it).
/// scripts/fuzz seeds the corpus with every fixture both ways.
let fixtures = ["Tests/Fixtures/darknet/tiny_yolo", "Tests/Fixtures/darknet/route_v1", "Tests/Fixtures/darknet/yolov2_reorg"]

let fixedFiles: [(config: String, weights: String)] = fixtures.enumerated().map { index, folder in
    (ScratchFiles.shared.write(fixture(folder + "/model.cfg"), name: "fixed\(index).cfg"),
     ScratchFiles.shared.write(fixture(folder + "/model.weights"), name: "fixed\(index).weights"))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDarknet(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (pair, definitionFuzzed, rest) = pickedSide(inputBytes(data, size), pairs: fixedFiles.count) else { return 0 }
    let fixed = fixedFiles[pair]
    if !definitionFuzzed {
        let weights = ScratchFiles.shared.write(rest, name: "fuzzed.weights")
        if let model = try? DarknetConverter.convert(config: fixed.config, weights: weights) { _ = try? model.validate() }
    } else {
        let config = ScratchFiles.shared.write(rest, name: "fuzzed.cfg")
        if let model = try? DarknetConverter.convert(config: config, weights: fixed.weights) { _ = try? model.validate() }
        _ = try? DarknetConverter.convert(config: config, weights: nil)
    }
    return 0
}

@_cdecl("fuzz_darknet_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    _ = fixedFiles
    return runLibFuzzer(argc, argv, fuzzDarknet)
}

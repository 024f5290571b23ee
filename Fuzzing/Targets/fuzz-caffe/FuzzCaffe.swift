import CaffeFrontend
import Conversion
import FuzzSupport
import ModelFormat

/// `convert caffe` end to end: one real deploy definition and its weights
/// from the fixtures, of which one side is fuzzed. The first input byte
/// picks the pair (low 7 bits) and the side (high bit clear: the rest of
/// the input is the weights file, with the pair's deploy text; set: the
/// rest is the deploy text, with the pair's weights). scripts/fuzz seeds
/// the corpus with every pair both ways.
let pairs: [(deploy: String, weights: String)] = [
    ("Tests/Fixtures/caffe/age_net_v1/deploy.prototxt", "Tests/Fixtures/caffe/age_net_v1/weights.caffemodel"),
    ("Tests/Fixtures/caffe/layers_v2/deploy.prototxt", "Tests/Fixtures/caffe/layers_v2/weights.caffemodel"),
    ("Tests/Fixtures/caffe/resnet_bn/deploy.prototxt", "Tests/Fixtures/caffe/resnet_bn/weights.caffemodel"),
    ("Tests/Fixtures/caffe/mean_file/deploy.prototxt", "Tests/Fixtures/caffe/mean_file/weights.caffemodel"),
    ("Tests/Fixtures/caffe/resnet_bn_h5/deploy.prototxt", "Tests/Fixtures/caffe/resnet_bn_h5/weights.caffemodel.h5"),
    ("Tests/Fixtures/runtime/chain_caffe/caffe.prototxt", "Tests/Fixtures/runtime/chain_caffe/caffe.caffemodel"),
    ("Tests/Fixtures/runtime/inner_product/caffe.prototxt", "Tests/Fixtures/runtime/inner_product/caffe.caffemodel"),
    ("Tests/Fixtures/runtime/lrn/caffe.prototxt", "Tests/Fixtures/runtime/lrn/caffe.caffemodel"),
    ("Tests/Fixtures/runtime/pool_global/caffe.prototxt", "Tests/Fixtures/runtime/pool_global/caffe.caffemodel"),
]

/// The fixed side of each pair, written once into the scratch directory.
let fixedFiles: [(deploy: String, weights: String)] = pairs.enumerated().map { index, pair in
    let suffix = pair.weights.hasSuffix(".h5") ? ".caffemodel.h5" : ".caffemodel"
    return (ScratchFiles.shared.write(fixture(pair.deploy), name: "fixed\(index).prototxt"),
            ScratchFiles.shared.write(fixture(pair.weights), name: "fixed\(index)\(suffix)"))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCaffe(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (pair, definitionFuzzed, rest) = pickedSide(inputBytes(data, size), pairs: fixedFiles.count) else { return 0 }
    let fixed = fixedFiles[pair]
    let deploy: String, weights: String
    if !definitionFuzzed {
        deploy = fixed.deploy
        weights = ScratchFiles.shared.write(rest, name: fixed.weights.hasSuffix(".h5") ? "fuzzed.caffemodel.h5" : "fuzzed.caffemodel")
    } else {
        deploy = ScratchFiles.shared.write(rest, name: "fuzzed.prototxt")
        weights = fixed.weights
    }
    if let model = try? CaffeConverter.convert(deploy: deploy, weights: weights) {
        _ = try? model.validate()
    }
    _ = try? CaffeInspection.convert(deploy: deploy, weights: weights)
    return 0
}

@_cdecl("fuzz_caffe_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    _ = fixedFiles
    return runLibFuzzer(argc, argv, fuzzCaffe)
}

import CaffeFrontend
import FuzzSupport
import CaffeSchema
import Protobuf

/// Binary caffemodel bytes: the binary decoder with Caffe's NetParameter
/// (values and structure only) and BlobProto (mean.binaryproto)
/// descriptors, then the same bytes as files through the readers that
/// `inspect` and `convert caffe --mean-image` use (blob shapes against values).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCaffemodel(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    for structureOnly in [false, true] {
        _ = try? BinaryDecoder.decode(Caffe__NetParameter.self, descriptor: proto_caffe_net_descriptor(), bytes: bytes,
                                      owner: nil, options: DecodeOptions(structureOnly: structureOnly))
    }
    _ = try? BinaryDecoder.decode(Caffe__BlobProto.self, descriptor: proto_caffe_blob_descriptor(), bytes: bytes, owner: nil)
    let path = ScratchFiles.shared.write(bytes, name: "weights.caffemodel")
    if let file = try? CaffeInspection.readWeightsFile(path, loadValues: true) {
        for layer in file.layers { for blob in layer.blobs { _ = blob.values.values.reduce(0, +) } }
    }
    _ = try? CaffeInspection.readWeightsFile(path, loadValues: false)
    _ = try? CaffeConverter.readMeanImage(path)
    return 0
}

@_cdecl("fuzz_caffemodel_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzCaffemodel)
}

import CaffeFrontend
import FuzzSupport
import CaffeSchema
import TensorFlowSchema
import Protobuf

/// Protobuf text format: the text decoder with both descriptors that read
/// text (Caffe's NetParameter for deploy.prototxt, TensorFlow's GraphDef for
/// .pbtxt), the error offset turned into line:column as the frontends do,
/// and the Caffe deploy definition converted end to end without weights.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzText(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    do {
        _ = try TextDecoder.decode(Caffe__NetParameter.self, descriptor: proto_caffe_net_descriptor(), bytes: bytes, owner: nil)
    } catch {
        _ = lineAndColumn(of: error.offset, in: bytes)
    }
    do {
        _ = try TextDecoder.decode(Tensorflow__GraphDef.self, descriptor: proto_tensorflow_graph_descriptor(), bytes: bytes, owner: nil)
    } catch {
        _ = lineAndColumn(of: error.offset, in: bytes)
    }
    let deploy = ScratchFiles.shared.write(bytes, name: "deploy.prototxt")
    _ = try? CaffeConverter.convert(deploy: deploy, weights: nil)
    return 0
}

@_cdecl("fuzz_text_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzText)
}

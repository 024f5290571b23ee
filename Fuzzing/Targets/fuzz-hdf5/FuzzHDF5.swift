import CaffeFrontend
import FuzzSupport
import HDF5
import KerasFrontend

/// HDF5 weight files: the input is written to a file, opened through
/// HDF5File and read as far as it goes: every group listed, every object's
/// kind, every dataset's shape and values, the string attributes Keras
/// files carry, then the file as Caffe HDF5 weights and as a Keras model
/// (model_config JSON, layer_names, weight_names, weights). The walk is bounded
/// (hard links can form cycles); the reader itself must bound the rest.
let attributeNames = ["layer_names", "weight_names", "keras_version", "backend", "model_config", "training_config"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHDF5(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let path = ScratchFiles.shared.write(inputBytes(data, size), name: "weights.caffemodel.h5")
    if let file = try? HDF5File(path: path) {
        var pending = [("/", 0)]
        var visited = 0
        while let (object, depth) = pending.popLast(), visited < 64 {
            visited += 1
            // Each string attribute read forks a child (isolated_read.h): a few objects only.
            for name in attributeNames where visited <= 4 {
                _ = try? file.stringAttribute(name, of: object)
                _ = try? file.stringArrayAttribute(name, of: object)
            }
            switch try? file.kind(of: object) {
            case .group?:
                guard depth < 8, let children = try? file.children(of: object) else { continue }
                for child in children.prefix(16) { pending.append((object == "/" ? child : "\(object)/\(child)", depth + 1)) }
            case .dataset?:
                _ = try? file.shape(of: object)
                _ = try? file.readFloats(object)
            default:
                break
            }
        }
    }
    _ = try? CaffeInspection.readWeightsFile(path, loadValues: true)
    _ = try? KerasConverter.convert(model: path)
    return 0
}

@_cdecl("fuzz_hdf5_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzHDF5)
}

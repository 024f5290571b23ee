import CProtobufC
import Inspection
import ProtoSchemas
import Protobuf

/// What a `.mlmodel` states that the model spec does not keep: the stored
/// precision of each weight tensor (float32 or float16) and the exact type
/// of each feature (a multi-array's data type). Read from a structure-only
/// decode, so no weight payload is touched.
struct CoreMLSpecScan {
    /// Layer name -> weight field name (`weights`, `bias`, ...) -> precision.
    var precisions: [String: [String: Precision]] = [:]
    /// Feature name -> `multiarray<float32,[3]>`, `image<RGB,32x32>`, ...
    var featureTypes: [String: String] = [:]

    init(bytes: UnsafeRawBufferPointer, owner: AnyObject) throws {
        let decoded = try BinaryDecoder.decode(CoreML__Specification__Model.self, descriptor: proto_coreml_model_descriptor(),
                                               bytes: bytes, owner: owner, options: DecodeOptions(structureOnly: true))
        let spec = decoded.root.pointee
        if let description = spec.description?.pointee {
            let features = Array(CArrays.buffer(description.input, description.n_input))
                + Array(CArrays.buffer(description.output, description.n_output))
            for case let feature? in features {
                if let type = feature.pointee.type, let text = Self.typeText(type.pointee) {
                    featureTypes[CArrays.string(feature.pointee.name)] = text
                }
            }
        }
        var layers = UnsafeBufferPointer<UnsafeMutablePointer<CoreML__Specification__NeuralNetworkLayer>?>(start: nil, count: 0)
        switch spec.type_case {
        case CORE_ML__SPECIFICATION__MODEL__TYPE_NEURAL_NETWORK:
            if let network = spec.neuralnetwork { layers = CArrays.buffer(network.pointee.layers, network.pointee.n_layers) }
        case CORE_ML__SPECIFICATION__MODEL__TYPE_NEURAL_NETWORK_CLASSIFIER:
            if let network = spec.neuralnetworkclassifier { layers = CArrays.buffer(network.pointee.layers, network.pointee.n_layers) }
        default:
            break
        }
        for case let layer? in layers {
            var found: [String: Precision] = [:]
            Self.collectWeights(UnsafeRawPointer(layer), field: "", depth: 0, into: &found)
            if !found.isEmpty { precisions[CArrays.string(layer.pointee.name), default: [:]].merge(found) { $1 } }
        }
    }

    /// Walks a decoded message through its protobuf-c descriptor and notes
    /// every WeightParams under the name of the field that holds it.
    static func collectWeights(_ message: UnsafeRawPointer, field: String, depth: Int, into found: inout [String: Precision]) {
        guard depth < 16, let descriptor = message.assumingMemoryBound(to: ProtobufCMessage.self).pointee.descriptor else { return }
        if String(cString: descriptor.pointee.name) == "CoreML.Specification.WeightParams" {
            let weights = message.assumingMemoryBound(to: CoreML__Specification__WeightParams.self).pointee
            if weights.float16value.len > 0 { found[field] = .float16 } else if weights.n_floatvalue > 0 { found[field] = .float32 }
            return
        }
        guard let fields = descriptor.pointee.fields else { return }
        for index in 0..<Int(descriptor.pointee.n_fields) {
            let child = fields[index]
            guard child.type == PROTOBUF_C_TYPE_MESSAGE else { continue }
            let name = String(cString: child.name)
            if child.label == PROTOBUF_C_LABEL_REPEATED {
                let count = message.load(fromByteOffset: Int(child.quantifier_offset), as: Int.self)
                guard count > 0, let array = message.load(fromByteOffset: Int(child.offset), as: UnsafePointer<UnsafeRawPointer?>?.self) else {
                    continue
                }
                for element in 0..<count {
                    if let item = array[element] { collectWeights(item, field: name, depth: depth + 1, into: &found) }
                }
            } else {
                if child.flags & PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue != 0,
                   message.load(fromByteOffset: Int(child.quantifier_offset), as: UInt32.self) != child.id {
                    continue
                }
                if let item = message.load(fromByteOffset: Int(child.offset), as: UnsafeRawPointer?.self) {
                    collectWeights(item, field: name, depth: depth + 1, into: &found)
                }
            }
        }
    }

    /// `multiarray<float32,[3,32,32]>`, `image<BGR,227x227>`, `dictionary<string,double>`, `string`, ...
    static func typeText(_ type: CoreML__Specification__FeatureType) -> String? {
        switch type.type_case {
        case CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_INT64_TYPE: return "int64"
        case CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_DOUBLE_TYPE: return "double"
        case CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_STRING_TYPE: return "string"
        case CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_IMAGE_TYPE:
            guard let image = type.imagetype?.pointee else { return nil }
            let colorSpace = switch image.colorspace {
            case CORE_ML__SPECIFICATION__IMAGE_FEATURE_TYPE__COLOR_SPACE__GRAYSCALE: "Grayscale"
            case CORE_ML__SPECIFICATION__IMAGE_FEATURE_TYPE__COLOR_SPACE__RGB: "RGB"
            case CORE_ML__SPECIFICATION__IMAGE_FEATURE_TYPE__COLOR_SPACE__BGR: "BGR"
            default: "?"
            }
            return "image<\(colorSpace),\(image.width)x\(image.height)>"
        case CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_MULTI_ARRAY_TYPE:
            guard let array = type.multiarraytype?.pointee else { return nil }
            let dataType = switch array.datatype {
            case CORE_ML__SPECIFICATION__ARRAY_FEATURE_TYPE__ARRAY_DATA_TYPE__FLOAT32: "float32"
            case CORE_ML__SPECIFICATION__ARRAY_FEATURE_TYPE__ARRAY_DATA_TYPE__DOUBLE: "double"
            case CORE_ML__SPECIFICATION__ARRAY_FEATURE_TYPE__ARRAY_DATA_TYPE__INT32: "int32"
            default: "?"
            }
            // An unstated shape is left to the model's shape inference.
            guard array.n_shape > 0 else { return nil }
            return SummaryText.arrayType(CArrays.array(array.shape, array.n_shape).map { Int($0) }, dataType: dataType)
        case CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_DICTIONARY_TYPE:
            guard let dictionary = type.dictionarytype?.pointee else { return nil }
            let key = dictionary.key_type_case == CORE_ML__SPECIFICATION__DICTIONARY_FEATURE_TYPE__KEY_TYPE_INT64_KEY_TYPE ? "int64" : "string"
            return "dictionary<\(key),double>"
        default:
            return nil
        }
    }
}

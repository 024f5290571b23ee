import ModelFormat
import CoreMLSchema
import Protobuf

/// Inputs, outputs, preprocessing, labels, metadata and weights from
/// decoded Core ML structs.
extension SpecReader {
    /// - Parameter mapping: how the network maps array features: with a
    ///   batch axis to drop, or as tensors of any rank.
    func input(_ feature: UnsafeMutablePointer<MLFeatureDescription>?, _ mapping: ArrayMapping = .rank5) throws -> Input {
        guard let feature else { throw fail("an input is empty", at: nil) }
        let name = CArrays.string(feature.pointee.name)
        let description = CArrays.string(feature.pointee.shortdescription)
        guard !name.isEmpty else { throw fail("an input has no name", at: feature) }
        guard let type = feature.pointee.type else { throw fail("input '\(name)' has no type", at: feature) }
        switch type.pointee.type_case {
        case CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_IMAGE_TYPE:
            let image = type.pointee.imagetype!
            guard let colorSpace = Self.colorSpace(image.pointee.colorspace) else {
                throw fail("image input '\(name)' has the unknown color space \(image.pointee.colorspace.rawValue)", at: image)
            }
            let width = Int(image.pointee.width), height = Int(image.pointee.height)
            guard width > 0, height > 0, width <= 1 << 16, height <= 1 << 16 else {
                throw fail("image input '\(name)' has the size \(width)x\(height)", at: image)
            }
            // A network of tensors takes the image as [1, C, H, W] (RANK4_IMAGE_MAPPING).
            return Input(name: name, kind: .image(ImageInput(width: width, height: height, colorSpace: colorSpace, asTensor: mapping == .exact)),
                         description: description)
        case CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_MULTI_ARRAY_TYPE:
            let array = type.pointee.multiarraytype!
            let shape = try shape(array, of: name, mapping)
            return Input(name: name, kind: mapping == .exact ? .tensor(shape: shape) : .array(shape: shape), description: description)
        default:
            throw fail("input '\(name)' is not an image or a multi-array; other input types are not supported", at: type)
        }
    }

    func output(_ feature: UnsafeMutablePointer<MLFeatureDescription>?, _ mapping: ArrayMapping = .rank5) throws -> Output {
        guard let feature else { throw fail("an output is empty", at: nil) }
        let name = CArrays.string(feature.pointee.name)
        guard !name.isEmpty else { throw fail("an output has no name", at: feature) }
        var shape: [Int] = []
        if let type = feature.pointee.type, type.pointee.type_case == CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_MULTI_ARRAY_TYPE {
            shape = try self.shape(type.pointee.multiarraytype!, of: name, mapping)
        }
        return Output(name: name, shape: shape, description: CArrays.string(feature.pointee.shortdescription))
    }

    /// [C] or [C, H, W]; with a batch axis also [1, C] and [1, C, H, W]
    /// (the batch axis dropped, and [1, C, 1, 1] read as the vector [C]);
    /// a tensor's shape as stored.
    func shape(_ array: UnsafeMutablePointer<MLArrayType>, of name: String, _ mapping: ArrayMapping = .rank5) throws -> [Int] {
        let stored = CArrays.array(array.pointee.shape, array.pointee.n_shape)
        guard stored.allSatisfy({ $0 > 0 && $0 <= 1 << 31 }) else { throw fail("feature '\(name)' has the shape \(stored)", at: array) }
        var shape = stored.map { Int($0) }
        if mapping == .batchAxis, shape.count == 2 || shape.count == 4, shape[0] == 1 {
            shape.removeFirst()
            if shape.count == 3, shape[1] == 1, shape[2] == 1 { shape = [shape[0]] }
        }
        return shape
    }

    func applyPreprocessing(_ entries: UnsafeBufferPointer<UnsafeMutablePointer<MLPreprocessing>?>, to inputs: inout [Input]) throws {
        for case let entry? in entries {
            var name = CArrays.string(entry.pointee.featurename)
            if name.isEmpty, inputs.count == 1 { name = inputs[0].name }  // Core ML allows this for one input
            guard let index = inputs.firstIndex(where: { $0.name == name }), var image = inputs[index].image else {
                throw fail("preprocessing for '\(name)', which is not an image input", at: entry)
            }
            switch entry.pointee.preprocessor_case {
            case CORE_ML__SPECIFICATION__NEURAL_NETWORK_PREPROCESSING__PREPROCESSOR_SCALER:
                let scaler = entry.pointee.scaler!.pointee
                // proto3: an unset channelScale reads as 0 and means 1.
                image.scale = scaler.channelscale == 0 ? 1 : scaler.channelscale
                image.redBias = scaler.redbias
                image.greenBias = scaler.greenbias
                image.blueBias = scaler.bluebias
                image.grayBias = scaler.graybias
            case CORE_ML__SPECIFICATION__NEURAL_NETWORK_PREPROCESSING__PREPROCESSOR_MEAN_IMAGE:
                let mean = entry.pointee.meanimage!
                let count = mean.pointee.n_meanimage
                guard count == image.channels * image.width * image.height else {
                    throw fail("mean image for '\(name)' has \(count) values, expected \(image.channels)x\(image.height)x\(image.width)", at: mean)
                }
                image.meanImage = floats(mean.pointee.meanimage, count)
            default:
                throw fail("preprocessing for '\(name)' has no scaler or mean image", at: entry)
            }
            inputs[index].kind = .image(image)
        }
    }

    func classifier(_ network: UnsafeMutablePointer<MLClassifier>,
                    _ description: UnsafeMutablePointer<MLModelDescription>) throws -> Classifier {
        let labels: ClassLabels
        switch network.pointee.class_labels_case {
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_CLASSIFIER__CLASS_LABELS_STRING_CLASS_LABELS:
            let vector = network.pointee.stringclasslabels!
            labels = .strings(CArrays.strings(vector.pointee.vector, vector.pointee.n_vector))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_CLASSIFIER__CLASS_LABELS_INT64_CLASS_LABELS:
            let vector = network.pointee.int64classlabels!
            labels = .integers(CArrays.array(vector.pointee.vector, vector.pointee.n_vector))
        default:
            throw fail("the classifier has no class labels", at: network)
        }
        guard labels.count > 0 else { throw fail("the classifier has no class labels", at: network) }
        let predicted = CArrays.string(description.pointee.predictedfeaturename)
        let probabilities = CArrays.string(description.pointee.predictedprobabilitiesname)
        guard !predicted.isEmpty else { throw fail("the classifier has no predictedFeatureName", at: description) }
        return Classifier(labels: labels, predictedFeatureName: predicted,
                          probabilitiesName: probabilities.isEmpty ? "classLabelProbs" : probabilities)
    }

    func metadata(_ message: UnsafeMutablePointer<MLMetadata>?) -> Metadata {
        guard let message else { return Metadata() }
        let pairs = CArrays.buffer(message.pointee.userdefined, message.pointee.n_userdefined).compactMap { entry in
            entry.map { (key: CArrays.string($0.pointee.key), value: CArrays.string($0.pointee.value)) }
        }
        return Metadata(author: CArrays.string(message.pointee.author), license: CArrays.string(message.pointee.license),
                        shortDescription: CArrays.string(message.pointee.shortdescription),
                        version: CArrays.string(message.pointee.versionstring), userDefined: pairs)
    }
}

extension SpecReader {
    /// The color space an image feature states, nil for an unknown value.
    static func colorSpace(_ value: CoreML__Specification__ImageFeatureType__ColorSpace) -> ColorSpace? {
        switch value {
        case CORE_ML__SPECIFICATION__IMAGE_FEATURE_TYPE__COLOR_SPACE__RGB: .rgb
        case CORE_ML__SPECIFICATION__IMAGE_FEATURE_TYPE__COLOR_SPACE__BGR: .bgr
        case CORE_ML__SPECIFICATION__IMAGE_FEATURE_TYPE__COLOR_SPACE__GRAYSCALE: .grayscale
        default: nil
        }
    }

    /// How `type` is written in the file; nil for a type the toolkit does not describe.
    func storedFeatureType(_ type: UnsafeMutablePointer<MLFeatureType>?) -> StoredFeatureType? {
        guard let type = type?.pointee else { return nil }
        switch type.type_case {
        case CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_INT64_TYPE: return .int64
        case CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_DOUBLE_TYPE: return .double
        case CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_STRING_TYPE: return .string
        case CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_IMAGE_TYPE:
            guard let image = type.imagetype?.pointee else { return nil }
            return .image(colorSpace: Self.colorSpace(image.colorspace)?.rawValue ?? "?", width: Int(image.width), height: Int(image.height))
        case CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_MULTI_ARRAY_TYPE:
            guard let array = type.multiarraytype?.pointee else { return nil }
            let dataType = switch array.datatype {
            case CORE_ML__SPECIFICATION__ARRAY_FEATURE_TYPE__ARRAY_DATA_TYPE__FLOAT32: "float32"
            case CORE_ML__SPECIFICATION__ARRAY_FEATURE_TYPE__ARRAY_DATA_TYPE__DOUBLE: "double"
            case CORE_ML__SPECIFICATION__ARRAY_FEATURE_TYPE__ARRAY_DATA_TYPE__INT32: "int32"
            default: array.datatype.rawValue == 65552 ? "float16" : "?"  // FLOAT16 (specification 7), not in our schema
            }
            if array.shape_flexibility_case == CORE_ML__SPECIFICATION__ARRAY_FEATURE_TYPE__SHAPE_FLEXIBILITY_SHAPE_RANGE, let range = array.shaperange {
                let sizes = CArrays.buffer(range.pointee.sizeranges, range.pointee.n_sizeranges).compactMap { $0?.pointee }
                return .multiArrayRange(dataType: dataType, lower: sizes.map { Int(clamping: $0.lowerbound) },
                                        upper: sizes.map { $0.upperbound < 0 ? nil : Int($0.upperbound) })
            }
            return .multiArray(dataType: dataType, shape: CArrays.array(array.shape, array.n_shape).map { Int($0) })
        case CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_DICTIONARY_TYPE:
            guard let dictionary = type.dictionarytype?.pointee else { return nil }
            return .dictionary(keyType: dictionary.key_type_case == CORE_ML__SPECIFICATION__DICTIONARY_FEATURE_TYPE__KEY_TYPE_INT64_KEY_TYPE
                ? "int64" : "string")
        default:
            return nil
        }
    }
}

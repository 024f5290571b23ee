import ModelFormat
import CoreMLSchema

/// Inputs, outputs, preprocessing, labels and metadata as Core ML messages.
extension SpecBuilder {
    func feature(_ name: String, _ description: String, _ type: UnsafeMutablePointer<MLFeatureType>)
        -> UnsafeMutablePointer<MLFeatureDescription> {
        let feature: UnsafeMutablePointer<MLFeatureDescription> = new(core_ml__specification__feature_description__init)
        feature.pointee.name = string(name)
        if !description.isEmpty { feature.pointee.shortdescription = string(description) }
        feature.pointee.type = type
        return feature
    }

    func inputFeature(_ input: Input) -> UnsafeMutablePointer<MLFeatureDescription> {
        switch input.kind {
        case .image(let image):
            let type: UnsafeMutablePointer<MLFeatureType> = new(core_ml__specification__feature_type__init)
            let imageType: UnsafeMutablePointer<MLImageType> = new(core_ml__specification__image_feature_type__init)
            imageType.pointee.width = Int64(image.width)
            imageType.pointee.height = Int64(image.height)
            imageType.pointee.colorspace = switch image.colorSpace {
            case .rgb: CORE_ML__SPECIFICATION__IMAGE_FEATURE_TYPE__COLOR_SPACE__RGB
            case .bgr: CORE_ML__SPECIFICATION__IMAGE_FEATURE_TYPE__COLOR_SPACE__BGR
            case .grayscale: CORE_ML__SPECIFICATION__IMAGE_FEATURE_TYPE__COLOR_SPACE__GRAYSCALE
            }
            type.pointee.type_case = CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_IMAGE_TYPE
            type.pointee.imagetype = imageType
            return feature(input.name, input.description, type)
        case .array(let shape), .tensor(let shape):
            return feature(input.name, input.description, arrayType(shape))
        }
    }

    /// A multi-array feature of doubles, as coremltools writes them for
    /// neural networks of every specification version: [C] or [C, H, W],
    /// or on the rank-N path [1, C, H, W] (a vector as [1, C, 1, 1]);
    /// a tensor's shape as it is.
    func arrayType(_ shape: [Int]) -> UnsafeMutablePointer<MLFeatureType> {
        let type: UnsafeMutablePointer<MLFeatureType> = new(core_ml__specification__feature_type__init)
        let array: UnsafeMutablePointer<MLArrayType> = new(core_ml__specification__array_feature_type__init)
        let written = arrayMapping == .batchAxis && !shape.isEmpty ? [1] + shape + Array(repeating: 1, count: max(0, 3 - shape.count)) : shape
        (array.pointee.n_shape, array.pointee.shape) = int64s(written)
        array.pointee.datatype = CORE_ML__SPECIFICATION__ARRAY_FEATURE_TYPE__ARRAY_DATA_TYPE__DOUBLE
        type.pointee.type_case = CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_MULTI_ARRAY_TYPE
        type.pointee.multiarraytype = array
        return type
    }

    /// The classifier's two features: label -> probability, and the top label.
    func classifierFeatures(_ classifier: Classifier) -> [UnsafeMutablePointer<MLFeatureDescription>] {
        let dictionary: UnsafeMutablePointer<MLDictionaryType> = new(core_ml__specification__dictionary_feature_type__init)
        let label: UnsafeMutablePointer<MLFeatureType> = new(core_ml__specification__feature_type__init)
        if case .strings = classifier.labels {
            dictionary.pointee.key_type_case = CORE_ML__SPECIFICATION__DICTIONARY_FEATURE_TYPE__KEY_TYPE_STRING_KEY_TYPE
            dictionary.pointee.stringkeytype = new(core_ml__specification__string_feature_type__init)
            label.pointee.type_case = CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_STRING_TYPE
            label.pointee.stringtype = new(core_ml__specification__string_feature_type__init)
        } else {
            dictionary.pointee.key_type_case = CORE_ML__SPECIFICATION__DICTIONARY_FEATURE_TYPE__KEY_TYPE_INT64_KEY_TYPE
            dictionary.pointee.int64keytype = new(core_ml__specification__int64_feature_type__init)
            label.pointee.type_case = CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_INT64_TYPE
            label.pointee.int64type = new(core_ml__specification__int64_feature_type__init)
        }
        let probabilities: UnsafeMutablePointer<MLFeatureType> = new(core_ml__specification__feature_type__init)
        probabilities.pointee.type_case = CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_DICTIONARY_TYPE
        probabilities.pointee.dictionarytype = dictionary
        return [
            feature(classifier.probabilitiesName, classifier.probabilitiesDescription, probabilities),
            feature(classifier.predictedFeatureName, classifier.predictedFeatureDescription, label),
        ]
    }

    /// One preprocessing entry per image input that needs it: the scaler,
    /// then the mean image.
    func preprocessing(_ inputs: [Input]) -> [UnsafeMutablePointer<MLPreprocessing>] {
        var entries: [UnsafeMutablePointer<MLPreprocessing>] = []
        for input in inputs {
            guard let image = input.image else { continue }
            if image.hasScaler {
                let scaler: UnsafeMutablePointer<MLImageScaler> = new(core_ml__specification__neural_network_image_scaler__init)
                scaler.pointee.channelscale = image.scale
                scaler.pointee.redbias = image.redBias
                scaler.pointee.greenbias = image.greenBias
                scaler.pointee.bluebias = image.blueBias
                scaler.pointee.graybias = image.grayBias
                let entry: UnsafeMutablePointer<MLPreprocessing> = new(core_ml__specification__neural_network_preprocessing__init)
                entry.pointee.featurename = string(input.name)
                entry.pointee.preprocessor_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_PREPROCESSING__PREPROCESSOR_SCALER
                entry.pointee.scaler = scaler
                entries.append(entry)
            }
            if let mean = image.meanImage {
                let meanImage: UnsafeMutablePointer<MLMeanImage> = new(core_ml__specification__neural_network_mean_image__init)
                let buffer = mean.unsafeBuffer
                meanImage.pointee.n_meanimage = buffer.count
                meanImage.pointee.meanimage = UnsafeMutablePointer(mutating: buffer.baseAddress)
                retain(mean)
                let entry: UnsafeMutablePointer<MLPreprocessing> = new(core_ml__specification__neural_network_preprocessing__init)
                entry.pointee.featurename = string(input.name)
                entry.pointee.preprocessor_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_PREPROCESSING__PREPROCESSOR_MEAN_IMAGE
                entry.pointee.meanimage = meanImage
                entries.append(entry)
            }
        }
        return entries
    }

    func metadata(_ metadata: Metadata) -> UnsafeMutablePointer<MLMetadata> {
        let message: UnsafeMutablePointer<MLMetadata> = new(core_ml__specification__metadata__init)
        if !metadata.shortDescription.isEmpty { message.pointee.shortdescription = string(metadata.shortDescription) }
        if !metadata.version.isEmpty { message.pointee.versionstring = string(metadata.version) }
        if !metadata.author.isEmpty { message.pointee.author = string(metadata.author) }
        if !metadata.license.isEmpty { message.pointee.license = string(metadata.license) }
        let pairs: [UnsafeMutablePointer<MLStringPair>] = metadata.userDefined.map { pair in
            let entry: UnsafeMutablePointer<MLStringPair> = new(core_ml__specification__string_pair__init)
            entry.pointee.key = string(pair.key)
            entry.pointee.value = string(pair.value)
            return entry
        }
        (message.pointee.n_userdefined, message.pointee.userdefined) = array(pairs)
        return message
    }

    /// A message's class-labels oneof (a classifier's, the suppression's):
    /// `strings` or `integers` sets its case and vector.
    func classLabels(_ labels: ClassLabels, strings: (UnsafeMutablePointer<MLStringVector>) -> Void,
                     integers: (UnsafeMutablePointer<MLInt64Vector>) -> Void) {
        switch labels {
        case .strings(let values): strings(stringLabels(values))
        case .integers(let values): integers(integerLabels(values))
        }
    }

    func stringLabels(_ labels: [String]) -> UnsafeMutablePointer<MLStringVector> {
        let vector: UnsafeMutablePointer<MLStringVector> = new(core_ml__specification__string_vector__init)
        (vector.pointee.n_vector, vector.pointee.vector) = strings(labels)
        return vector
    }

    func integerLabels(_ labels: [Int64]) -> UnsafeMutablePointer<MLInt64Vector> {
        let vector: UnsafeMutablePointer<MLInt64Vector> = new(core_ml__specification__int64_vector__init)
        (vector.pointee.n_vector, vector.pointee.vector) = (labels.count, arena.copy(labels))
        return vector
    }
}

import CProtobufC
import CoreMLSchema
import Protobuf

/// A small Core ML classifier built from protobuf-c's generated structs (in
/// an `Arena`) and packed by protobuf-c itself: a real `.mlmodel` encoding
/// that the tests decode, mutate, and round-trip through files.
final class TestSpec {
    let arena = Arena()
    private(set) var model: UnsafeMutablePointer<MLModel>!

    static let convWeights: [Float] = (0..<108).map { Float($0) * 0.01 - 0.5 }
    static let convBias: [Float] = [0.1, -0.2, 0.3, .nan]
    static let fcWeights: [Float] = (0..<48).map { Float($0 % 7) - 3 }
    static let fcBias: [Float] = [1, 2, 3]
    static let labels = ["cat", "dog", "ñandú"]
    static let constantHalfs: [UInt8] = [0x00, 0x3C, 0x00, 0xC0]

    init() {
        model = buildModel()
    }

    var message: UnsafePointer<ProtobufCMessage> {
        UnsafeRawPointer(model).assumingMemoryBound(to: ProtobufCMessage.self)
    }

    /// protobuf-c's encoding of the model.
    func packed() -> [UInt8] {
        Self.pack(message)
    }

    static func pack(_ message: UnsafePointer<ProtobufCMessage>) -> [UInt8] {
        let size = protobuf_c_message_get_packed_size(message)
        var out = [UInt8](repeating: 0, count: size)
        let written = out.withUnsafeMutableBufferPointer { protobuf_c_message_pack(message, $0.baseAddress) }
        precondition(written == size)
        return out
    }

    // MARK: building

    private func new<T>(_ type: T.Type, _ initialize: (UnsafeMutablePointer<T>?) -> Void) -> UnsafeMutablePointer<T> {
        arena.message(initialize)
    }

    private func strings(_ list: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        arena.copy(list.map { Optional(arena.cString($0)) })
    }

    private func pointers<T>(_ list: [UnsafeMutablePointer<T>]) -> UnsafeMutablePointer<UnsafeMutablePointer<T>?>? {
        arena.copy(list.map { Optional($0) })
    }

    private func weights(_ values: [Float]) -> UnsafeMutablePointer<WeightParams> {
        let weights = new(WeightParams.self, core_ml__specification__weight_params__init)
        weights.pointee.n_floatvalue = values.count
        weights.pointee.floatvalue = arena.copy(values)
        return weights
    }

    private func layer(_ name: String, _ inputs: [String], _ outputs: [String],
                       _ configure: (UnsafeMutablePointer<Layer>) -> Void) -> UnsafeMutablePointer<Layer> {
        let layer = new(Layer.self, core_ml__specification__neural_network_layer__init)
        layer.pointee.name = arena.cString(name)
        layer.pointee.n_input = inputs.count
        layer.pointee.input = strings(inputs)
        layer.pointee.n_output = outputs.count
        layer.pointee.output = strings(outputs)
        configure(layer)
        return layer
    }

    private func feature(_ name: String, _ configure: (UnsafeMutablePointer<CoreML__Specification__FeatureType>) -> Void)
        -> UnsafeMutablePointer<CoreML__Specification__FeatureDescription> {
        let feature = new(CoreML__Specification__FeatureDescription.self, core_ml__specification__feature_description__init)
        feature.pointee.name = arena.cString(name)
        feature.pointee.shortdescription = arena.cString("feature \(name)")
        let type = new(CoreML__Specification__FeatureType.self, core_ml__specification__feature_type__init)
        configure(type)
        feature.pointee.type = type
        return feature
    }

    private func buildModel() -> UnsafeMutablePointer<MLModel> {
        let model = new(MLModel.self, core_ml__specification__model__init)
        model.pointee.specificationversion = 4

        let description = new(CoreML__Specification__ModelDescription.self, core_ml__specification__model_description__init)
        let data = feature("data") { type in
            let image = self.new(ImageType.self, core_ml__specification__image_feature_type__init)
            image.pointee.width = 8
            image.pointee.height = 8
            image.pointee.colorspace = CORE_ML__SPECIFICATION__IMAGE_FEATURE_TYPE__COLOR_SPACE__BGR
            type.pointee.type_case = CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_IMAGE_TYPE
            type.pointee.imagetype = image
        }
        let probabilities = feature("classLabelProbs") { type in
            let dictionary = self.new(CoreML__Specification__DictionaryFeatureType.self, core_ml__specification__dictionary_feature_type__init)
            dictionary.pointee.key_type_case = CORE_ML__SPECIFICATION__DICTIONARY_FEATURE_TYPE__KEY_TYPE_STRING_KEY_TYPE
            dictionary.pointee.stringkeytype = self.new(CoreML__Specification__StringFeatureType.self,
                                                        core_ml__specification__string_feature_type__init)
            type.pointee.type_case = CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_DICTIONARY_TYPE
            type.pointee.dictionarytype = dictionary
        }
        let label = feature("classLabel") { type in
            type.pointee.type_case = CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_STRING_TYPE
            type.pointee.stringtype = self.new(CoreML__Specification__StringFeatureType.self, core_ml__specification__string_feature_type__init)
        }
        description.pointee.n_input = 1
        description.pointee.input = pointers([data])
        description.pointee.n_output = 2
        description.pointee.output = pointers([probabilities, label])
        description.pointee.predictedfeaturename = arena.cString("classLabel")
        description.pointee.predictedprobabilitiesname = arena.cString("classLabelProbs")
        let metadata = new(CoreML__Specification__Metadata.self, core_ml__specification__metadata__init)
        metadata.pointee.author = arena.cString("Tests")
        metadata.pointee.license = arena.cString("MIT")
        metadata.pointee.shortdescription = arena.cString("A test classifier")
        metadata.pointee.versionstring = arena.cString("1.2")
        let pairs: [UnsafeMutablePointer<CoreML__Specification__StringPair>] = [("source", "TestSpec"), ("k", "v")].map { key, value in
            let pair = new(CoreML__Specification__StringPair.self, core_ml__specification__string_pair__init)
            pair.pointee.key = arena.cString(key)
            pair.pointee.value = arena.cString(value)
            return pair
        }
        metadata.pointee.n_userdefined = pairs.count
        metadata.pointee.userdefined = pointers(pairs)
        description.pointee.metadata = metadata
        model.pointee.description = description

        let conv = layer("conv1", ["data"], ["conv1"]) { layer in
            let conv = self.new(ConvParams.self, core_ml__specification__convolution_layer_params__init)
            conv.pointee.outputchannels = 4
            conv.pointee.kernelchannels = 3
            conv.pointee.ngroups = 1
            conv.pointee.n_kernelsize = 2
            conv.pointee.kernelsize = self.arena.copy([3, 3] as [UInt64])
            conv.pointee.n_stride = 2
            conv.pointee.stride = self.arena.copy([2, 2] as [UInt64])
            let valid = self.new(CoreML__Specification__ValidPadding.self, core_ml__specification__valid_padding__init)
            let amounts = self.new(CoreML__Specification__BorderAmounts.self, core_ml__specification__border_amounts__init)
            let edges = (0..<2).map { _ in
                let edge = self.new(CoreML__Specification__BorderAmounts__EdgeSizes.self,
                                    core_ml__specification__border_amounts__edge_sizes__init)
                edge.pointee.startedgesize = 1
                edge.pointee.endedgesize = 1
                return edge
            }
            amounts.pointee.n_borderamounts = 2
            amounts.pointee.borderamounts = self.pointers(edges)
            valid.pointee.paddingamounts = amounts
            conv.pointee.convolution_padding_type_case = CORE_ML__SPECIFICATION__CONVOLUTION_LAYER_PARAMS__CONVOLUTION_PADDING_TYPE_VALID
            conv.pointee.valid = valid
            conv.pointee.hasbias = 1
            conv.pointee.weights = self.weights(Self.convWeights)
            conv.pointee.bias = self.weights(Self.convBias)
            layer.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CONVOLUTION
            layer.pointee.convolution = conv
        }
        let relu = layer("relu1", ["conv1"], ["relu1"]) { layer in
            let activation = self.new(CoreML__Specification__ActivationParams.self, core_ml__specification__activation_params__init)
            activation.pointee.nonlinearity_type_case = CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_RE_LU
            activation.pointee.relu = self.new(CoreML__Specification__ActivationReLU.self, core_ml__specification__activation_re_lu__init)
            layer.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_ACTIVATION
            layer.pointee.activation = activation
        }
        let pool = layer("pool1", ["relu1"], ["pool1"]) { layer in
            let pool = self.new(CoreML__Specification__PoolingLayerParams.self, core_ml__specification__pooling_layer_params__init)
            pool.pointee.type = CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_TYPE__AVERAGE
            pool.pointee.n_kernelsize = 2
            pool.pointee.kernelsize = self.arena.copy([2, 2] as [UInt64])
            pool.pointee.n_stride = 2
            pool.pointee.stride = self.arena.copy([2, 2] as [UInt64])
            let complete = self.new(CoreML__Specification__PoolingLayerParams__ValidCompletePadding.self,
                                    core_ml__specification__pooling_layer_params__valid_complete_padding__init)
            complete.pointee.n_paddingamounts = 2
            complete.pointee.paddingamounts = self.arena.copy([0, 1] as [UInt64])
            pool.pointee.pooling_padding_type_case = CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_PADDING_TYPE_INCLUDE_LAST_PIXEL
            pool.pointee.includelastpixel = complete
            pool.pointee.avgpoolexcludepadding = 1
            layer.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_POOLING
            layer.pointee.pooling = pool
        }
        let fc = layer("fc", ["pool1"], ["fc"]) { layer in
            let product = self.new(CoreML__Specification__InnerProductLayerParams.self,
                                   core_ml__specification__inner_product_layer_params__init)
            product.pointee.inputchannels = 16
            product.pointee.outputchannels = 3
            product.pointee.hasbias = 1
            product.pointee.weights = self.weights(Self.fcWeights)
            product.pointee.bias = self.weights(Self.fcBias)
            layer.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_INNER_PRODUCT
            layer.pointee.innerproduct = product
        }
        let constant = layer("const", [], ["const"]) { layer in
            let constant = self.new(CoreML__Specification__LoadConstantLayerParams.self,
                                    core_ml__specification__load_constant_layer_params__init)
            constant.pointee.n_shape = 3
            constant.pointee.shape = self.arena.copy([1, 1, 2] as [UInt64])
            let data = self.new(WeightParams.self, core_ml__specification__weight_params__init)
            data.pointee.float16value = ProtobufCBinaryData(len: Self.constantHalfs.count, data: self.arena.copy(Self.constantHalfs))
            constant.pointee.data = data
            layer.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LOAD_CONSTANT
            layer.pointee.loadconstant = constant
        }
        let softmax = layer("prob", ["fc"], ["classLabelProbs"]) { layer in
            layer.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SOFTMAX
            layer.pointee.softmax = self.new(CoreML__Specification__SoftmaxLayerParams.self,
                                             core_ml__specification__softmax_layer_params__init)
        }

        let classifier = new(CoreML__Specification__NeuralNetworkClassifier.self,
                             core_ml__specification__neural_network_classifier__init)
        let layers = [conv, relu, pool, fc, constant, softmax]
        classifier.pointee.n_layers = layers.count
        classifier.pointee.layers = pointers(layers)
        let preprocessing = new(CoreML__Specification__NeuralNetworkPreprocessing.self,
                                core_ml__specification__neural_network_preprocessing__init)
        preprocessing.pointee.featurename = arena.cString("data")
        let scaler = new(CoreML__Specification__NeuralNetworkImageScaler.self, core_ml__specification__neural_network_image_scaler__init)
        scaler.pointee.channelscale = 1.0 / 255.0
        scaler.pointee.bluebias = -0.41
        scaler.pointee.greenbias = -0.46
        scaler.pointee.redbias = -0.48
        preprocessing.pointee.preprocessor_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_PREPROCESSING__PREPROCESSOR_SCALER
        preprocessing.pointee.scaler = scaler
        classifier.pointee.n_preprocessing = 1
        classifier.pointee.preprocessing = pointers([preprocessing])
        let labels = new(CoreML__Specification__StringVector.self, core_ml__specification__string_vector__init)
        labels.pointee.n_vector = Self.labels.count
        labels.pointee.vector = strings(Self.labels)
        classifier.pointee.class_labels_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_CLASSIFIER__CLASS_LABELS_STRING_CLASS_LABELS
        classifier.pointee.stringclasslabels = labels
        classifier.pointee.labelprobabilitylayername = arena.cString("prob")
        model.pointee.type_case = CORE_ML__SPECIFICATION__MODEL__TYPE_NEURAL_NETWORK_CLASSIFIER
        model.pointee.neuralnetworkclassifier = classifier
        return model
    }
}

/// Checks that a decoded model holds what `TestSpec` put in; returns the
/// mismatches (empty when equal). With `structureOnly`, weight payloads
/// must be absent but counted.
func mismatches(_ model: MLModel, structureOnly: Bool = false) -> [String] {
    var problems: [String] = []
    func expect<T: Equatable>(_ actual: T, _ expected: T, _ what: String) {
        if actual != expected { problems.append("\(what): \(actual) != \(expected)") }
    }
    func expectFloats(_ weights: UnsafeMutablePointer<WeightParams>?, _ expected: [Float], _ what: String) {
        guard let weights else { return problems.append("\(what): missing") }
        expect(weights.pointee.n_floatvalue, expected.count, "\(what) count")
        if structureOnly {
            expect(weights.pointee.floatvalue == nil, true, "\(what) unread")
        } else {
            expect(floatBits(weights.pointee.floatvalue, weights.pointee.n_floatvalue), expected.map(\.bitPattern), what)
        }
    }
    expect(model.specificationversion, 4, "specificationVersion")
    guard let description = model.description?.pointee else { return problems + ["no description"] }
    let inputs = CArrays.array(description.input, description.n_input).map { $0!.pointee }
    expect(inputs.map { CArrays.string($0.name) }, ["data"], "inputs")
    expect(inputs.map { CArrays.string($0.shortdescription) }, ["feature data"], "input descriptions")
    if let image = inputs.first?.type?.pointee.imagetype?.pointee {
        expect([image.width, image.height], [8, 8], "image size")
        expect(image.colorspace, CORE_ML__SPECIFICATION__IMAGE_FEATURE_TYPE__COLOR_SPACE__BGR, "color space")
    } else {
        problems.append("no image type")
    }
    let outputs = CArrays.array(description.output, description.n_output).map { $0!.pointee }
    expect(outputs.map { CArrays.string($0.name) }, ["classLabelProbs", "classLabel"], "outputs")
    expect(outputs.map { $0.type!.pointee.type_case.rawValue }, [6, 3], "output types")
    expect(outputs[0].type!.pointee.dictionarytype!.pointee.key_type_case.rawValue, 2, "dictionary key type")
    expect(CArrays.string(description.predictedfeaturename), "classLabel", "predictedFeatureName")
    expect(CArrays.string(description.predictedprobabilitiesname), "classLabelProbs", "predictedProbabilitiesName")
    let metadata = description.metadata!.pointee
    expect([CArrays.string(metadata.author), CArrays.string(metadata.license), CArrays.string(metadata.shortdescription),
            CArrays.string(metadata.versionstring)],
           ["Tests", "MIT", "A test classifier", "1.2"], "metadata")
    expect(CArrays.array(metadata.userdefined, metadata.n_userdefined).map { CArrays.string($0!.pointee.key) + "=" + CArrays.string($0!.pointee.value) },
           ["source=TestSpec", "k=v"], "userDefined")

    expect(model.type_case, CORE_ML__SPECIFICATION__MODEL__TYPE_NEURAL_NETWORK_CLASSIFIER, "model type")
    guard let classifier = model.neuralnetworkclassifier?.pointee else { return problems + ["no classifier"] }
    let layers = CArrays.array(classifier.layers, classifier.n_layers).map { $0!.pointee }
    expect(layers.map { CArrays.string($0.name) }, ["conv1", "relu1", "pool1", "fc", "const", "prob"], "layer names")
    expect(layers.map { CArrays.strings($0.input, $0.n_input) }, [["data"], ["conv1"], ["relu1"], ["pool1"], [], ["fc"]], "layer inputs")
    expect(layers.map { CArrays.strings($0.output, $0.n_output) },
           [["conv1"], ["relu1"], ["pool1"], ["fc"], ["const"], ["classLabelProbs"]], "layer outputs")
    expect(layers.map(\.layer_case.rawValue), [100, 130, 120, 140, 290, 175], "layer cases")
    guard layers.count == 6 else { return problems }

    let conv = layers[0].convolution!.pointee
    expect([conv.outputchannels, conv.kernelchannels, conv.ngroups], [4, 3, 1], "conv channels")
    expect(CArrays.array(conv.kernelsize, conv.n_kernelsize), [3, 3], "conv kernel")
    expect(CArrays.array(conv.stride, conv.n_stride), [2, 2], "conv stride")
    expect(conv.convolution_padding_type_case.rawValue, 50, "conv padding case")
    let amounts = conv.valid!.pointee.paddingamounts!.pointee
    expect(CArrays.array(amounts.borderamounts, amounts.n_borderamounts).map { [$0!.pointee.startedgesize, $0!.pointee.endedgesize] },
           [[1, 1], [1, 1]], "conv padding")
    expect(conv.hasbias, 1, "conv hasBias")
    expectFloats(conv.weights, TestSpec.convWeights, "conv weights")
    expectFloats(conv.bias, TestSpec.convBias, "conv bias")

    expect(layers[1].activation!.pointee.nonlinearity_type_case.rawValue, 10, "relu")
    let pool = layers[2].pooling!.pointee
    expect(pool.type, CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_TYPE__AVERAGE, "pool type")
    expect(pool.pooling_padding_type_case.rawValue, 32, "pool padding case")
    expect(CArrays.array(pool.includelastpixel!.pointee.paddingamounts, pool.includelastpixel!.pointee.n_paddingamounts), [0, 1], "pool pads")
    expect(pool.avgpoolexcludepadding, 1, "avgPoolExcludePadding")

    let fc = layers[3].innerproduct!.pointee
    expect([fc.inputchannels, fc.outputchannels], [16, 3], "fc channels")
    expectFloats(fc.weights, TestSpec.fcWeights, "fc weights")
    expectFloats(fc.bias, TestSpec.fcBias, "fc bias")

    let constant = layers[4].loadconstant!.pointee
    expect(CArrays.array(constant.shape, constant.n_shape), [1, 1, 2], "constant shape")
    let halfs = constant.data!.pointee.float16value
    expect(halfs.len, TestSpec.constantHalfs.count, "float16 length")
    if structureOnly {
        expect(halfs.data == nil, true, "float16 unread")
    } else {
        expect(Array(UnsafeBufferPointer(start: halfs.data, count: halfs.len)), TestSpec.constantHalfs, "float16 bytes")
    }
    expect(layers[5].softmax != nil, true, "softmax params")

    let preprocessing = CArrays.array(classifier.preprocessing, classifier.n_preprocessing).map { $0!.pointee }
    expect(preprocessing.map { CArrays.string($0.featurename) }, ["data"], "preprocessing")
    let scaler = preprocessing.first!.scaler!.pointee
    expect([scaler.channelscale, scaler.bluebias, scaler.greenbias, scaler.redbias, scaler.graybias],
           [1.0 / 255.0, -0.41, -0.46, -0.48, 0], "scaler")
    expect(classifier.class_labels_case.rawValue, 100, "class labels case")
    let labels = classifier.stringclasslabels!.pointee
    expect(CArrays.strings(labels.vector, labels.n_vector), TestSpec.labels, "labels")
    expect(CArrays.string(classifier.labelprobabilitylayername), "prob", "labelProbabilityLayerName")
    return problems
}

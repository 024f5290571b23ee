/// A neural-network model as this toolkit understands it, independent of
/// any file format: what the frontends build, the passes transform, the
/// Core ML backend writes and reads, and the runtime executes.
///
/// Image preprocessing and class labels are fields here, not graph
/// operations, as they are in Core ML.
public struct Model: Equatable, Sendable {
    /// The model's inputs, in order.
    public var inputs: [Input]
    /// The model's outputs, in order. For a classifier these are the graph
    /// tensors it exposes besides the label and probabilities features.
    public var outputs: [Output]
    /// The layers in execution order; each reads tensors that an input or an
    /// earlier node produced.
    public var nodes: [Node]
    /// Class labels and the names of the classifier's features; nil for a
    /// plain neural network.
    public var classifier: Classifier?
    /// Labels, tensors and suppression of an object detector (written as a
    /// pipeline Vision reads); nil for a plain network or a classifier.
    public var detector: Detector?
    /// Author, license, description, version and user key/values.
    public var metadata: Metadata
    /// Whether the model computes in float16 (an ML Program written with
    /// float16 compute precision): the runtime rounds every layer's output
    /// to float16 (`Network`).
    public var computesInFloat16 = false

    public init(inputs: [Input], outputs: [Output], nodes: [Node], classifier: Classifier? = nil,
                detector: Detector? = nil, metadata: Metadata = Metadata()) {
        self.inputs = inputs
        self.outputs = outputs
        self.nodes = nodes
        self.classifier = classifier
        self.detector = detector
        self.metadata = metadata
    }
}

/// A model input: an image with its preprocessing, or an array.
public struct Input: Equatable, Sendable {
    public var name: String
    public var kind: Kind
    /// Free text shown to app developers (Xcode's model view).
    public var description: String

    public enum Kind: Equatable, Sendable {
        case image(ImageInput)
        /// A float32 array; shape [C] or [C, H, W], a [C] vector read as
        /// [C, 1, 1] (Core ML's rank-5 array mapping).
        case array(shape: [Int])
        /// A float32 array of any rank taken exactly as shaped (Core ML's
        /// exact array mapping, specification 4). A model with one has
        /// only such inputs.
        case tensor(shape: [Int])
    }

    public init(name: String, kind: Kind, description: String = "") {
        self.name = name
        self.kind = kind
        self.description = description
    }

    /// The image format, for an image input.
    public var image: ImageInput? {
        if case .image(let image) = kind { return image }
        return nil
    }
}

extension Model {
    /// Whether the inputs are tensors of any rank (`Input.Kind.tensor`),
    /// or images the network takes as [1, C, H, W] tensors (`ImageInput.asTensor`).
    public var hasTensorInputs: Bool {
        inputs.contains { input in
            switch input.kind {
            case .tensor: true
            case .image(let image): image.asTensor
            case .array: false
            }
        }
    }
}

/// An image input and the preprocessing Core ML applies to its pixels
/// before the first layer sees them:
/// `y = scale * x + bias[channel]`, scale first, then (when present)
/// `y -= meanImage`. Caffe's `(x - mean) * s` is `bias = -mean * s`.
public struct ImageInput: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var colorSpace: ColorSpace
    public var scale: Float
    public var redBias: Float
    public var greenBias: Float
    public var blueBias: Float
    public var grayBias: Float
    /// A [C, H, W] image subtracted from the input, in the input's channel order.
    public var meanImage: Weights?
    /// The network takes the preprocessed pixels as a [1, C, H, W] tensor
    /// (a model of tensor inputs and rank-N layers, such as a ViT's), not
    /// as a [C, H, W] map: Core ML's `RANK4_IMAGE_MAPPING` under exact
    /// array mapping, as coremltools writes an `ImageType` of a rank-4
    /// input. No layer reshapes it: Core ML gives the image that shape.
    public var asTensor: Bool

    public init(width: Int, height: Int, colorSpace: ColorSpace = .rgb, scale: Float = 1,
                redBias: Float = 0, greenBias: Float = 0, blueBias: Float = 0, grayBias: Float = 0,
                meanImage: Weights? = nil, asTensor: Bool = false) {
        self.width = width
        self.height = height
        self.colorSpace = colorSpace
        self.scale = scale
        self.redBias = redBias
        self.greenBias = greenBias
        self.blueBias = blueBias
        self.grayBias = grayBias
        self.meanImage = meanImage
        self.asTensor = asTensor
    }

    /// The largest width or height of an image input.
    public static let maximumSide = 1 << 16

    /// Channels the network sees: 1 for grayscale, 3 otherwise.
    public var channels: Int { colorSpace == .grayscale ? 1 : 3 }

    /// Whether scale and biases change anything.
    public var hasScaler: Bool {
        scale != 1 || redBias != 0 || greenBias != 0 || blueBias != 0 || grayBias != 0
    }

    /// Per-channel biases in the order the network sees the channels.
    public var channelBiases: [Float] {
        switch colorSpace {
        case .grayscale: [grayBias]
        case .rgb: [redBias, greenBias, blueBias]
        case .bgr: [blueBias, greenBias, redBias]
        }
    }
}

/// Channel order of an image input.
public enum ColorSpace: String, Equatable, Sendable, CaseIterable {
    case rgb = "RGB"
    case bgr = "BGR"
    case grayscale = "Grayscale"
}

/// A model output: a graph tensor exposed as a float array.
public struct Output: Equatable, Sendable {
    public var name: String
    /// [C] or [C, H, W] when known; empty when not stated.
    public var shape: [Int]
    public var description: String

    public init(name: String, shape: [Int] = [], description: String = "") {
        self.name = name
        self.shape = shape
        self.description = description
    }
}

/// What makes a network a classifier: labels, and the two features an app
/// reads (`classLabel`, the top label, and `classLabelProbs`, label ->
/// probability, by default).
public struct Classifier: Equatable, Sendable {
    public var labels: ClassLabels
    /// Name of the top-label feature.
    public var predictedFeatureName: String
    /// Name of the label -> probability feature; also the graph tensor that
    /// holds the probabilities.
    public var probabilitiesName: String
    /// The features' descriptions, as Xcode shows them.
    public var predictedFeatureDescription: String
    public var probabilitiesDescription: String

    public init(labels: ClassLabels, predictedFeatureName: String = "classLabel",
                probabilitiesName: String = "classLabelProbs",
                predictedFeatureDescription: String = "Most likely class label",
                probabilitiesDescription: String = "Probability of each class label") {
        self.labels = labels
        self.predictedFeatureName = predictedFeatureName
        self.probabilitiesName = probabilitiesName
        self.predictedFeatureDescription = predictedFeatureDescription
        self.probabilitiesDescription = probabilitiesDescription
    }
}

/// Class labels: strings, or integers.
public enum ClassLabels: Equatable, Sendable {
    case strings([String])
    case integers([Int64])

    public var count: Int {
        switch self {
        case .strings(let labels): labels.count
        case .integers(let labels): labels.count
        }
    }

    /// The labels as text.
    public var descriptions: [String] {
        switch self {
        case .strings(let labels): labels
        case .integers(let labels): labels.map(String.init)
        }
    }
}

/// Descriptive metadata carried into the model file.
public struct Metadata: Equatable, Sendable {
    public var author: String
    public var license: String
    public var shortDescription: String
    public var version: String
    /// Free key/value pairs, in insertion order.
    public var userDefined: [(key: String, value: String)]

    public init(author: String = "", license: String = "", shortDescription: String = "", version: String = "",
                userDefined: [(key: String, value: String)] = []) {
        self.author = author
        self.license = license
        self.shortDescription = shortDescription
        self.version = version
        self.userDefined = userDefined
    }

    public static func == (lhs: Metadata, rhs: Metadata) -> Bool {
        lhs.author == rhs.author && lhs.license == rhs.license && lhs.shortDescription == rhs.shortDescription
            && lhs.version == rhs.version && lhs.userDefined.elementsEqual(rhs.userDefined, by: { $0 == $1 })
    }
}

/// What ModelFormat knows of one kind of operation, in one place: how many
/// inputs it takes, the bounds its attributes keep, the shapes it makes,
/// the weights it holds and what `inspect` shows of it. Every `Op` has one
/// (`Op.definition`): the payload of its case, or the type `Op.defined`
/// holds. `ShapeInference`, `Validation` and `inspect` ask it instead of
/// switching over the cases, as the backend (`LayerCoding`) and the runtime
/// (`KernelMaking`) ask their conformances; the graph passes match the few
/// cases they rewrite.
///
/// A new operation is one conforming type here, reaching a graph as
/// `Op.defined(_:)`; one encode/decode pair in the backend (`LayerCoding`);
/// one kernel in the runtime (`KernelMaking`); and a test.
public protocol OpDefinition: Sendable {
    /// A short name for messages and summaries ("convolution", "matmul").
    var kindName: String { get }
    /// How many inputs the operation reads.
    var inputCounts: ClosedRange<Int> { get }
    /// Whether it takes tensors of any rank; the NeuralNetwork-era
    /// operations take rank-3 [C, H, W] ones.
    var takesAnyRank: Bool { get }
    /// Whether an operation on [C, H, W] maps also takes [1, C, H, W]
    /// tensors, as those maps with a batch axis (`ShapeInference` applies
    /// its shape rule to the maps and gives the outputs the axis back):
    /// true where Core ML's layer takes rank 4 and more on its rank-N path
    /// (convolution, pooling, normalization, padding, concat, ...), false
    /// for the layers it takes at rank 5 only (reshape, permute, constant)
    /// and those whose rank-N reading differs (inner product, deconvolution).
    var takesBatchedMaps: Bool { get }
    /// Refuses attributes out of bounds before any shape is computed from
    /// them (`AttributeBounds`: sizes at most `ShapeInference.maximumSize`,
    /// floats finite).
    /// - Throws: `ModelError` with a message that does not name the layer.
    func checkAttributes() throws(ModelError)
    /// The shapes of the outputs, given the shapes of the inputs (as many
    /// as `inputCounts` allows, of a rank it takes, each size at most
    /// `maximumSize`; possibly 0, which the caller refuses after).
    /// - Throws: `ModelError` with a message that does not name the layer.
    func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape]
    /// The weight tensors it holds, named as Core ML's fields call them,
    /// with the shapes its attributes call for.
    var weightTensors: [NamedWeights] { get }
    /// Refuses weights that do not fit the attributes; by default, each
    /// weight tensor must hold exactly the values of its shape, and some.
    /// - Throws: `ModelError` with a message that does not name the layer.
    func checkWeights() throws(ModelError)
    /// Its attributes, in a fixed order, for `inspect`.
    var attributes: [OpAttribute] { get }
    /// Multiply-accumulates of one run on these (inferred) shapes, for
    /// `inspect`; Int.max when the count overflows.
    func multiplyAccumulates(inputs: [TensorShape], outputs: [TensorShape]) -> Int
    /// Whether `other` is the same operation with the same attributes.
    func isEqual(to other: any OpDefinition) -> Bool
}

extension OpDefinition {
    public var inputCounts: ClosedRange<Int> { 1...1 }
    public var takesAnyRank: Bool { true }
    public var takesBatchedMaps: Bool { true }
    public func checkAttributes() throws(ModelError) {}
    public var weightTensors: [NamedWeights] { [] }
    public var attributes: [OpAttribute] { [] }
    public func multiplyAccumulates(inputs: [TensorShape], outputs: [TensorShape]) -> Int { 0 }

    public func checkWeights() throws(ModelError) {
        for tensor in weightTensors {
            try AttributeBounds.weights(tensor.values, count: tensor.shape.checkedProduct, tensor.name)
        }
    }
}

extension OpDefinition where Self: Equatable {
    public func isEqual(to other: any OpDefinition) -> Bool { (other as? Self) == self }
}

/// A weight tensor of an operation with its role and shape.
public struct NamedWeights: Sendable {
    public var name: String
    public var shape: [Int]
    public var values: Weights

    public init(_ name: String, shape: [Int], _ values: Weights) {
        self.name = name
        self.shape = shape
        self.values = values
    }
}

/// One attribute of an operation as `inspect` shows it: its
/// machine-readable value (every attribute appears in `--json`) and, when
/// it is worth showing in `--layers`, its text there (`kernel 7x7`).
/// Defaults (stride 1, no padding, one group, ...) and values that the
/// table's other columns already show have no text.
public struct OpAttribute: Equatable, Sendable {
    public enum Value: Equatable, Sendable {
        case int(Int)
        case ints([Int])
        case float(Float)
        case bool(Bool)
        case string(String)
        /// Top, bottom, left and right amounts.
        case edges(Edges)
    }
    public var key: String
    public var value: Value
    public var text: String?

    public init(_ key: String, _ value: Value, text: String?) {
        self.key = key
        self.value = value
        self.text = text
    }
}

/// An `OpDefinition` held by `Op`, compared by its own equality.
public struct DefinedOp: Equatable, Sendable {
    public let definition: any OpDefinition

    public init(_ definition: any OpDefinition) {
        self.definition = definition
    }

    public static func == (lhs: DefinedOp, rhs: DefinedOp) -> Bool {
        lhs.definition.isEqual(to: rhs.definition)
    }
}

extension Op {
    /// The node operation `definition`.
    public static func defined(_ definition: some OpDefinition) -> Op {
        .defined(DefinedOp(definition))
    }
}

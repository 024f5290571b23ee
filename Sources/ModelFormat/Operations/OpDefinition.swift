/// An operation whose facts live in one place: the conforming type's
/// properties are its attributes, and its conformance states how many
/// inputs it takes, the bounds its attributes keep, the shapes it makes,
/// the weights it holds and what `inspect` shows of it.
///
/// A new operation is one such type here, one encode/decode pair in the
/// backend (`LayerCoding`), one kernel in the runtime (`KernelMaking`) and
/// a test; nothing else switches over it. It reaches a graph as
/// `Op.defined(_:)`. (The NeuralNetwork-era cases of `Op` predate this and
/// keep their facts in `ShapeInference`, `AttributeChecks`, `Validation`
/// and `LayerAttributes`.)
public protocol OpDefinition: Sendable {
    /// A short name for messages and summaries ("matmul").
    var kindName: String { get }
    /// How many inputs the operation reads.
    var inputCounts: ClosedRange<Int> { get }
    /// Refuses attributes out of bounds before any shape is computed from
    /// them (sizes are at most `ShapeInference.maximumSize`, floats finite).
    /// - Throws: `ModelError` with a message that does not name the layer.
    func checkAttributes() throws(ModelError)
    /// The shapes of the outputs, given the shapes of the inputs (as many
    /// as `inputCounts` allows, each at most `maximumSize` a side).
    /// - Throws: `ModelError` with a message that does not name the layer.
    func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape]
    /// The weight tensors it holds, named as Core ML's fields call them;
    /// each must hold exactly the values its shape calls for.
    var weightTensors: [NamedWeights] { get }
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
    public func checkAttributes() throws(ModelError) {}
    public var weightTensors: [NamedWeights] { [] }
    public var attributes: [OpAttribute] { [] }
    public func multiplyAccumulates(inputs: [TensorShape], outputs: [TensorShape]) -> Int { 0 }
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

/// One attribute of an operation as `inspect` shows it: its value for
/// `--json`, and its text for the `--layers` table (nil when it is a
/// default not worth showing).
public struct OpAttribute: Equatable, Sendable {
    public enum Value: Equatable, Sendable {
        case int(Int)
        case ints([Int])
        case float(Float)
        case bool(Bool)
        case string(String)
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

    /// The operation's definition, when it is one.
    public var definition: (any OpDefinition)? {
        if case .defined(let op) = self { return op.definition }
        return nil
    }
}

extension TensorShape {
    /// `axis` (negative counts from the end) as an index into the
    /// dimensions, or nil when it is outside them.
    public func axisIndex(_ axis: Int) -> Int? {
        let index = axis < 0 ? axis + rank : axis
        return dimensions.indices.contains(index) ? index : nil
    }
}

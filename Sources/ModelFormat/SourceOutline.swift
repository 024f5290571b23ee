/// A model file as its source framework states it, read without
/// converting it: for `inspect` to show a model that parses but does not
/// convert (Netron opens anything), and to list every obstacle at once.
/// Nothing here is checked beyond parsing: shapes are as the file declares
/// them, nodes in the file's order (a cycle stays a cycle).
public struct SourceOutline: Sendable {
    /// A graph input or output as declared: `shape` nil when the file does
    /// not state one; a size is its number, its symbolic name, or `?`.
    public struct Tensor: Sendable, Equatable {
        public var name: String
        public var shape: [String]?
        /// Element type as the framework names it (`float32`, `int64`); "" when unstated.
        public var type: String

        public init(name: String, shape: [String]?, type: String) {
            self.name = name
            self.shape = shape
            self.type = type
        }

        /// `x: float32 [batch, 3, 224, 224]`.
        public var description: String {
            let dims = shape.map { "[" + $0.joined(separator: ", ") + "]" } ?? "shape not stated"
            return "\(name): \(type.isEmpty ? "" : type + " ")\(dims)"
        }
    }

    /// One node (layer) as the file states it.
    public struct Node: Sendable {
        public var name: String
        public var op: String
        public var inputs: [String]
        public var outputs: [String]

        public init(name: String, op: String, inputs: [String], outputs: [String]) {
            self.name = name
            self.op = op
            self.inputs = inputs
            self.outputs = outputs
        }
    }

    /// One reason the converter refuses the model.
    public struct Obstacle: Sendable {
        public enum Kind: String, Sendable {
            /// An op type the converter has no mapping for (`op`, `count`, first `node`).
            case unsupportedOp
            /// An attribute the op's ledger refuses (`op`, `count` nodes alike, first `node`).
            case refusedAttribute
            /// An input whose sizes the file leaves open or the converter cannot take (`input`, `option`).
            case inputShape
            /// Anything else the converter stops at (opset, names, a dangling tensor, ...).
            case other
        }

        public var kind: Kind
        /// What stands in the way, one line without the file's path.
        public var message: String
        public var op: String?
        /// How many nodes it concerns (unsupported op, refused attribute).
        public var count: Int?
        /// The (first) node concerned.
        public var node: String?
        public var input: String?
        /// The input shape that would fix it, `?` for each size to give, as
        /// text mentioning `OptionName.inputShape` (`String.namingOptions`
        /// names it: `inputShapes x=1,?,?,3`, a program's `--input-shape x=1,?,?,3`).
        public var option: String?

        public init(kind: Kind, message: String, op: String? = nil, count: Int? = nil, node: String? = nil,
                    input: String? = nil, option: String? = nil) {
            self.kind = kind
            self.message = message
            self.op = op
            self.count = count
            self.node = node
            self.input = input
            self.option = option
        }
    }

    /// The format's variant when the file tells (`Caffe V1 net`); "" otherwise.
    public var format = ""
    public var inputs: [Tensor]
    public var outputs: [Tensor]
    public var nodes: [Node]
    /// Stored weight tensors (ONNX initializers) and the values they hold, when the file says.
    public var weightTensors: Int?
    public var parameters: Int?
    /// The file's own metadata (`onnx.opset = 13`), shown as the summary's metadata lines.
    public var metadata: [(key: String, value: String)]
    /// Every obstacle found, in the order convert would meet them; never empty.
    public var obstacles: [Obstacle]

    public init(inputs: [Tensor], outputs: [Tensor], nodes: [Node], weightTensors: Int? = nil, parameters: Int? = nil,
                metadata: [(key: String, value: String)] = [], obstacles: [Obstacle]) {
        self.inputs = inputs
        self.outputs = outputs
        self.nodes = nodes
        self.weightTensors = weightTensors
        self.parameters = parameters
        self.metadata = metadata
        self.obstacles = obstacles
    }

    /// Node counts by op type, most frequent first (then by name).
    public var opCounts: [(op: String, count: Int)] {
        var counts: [String: Int] = [:]
        for node in nodes { counts[node.op, default: 0] += 1 }
        return counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { (op: $0.key, count: $0.value) }
    }
}

import ModelFormat

/// What flows along a graph edge while a graph frontend (TensorFlow, ONNX)
/// converts: a constant (stored in the file, or folded) or a model tensor.
/// The rank is the source's: 4 for an NHWC or [1, C, H, W] map the model
/// holds as [C, H, W], 2 for an [N, F] vector it holds as [F, 1, 1].
public enum GraphValue {
    case constant(GraphConstant)
    case tensor(name: String, rank: Int)
}

/// What a graph frontend's mapping sees of one node: the node, its input
/// values, and what it may emit. Each frontend adds how it reads its
/// tensors and attributes.
public protocol GraphBuilding {
    associatedtype SourceNode: GraphNode
    /// A model tensor as the frontend's mappings see it.
    associatedtype Tensor
    var node: SourceNode { get }
    /// Input `index`, which must be a tensor of the model (not a constant).
    func tensor(_ index: Int) throws -> Tensor
    /// The node's input `index`: nil past its inputs, or for one left out.
    func value(_ index: Int) -> GraphValue?
    /// The model's name for the node's (first) output.
    var name: String { get }
}

extension GraphBuilding {
    public func isConstant(_ index: Int) -> Bool {
        if case .constant? = value(index) { return true }
        return false
    }

    /// Input `index`, which must be a constant (`what` in the error).
    public func constant(_ index: Int, _ what: String) throws(SourceNode.Failure) -> GraphConstant {
        guard case .constant(let value)? = value(index) else { throw node.fail("\(what) (input \(index)) must be a constant") }
        return value
    }

    /// The tensor operand and the constant one of a two-input node (the
    /// second input tried as the constant first; `constantFirst` when it
    /// is the first); nil when neither is a constant. `role` names the
    /// constant in errors (nil: "input N").
    public func withConstant(_ role: String? = nil) throws -> (x: Tensor, c: GraphConstant, constantFirst: Bool)? {
        for (constant, tensor) in [(1, 0), (0, 1)] where isConstant(constant) {
            return (try self.tensor(tensor), try self.constant(constant, role ?? "input \(constant)"), constant == 0)
        }
        return nil
    }

    /// A node reading `inputs` that produces the source node's output (or,
    /// with a suffix, an intermediate tensor named after it).
    public func emit(_ op: Op, _ inputs: [String], suffix: String? = nil) -> Node {
        let output = suffix.map { "\(name)__\($0)" } ?? name
        return Node(name: output, operation: op, inputs: inputs, outputs: [output])
    }

    /// One node on the tensor `input`, whose output keeps its `rank`.
    public func single(_ op: Op, _ input: String, rank: Int) -> (nodes: [Node], value: GraphValue) {
        ([emit(op, [input])], .tensor(name: name, rank: rank))
    }
}

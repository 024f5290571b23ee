import FileIO
import Conversion
import ModelFormat
import Naming

/// One conversion walk over a pruned graph, in dependency order.
struct GraphWalk {
    let graph: TFGraph
    let path: String
    let inputShapes: [String: [Int]]

    /// The value of each node's output 0, by node index.
    private var values: [GraphValue?]
    /// Outputs 1, 2, ... of the nodes that have more (Split), by node index.
    private var laterOutputs: [Int: [GraphValue]] = [:]
    private var shapes: [String: TensorShape] = [:]
    private var nodes: [Node] = []
    private var inputs: [Input] = []
    private var unsupported = UnsupportedOps()
    /// Values held by the constants made so far.
    private var made = MadeValues()

    init(graph: TFGraph, path: String, inputShapes: [String: [Int]]) {
        self.graph = graph
        self.path = path
        self.inputShapes = inputShapes
        values = Array(repeating: nil, count: graph.nodes.count)
    }

    /// The value of `ref`, if its node was visited and gave one.
    private func value(of ref: TensorRef, node index: Int) -> GraphValue? {
        guard index >= 0 else { return nil }
        if ref.index == 0 { return values[index] }
        guard let later = laterOutputs[index], later.indices.contains(ref.index - 1) else { return nil }
        return later[ref.index - 1]
    }

    mutating func build(outputs requested: [TensorRef]) throws -> Model {
        // Every name the user gave must be the graph's: an --input-shape for a
        // placeholder that does not exist was once ignored without a word.
        let placeholders = graph.nodes.filter { $0.op == "Placeholder" }.map(\.name)
        for name in inputShapes.keys.sorted() where !placeholders.contains(name) {
            throw ConversionOptionError("\(option: .inputShape) '\(name)': the graph has no placeholder of that name (its placeholders: "
                                        + "\(placeholders.joined(separator: ", ")))\(suggestion(name, placeholders))")
        }
        let outputs = requested.isEmpty ? sinks() : requested
        var roots: [Int] = []
        for output in outputs {
            guard let root = graph.index[output.node] else {
                let sinks = sinks().map(\.node)
                throw ConversionOptionError("output tensor '\(output)' is not a node of the graph (its outputs without readers: "
                                            + "\(sinks.prefix(10).joined(separator: ", "))\(sinks.count > 10 ? ", ..." : ""))"
                                            + suggestion(output.node, graph.nodes.map(\.name)))
            }
            roots.append(root)
        }
        for index in try order(from: roots) {
            let name = graph.nodes[index].name
            try TensorFlowError.locating(path, node: "node '\(name)'", layer: name) { try visit(index) }
        }
        if !unsupported.isEmpty { throw TensorFlowError("\(path): \(unsupported.message())") }
        var model = Model(inputs: inputs, outputs: [], nodes: nodes)
        for (output, root) in zip(outputs, roots) {
            guard case .tensor(let tensor, _)? = value(of: output, node: root) else {
                throw TensorFlowError("\(path): output '\(output)' is a constant, not computed from an input")
            }
            let feature = TensorFlowConverter.featureName(output.description)
            if tensor != feature && !model.inputs.contains(where: { $0.name == feature }) { model.renameTensor(tensor, to: feature) }
            model.outputs.append(Output(name: feature))
        }
        guard !model.inputs.isEmpty else { throw TensorFlowError("\(path): no Placeholder feeds the outputs") }
        return model
    }

    /// "; did you mean 'x'?" for a near name among `candidates`.
    func suggestion(_ name: String, _ candidates: [String]) -> String {
        closestMatch(to: name, in: candidates, maxDistance: max(2, name.count / 3)).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// Nodes nothing reads, other than bookkeeping ops.
    func sinks() -> [TensorRef] {
        var read = [Bool](repeating: false, count: graph.nodes.count)
        for node in graph.nodes { for input in node.inputNodes where input >= 0 { read[input] = true } }
        return graph.nodes.indices.filter { !read[$0] && !["Const", "NoOp", "Assert", "Placeholder"].contains(graph.nodes[$0].op) }
            .map { TensorRef(node: graph.nodes[$0].name, index: 0) }
    }

    /// The nodes the outputs need, inputs before readers; a cycle is an error.
    func order(from roots: [Int]) throws -> [Int] {
        enum State: UInt8 { case unseen, onStack, done }
        var state = [State](repeating: .unseen, count: graph.nodes.count)
        var result: [Int] = []
        var stack: [(node: Int, next: Int)] = []  // a node and the next input to visit
        for root in roots where state[root] == .unseen {
            state[root] = .onStack
            stack.append((root, 0))
            while let (node, next) = stack.last {
                let inputs = graph.nodes[node].inputNodes
                guard next < inputs.count else {
                    state[node] = .done
                    result.append(node)
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].next += 1
                let input = inputs[next]
                guard input >= 0 else {
                    throw TensorFlowError("\(path): input '\(graph.nodes[node].inputs[next].node)' is not a node of the graph")
                }
                switch state[input] {
                case .onStack: throw TensorFlowError("\(path): the graph has a cycle through '\(graph.nodes[input].name)'")
                case .unseen:
                    state[input] = .onStack
                    stack.append((input, 0))
                case .done: break
                }
            }
        }
        return result
    }

    private mutating func visit(_ index: Int) throws {
        let node = graph.nodes[index]
        // The ledger first (DESIGN 20): an attribute the op's mapping does not
        // honour refuses the node before anything reads it. Unknown ops are
        // listed together below.
        if TFOpTable.knownOps.contains(node.op), let clause = TFOpTable.ledgers.refusal(op: node.op, present: node.renderedAttributes) {
            throw node.fail(clause)
        }
        switch node.op {
        case "Placeholder":
            values[index] = try placeholder(node)
            return
        case "Const":
            guard let tensor = node.tensor("value") else { throw node.fail("has no tensor value") }
            let constant = try TFConstant(tensor, node: node, owner: graph.decoded, inMappedFile: graph.payloadsLieInFile)
            try count(constant, node)
            values[index] = .constant(constant)
            return
        case "NoOp":
            return
        default:
            break
        }
        let multiple = TFOpTable.multipleOutputMappings[node.op]
        if TFOpTable.mappings[node.op] == nil && multiple == nil && !ConstantEvaluator.foldable.contains(node.op) {
            unsupported.add(node.op, node: node.name)
            return
        }
        var arguments: [GraphValue] = []
        for (input, producer) in zip(node.inputs, node.inputNodes) {
            guard let value = value(of: input, node: producer) else {
                if unsupported.isEmpty { throw node.fail("input '\(input)' has no value (output \(input.index) is not supported)") }
                return  // an unsupported producer: already reported
            }
            arguments.append(value)
        }
        if node.op == "Shape", case .tensor(let name, let rank)? = arguments.first {
            let s = shapes[name]!
            // A map [1, H, W, C]; a vector [1, F]; the rows of a map (Tensordot's reshape) [H * W, C].
            let pixels = s.height * s.width
            values[index] = .constant(TFConstant(vector: rank == 4 ? [1, s.height, s.width, s.channels]
                                                 : pixels > 1 ? [pixels, s.channels] : [1, s.count]))
            return
        }
        let constants = arguments.compactMap { if case .constant(let c) = $0 { c } else { nil } }
        if constants.count == arguments.count, !arguments.isEmpty, let folded = try ConstantEvaluator.evaluate(node, constants, budget: made.remaining) {
            try count(folded, node)
            values[index] = .constant(folded)
            return
        }
        if let multiple {
            guard unsupported.isEmpty else { return }
            try node.requireFloat32()
            let (emitted, outputs) = try multiple(TFBuilder(node: node, inputs: arguments, shapes: shapes))
            try ShapeInference.append(emitted, to: &nodes, shapes: &shapes)
            values[index] = outputs.first
            laterOutputs[index] = Array(outputs.dropFirst())
            return
        }
        guard let mapping = TFOpTable.mappings[node.op] else {
            unsupported.add(node.op, node: node.name)
            return
        }
        guard unsupported.isEmpty else { return }  // keep collecting unsupported ops only
        try node.requireFloat32()
        let (emitted, value) = try mapping(TFBuilder(node: node, inputs: arguments, shapes: shapes))
        try ShapeInference.append(emitted, to: &nodes, shapes: &shapes)
        values[index] = value
    }

    /// Adds a constant's values to what this conversion holds in memory.
    private mutating func count(_ constant: TFConstant, _ node: TFNode) throws {
        do { try made.add(constant) } catch { throw node.fail(error.message) }
    }

    private mutating func placeholder(_ node: TFNode) throws -> GraphValue {
        guard var shape = inputShapes[node.name] ?? node.shape("shape") else {
            throw node.fail("has no static shape: give one with \(option: .inputShape) \(node.name)=1,H,W,C")
        }
        if let declared = node.shape("shape"), inputShapes[node.name] != nil, declared.count == shape.count,
           zip(declared, shape).contains(where: { $0 >= 0 && $0 != $1 }) {
            throw node.fail("\(option: .inputShape) \(shape) does not match the graph's \(declared)")
        }
        if shape.first == -1 { shape[0] = 1 }
        guard shape.first == 1, shape.dropFirst().allSatisfy({ $0 > 0 }), shape.count == 4 || shape.count == 2 else {
            throw node.fail("shape \(shape) is not [1, H, W, C] or [1, N] with known sizes (give \(option: .inputShape) \(node.name)=1,H,W,C)")
        }
        let name = TensorFlowConverter.featureName(node.name)
        let dims = shape.count == 4 ? [shape[3], shape[1], shape[2]] : [shape[1]]
        inputs.append(Input(name: name, kind: .array(shape: dims)))
        shapes[name] = TensorShape(featureShape: dims)
        return .tensor(name: name, rank: shape.count)
    }
}

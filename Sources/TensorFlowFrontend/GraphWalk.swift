import ModelFormat

/// One conversion walk over a pruned graph, in dependency order.
struct GraphWalk {
    let graph: TFGraph
    let path: String
    let inputShapes: [String: [Int]]

    private var values: [TensorRef: TFValue] = [:]
    private var shapes: [String: TensorShape] = [:]
    private var nodes: [Node] = []
    private var inputs: [Input] = []
    private var unsupported: [String: [String]] = [:]

    init(graph: TFGraph, path: String, inputShapes: [String: [Int]]) {
        self.graph = graph
        self.path = path
        self.inputShapes = inputShapes
    }

    mutating func build(outputs requested: [TensorRef]) throws -> Model {
        let outputs = requested.isEmpty ? sinks() : requested
        for output in outputs where graph.nodes[output.node] == nil {
            throw TensorFlowError("\(path): output '\(output)' is not a node of the graph")
        }
        for name in try order(from: outputs.map(\.node)) {
            do {
                try visit(graph.nodes[name]!)
            } catch let error as TensorFlowError {
                throw TensorFlowError("\(path): \(error.message)")
            } catch let error as ModelError {
                throw TensorFlowError("\(path): node '\(name)': \(error.message)")
            }
        }
        if !unsupported.isEmpty {
            let list = unsupported.sorted { $0.key < $1.key }.map { op, names in
                "\(op) (\(names.prefix(3).joined(separator: ", "))\(names.count > 3 ? ", and \(names.count - 3) more" : ""))"
            }
            throw TensorFlowError("\(path): unsupported ops: \(list.joined(separator: "; "))")
        }
        var model = Model(inputs: inputs, outputs: [], nodes: nodes)
        for output in outputs {
            guard case .tensor(let tensor, _)? = values[output] else {
                throw TensorFlowError("\(path): output '\(output)' is a constant, not computed from an input")
            }
            let feature = TensorFlowConverter.featureName(output.description)
            if tensor != feature && !model.inputs.contains(where: { $0.name == feature }) { model.renameTensor(tensor, to: feature) }
            model.outputs.append(Output(name: feature))
        }
        guard !model.inputs.isEmpty else { throw TensorFlowError("\(path): no Placeholder feeds the outputs") }
        return model
    }

    /// Nodes nothing reads, other than bookkeeping ops.
    func sinks() -> [TensorRef] {
        let read = Set(graph.nodes.values.flatMap { $0.inputs.map(\.node) })
        return graph.order.filter { !read.contains($0) && !["Const", "NoOp", "Assert", "Placeholder"].contains(graph.nodes[$0]!.op) }
            .map { TensorRef(node: $0, index: 0) }
    }

    /// The nodes the outputs need, inputs before readers; a cycle is an error.
    func order(from roots: [String]) throws -> [String] {
        var state: [String: Bool] = [:]  // false: on the stack, true: done
        var result: [String] = []
        // Each entry: a node, its inputs (looked up once), the next to visit.
        var stack: [(name: String, inputs: [TensorRef], next: Int)] = []
        func push(_ name: String) throws {
            guard let node = graph.nodes[name] else { throw TensorFlowError("\(path): input '\(name)' is not a node of the graph") }
            state[name] = false
            stack.append((name, node.inputs, 0))
        }
        for root in roots where state[root] == nil {
            try push(root)
            while let top = stack.indices.last {
                let (name, inputs, next) = stack[top]
                if next < inputs.count {
                    stack[top].next += 1
                    let input = inputs[next].node
                    switch state[input] {
                    case false?: throw TensorFlowError("\(path): the graph has a cycle through '\(input)'")
                    case nil: try push(input)
                    case true?: break
                    }
                } else {
                    state[name] = true
                    result.append(name)
                    stack.removeLast()
                }
            }
        }
        return result
    }

    private mutating func visit(_ node: TFNode) throws {
        let ref = TensorRef(node: node.name, index: 0)
        switch node.op {
        case "Placeholder":
            values[ref] = try placeholder(node)
            return
        case "Const":
            guard let tensor = node.tensor("value") else { throw node.fail("has no tensor value") }
            values[ref] = .constant(try TFConstant(tensor, node: node, owner: graph.decoded, inMappedFile: graph.payloadsLieInFile))
            return
        case "NoOp":
            return
        default:
            break
        }
        if TFOpTable.mappings[node.op] == nil && !ConstantEvaluator.foldable.contains(node.op) {
            unsupported[node.op, default: []].append(node.name)
            return
        }
        var arguments: [TFValue] = []
        for input in node.inputs {
            guard let value = values[input] else {
                if unsupported.isEmpty { throw node.fail("input '\(input)' has no value (output \(input.index) is not supported)") }
                return  // an unsupported producer: already reported
            }
            arguments.append(value)
        }
        if node.op == "Shape", case .tensor(let name, let rank)? = arguments.first {
            let s = shapes[name]!
            values[ref] = .constant(TFConstant(vector: rank == 4 ? [1, s.height, s.width, s.channels] : [1, s.count]))
            return
        }
        let constants = arguments.compactMap { if case .constant(let c) = $0 { c } else { nil } }
        if constants.count == arguments.count, !arguments.isEmpty, let folded = try ConstantEvaluator.evaluate(node, constants) {
            values[ref] = .constant(folded)
            return
        }
        guard let mapping = TFOpTable.mappings[node.op] else {
            unsupported[node.op, default: []].append(node.name)
            return
        }
        guard unsupported.isEmpty else { return }  // keep collecting unsupported ops only
        let (emitted, value) = try mapping(TFBuilder(node: node, inputs: arguments, shapes: shapes))
        for emittedNode in emitted {
            let produced = try ShapeInference.checkedOutputShapes(of: emittedNode, inputs: emittedNode.inputs.map { shapes[$0]! })
            for (name, shape) in zip(emittedNode.outputs, produced) { shapes[name] = shape }
            nodes.append(emittedNode)
        }
        values[ref] = value
    }

    private mutating func placeholder(_ node: TFNode) throws -> TFValue {
        guard var shape = inputShapes[node.name] ?? node.shape("shape") else {
            throw node.fail("has no static shape: give one with --input \(node.name)=1,H,W,C")
        }
        if let declared = node.shape("shape"), inputShapes[node.name] != nil, declared.count == shape.count,
           zip(declared, shape).contains(where: { $0 >= 0 && $0 != $1 }) {
            throw node.fail("--input shape \(shape) does not match the graph's \(declared)")
        }
        if shape.first == -1 { shape[0] = 1 }
        guard shape.first == 1, shape.dropFirst().allSatisfy({ $0 > 0 }), shape.count == 4 || shape.count == 2 else {
            throw node.fail("shape \(shape) is not [1, H, W, C] or [1, N] with known sizes (give --input \(node.name)=1,H,W,C)")
        }
        let name = TensorFlowConverter.featureName(node.name)
        let dims = shape.count == 4 ? [shape[3], shape[1], shape[2]] : [shape[1]]
        inputs.append(Input(name: name, kind: .array(shape: dims)))
        shapes[name] = TensorShape(dimensions: dims)
        return .tensor(name: name, rank: shape.count)
    }
}

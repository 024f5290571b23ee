import Conversion
import FileIO
import ModelFormat
import Naming

/// Converts an ONNX model (`.onnx`, PyTorch's export format) to the model
/// spec, on the model's opset (9 to 21): initializers are constants, the
/// nodes whose inputs are all constants fold (the shape arithmetic around
/// Reshape, once input shapes are known), every other node maps through
/// the op table; float32 initializers stay in the mapped file (or mapped
/// external data files) until the writer streams them. Unsupported ops are
/// all reported together, with their counts and node names.
public enum ONNXConverter {
    /// An input's shape, as `--input-shape name=1,3,224,224` gives it (for
    /// symbolic dimensions; a symbolic batch is 1 without it).
    public typealias InputShape = Conversion.InputShape

    /// The file's own metadata goes into the model's (what options do not
    /// set): its doc_string as the description, its metadata_props, and
    /// where it came from (`onnx.producer`, `onnx.opset`) as user-defined entries.
    public static func convert(model path: String, inputs: [InputShape] = [], options: ConversionOptions = ConversionOptions()) throws -> Model {
        var options = options
        var model = try { () throws -> Model in
            let graph = try ONNXGraph(path: path)
            var entries = graph.metadata + [("onnx.opset", String(graph.opset))]
            if !graph.producer.isEmpty { entries.append(("onnx.producer", graph.producer)) }
            for (key, value) in entries where !options.metadata.userDefined.contains(where: { $0.key == key }) {
                options.metadata.userDefined.append((key: key, value: value))
            }
            if options.metadata.shortDescription.isEmpty { options.metadata.shortDescription = graph.documentation }
            guard ONNXGraph.supportedOpsets.contains(graph.opset) else {
                throw ONNXError("\(path): opset \(graph.opset) is not supported (opsets \(ONNXGraph.supportedOpsets.lowerBound) to \(ONNXGraph.supportedOpsets.upperBound))")
            }
            let shapes = Dictionary(inputs.map { ($0.name, $0.shape) }) { a, _ in a }
            // Maps and vectors on Core ML's classic layers where the whole graph fits them (any
            // Core ML version); else every [1, C, H, W] value a tensor (rank-N layers, iOS 13).
            do {
                var walk = ONNXWalk(graph: graph, path: path, inputShapes: shapes, tensorModel: false)
                return try walk.build()
            } catch is ONNXNeedsTensors {
                var walk = ONNXWalk(graph: graph, path: path, inputShapes: shapes, tensorModel: true)
                do { return try walk.build() } catch let needs as ONNXNeedsTensors { throw ONNXError("\(path): \(needs.error.message)") }
            }
        }()
        try options.finish(&model, convertedFrom: "ONNX model", source: path)
        return model
    }
}

/// One conversion walk over the graph's nodes, in their order (ONNX
/// requires topological order; a node reading an unknown name is an error).
struct ONNXWalk {
    let graph: ONNXGraph
    let path: String
    let inputShapes: [String: [Int]]

    private var values: [String: GraphValue] = [:]
    private var shapes: [String: TensorShape] = [:]
    private var nodes: [Node] = []
    private var inputs: [Input] = []
    /// Whether rank-4 inputs are tensors, so that every [1, C, H, W] value
    /// is one: a walk over maps that meets an operation Core ML has only on
    /// tensors stops (`ONNXNeedsTensors`) and the converter walks again so.
    let tensorModel: Bool
    /// Tensor name -> the indices of the nodes that read it.
    private var consumers: [String: [Int]] = [:]
    /// Nodes folded into an earlier one (GELU's Erf, Add and Muls).
    private var skipped: Set<Int> = []
    /// The nodes the table cannot take, by op type.
    private var unsupported = UnsupportedOps()
    private var made = MadeValues()

    init(graph: ONNXGraph, path: String, inputShapes: [String: [Int]], tensorModel: Bool = false) {
        self.graph = graph
        self.path = path
        self.inputShapes = inputShapes
        self.tensorModel = tensorModel
    }

    mutating func build() throws -> Model {
        let names = graph.inputs.map(\.name)
        for name in inputShapes.keys.sorted() where !names.contains(name) {
            throw ConversionOptionError("\(option: .inputShape) '\(name)': the model has no input of that name (its inputs: \(names.joined(separator: ", ")))"
                                        + (closestMatch(to: name, in: names, maxDistance: max(2, name.count / 3)).map { "; did you mean '\($0)'?" } ?? ""))
        }
        // Every op the table cannot take, listed at once before anything else is checked.
        findUnsupported()
        if !unsupported.isEmpty { throw ONNXError("\(path): \(unsupported.message())") }
        for input in graph.inputs { try addInput(input) }
        for (name, tensor) in graph.initializers {
            values[name] = .constant(try ONNXConstant(tensor, owner: graph.decoded, folder: graph.folder, what: "\(path): initializer '\(name)'"))
        }
        // Constant nodes first (they read nothing): a fusion looks at constants written after it starts.
        for (index, node) in graph.nodes.enumerated() where node.op == "Constant" {
            do {
                try visit(node)
            } catch let error as ONNXError {
                throw ONNXError("\(path): \(error.message)")
            }
            skipped.insert(index)
        }
        for (index, node) in graph.nodes.enumerated() where !skipped.contains(index) {
            try ONNXError.locating(path, node: "node '\(node.name)' (\(node.op))", layer: node.outputs.first ?? node.name) {
                if node.op == "Div", try fuseGELU(at: index) { return }
                if node.op == "Erf" { throw node.fail("is supported only as part of GELU's x * 0.5 * (1 + erf(x / sqrt(2)))") }
                try visit(node)
            }
        }
        var model = Model(inputs: inputs, outputs: [], nodes: nodes)
        for output in graph.outputs {
            guard case .tensor(let tensor, _)? = values[output] else {
                throw ONNXError("\(path): output '\(output)' is \(values[output] == nil ? "not computed by any node" : "a constant, not computed from an input")")
            }
            let feature = FeatureName.sanitized(output)
            if tensor != feature && !model.inputs.contains(where: { $0.name == feature }) { model.renameTensor(tensor, to: feature) }
            model.outputs.append(Output(name: feature))
        }
        guard !model.inputs.isEmpty else { throw ONNXError("\(path): the model has no inputs") }
        return model
    }

    /// Fills `consumers`, and `unsupported` with every node the table
    /// cannot take (an Erf is taken when it is part of a GELU); returns
    /// them.
    @discardableResult
    mutating func findUnsupported() -> UnsupportedOps {
        for (index, node) in graph.nodes.enumerated() { for input in Set(node.inputs) where !input.isEmpty { consumers[input, default: []].append(index) } }
        let fusable = Set(graph.nodes.indices.compactMap { geluChain(at: $0)?.members.first })  // the Erf of each GELU
        for (index, node) in graph.nodes.enumerated() where !Self.isKnown(node) && !fusable.contains(index) {
            unsupported.add(Self.opName(node), node: node.name)
        }
        return unsupported
    }

    /// GELU as exporters spell it out: Div(x, sqrt 2) -> Erf -> Add 1 ->
    /// Mul by x -> Mul 0.5 (TorchScript), or -> Mul 0.5 -> Mul by x
    /// (dynamo), each read only by the next. Returns x, the Erf, Add and
    /// Mul nodes, the constants' names and the final output.
    private func geluChain(at index: Int) -> (x: String, members: [Int], constants: [String], output: String)? {
        let nodes = graph.nodes
        func only(_ name: String, _ op: String) -> Int? {
            guard let readers = consumers[name], readers.count == 1, nodes[readers[0]].op == op else { return nil }
            return readers[0]
        }
        let div = nodes[index]
        guard div.op == "Div", div.inputs.count == 2, div.outputs.count == 1, let erf = only(div.outputs[0], "Erf"),
              let add = only(nodes[erf].outputs[0], "Add"), let mul = only(nodes[add].outputs[0], "Mul"),
              let half = only(nodes[mul].outputs[0], "Mul") else { return nil }
        let x = div.inputs[0]
        let one = nodes[add].inputs.first { $0 != nodes[erf].outputs[0] }
        // The first Mul's other input, and the second's.
        let first = nodes[mul].inputs.first { $0 != nodes[add].outputs[0] }, second = nodes[half].inputs.first { $0 != nodes[mul].outputs[0] }
        guard nodes[mul].inputs.count == 2, nodes[half].inputs.count == 2, let one, let first, let second else { return nil }
        let halfInput: String
        if first == x { halfInput = second } else if second == x { halfInput = first } else { return nil }
        return (x, [erf, add, mul, half], [div.inputs[1], one, halfInput], nodes[half].outputs[0])
    }

    /// The chain at `index` as one GELU node, when its constants are
    /// sqrt(2), 1 and 0.5.
    private mutating func fuseGELU(at index: Int) throws -> Bool {
        guard let chain = geluChain(at: index), case .tensor(let name, let rank)? = values[chain.x] else { return false }
        let expected: [Double] = [Double(2).squareRoot(), 1, 0.5]
        for (constant, value) in zip(chain.constants, expected) {
            guard case .constant(let c)? = values[constant], c.isScalar, abs(c[0] - value) <= 1e-6 * value else { return false }
        }
        for member in [index] + chain.members { if let refusal = ONNXLedgers.refusal(for: graph.nodes[member]) { throw refusal } }
        let gelu = Node(name: chain.output, operation: .defined(GELU(mode: .exact)), inputs: [name], outputs: [chain.output])
        try ShapeInference.append([gelu], to: &nodes, shapes: &shapes)
        values[chain.output] = .tensor(name: chain.output, rank: rank)
        skipped.formUnion(chain.members)
        return true
    }

    static func isKnown(_ node: ONNXNode) -> Bool {
        (node.domain.isEmpty || node.domain == "ai.onnx") && (ONNXOpTable.mappings[node.op] != nil || ONNXOpTable.multiOutput[node.op] != nil
                                                               || ONNXFolding.foldable.contains(node.op))
    }

    static func opName(_ node: ONNXNode) -> String {
        node.domain.isEmpty || node.domain == "ai.onnx" ? node.op : "\(node.domain).\(node.op)"
    }

    /// [1, C, H, W] or [1, F] with every size known (a symbolic batch is 1).
    private mutating func addInput(_ input: ONNXInput) throws {
        let shape = try checkedShape(input)
        let name = FeatureName.sanitized(input.name)
        if shape.count == 3 || shape.count == 5 || (shape.count == 4 && tensorModel) {
            // A sequence ([1, T, D]) or volume: a tensor input, taken exactly as shaped (Core ML's rank-N layers).
            inputs.append(Input(name: name, kind: .tensor(shape: shape)))
            shapes[name] = TensorShape(shape)
            values[input.name] = .tensor(name: name, rank: shape.count)
            return
        }
        let model = shape.count == 4 ? Array(shape.dropFirst()) : [shape[1]]
        inputs.append(Input(name: name, kind: .array(shape: model)))
        shapes[name] = TensorShape(featureShape: model)
        values[input.name] = .tensor(name: name, rank: shape.count)
    }

    /// The input's shape as the converter takes it: declared, or as
    /// `--input` gives it, batch 1, every size known, rank 2 to 5.
    func checkedShape(_ input: ONNXInput) throws -> [Int] {
        var dims = input.dims
        // A converted model takes one input at a time: a batch other than 1 cannot be given or declared.
        if case .some(.some(let batch)) = dims.first, batch != 1 {
            let text = input.dims.map { $0.map(String.init) ?? "?" }.joined(separator: ", ")
            throw ONNXError("\(path): input '\(input.name)' has batch \(batch) ([\(text)]); only batch 1 is supported (the converted model takes one input at a time)")
        }
        if let given = inputShapes[input.name] {
            guard given.count == dims.count || dims.isEmpty else {
                throw ConversionOptionError("\(option: .inputShape) \(input.name): \(given.count) sizes for an input of rank \(dims.count)")
            }
            if let batch = given.first, batch != 1 {
                throw ConversionOptionError("\(option: .inputShape) \(input.name): batch \(batch) is not supported; the converted model takes one input at a time (batch 1: \(option: .inputShape) \(input.name)=1"
                                            + given.dropFirst().map { ",\($0)" }.joined() + ")")
            }
            for (index, (declared, size)) in zip(dims, given).enumerated() where declared != nil && declared != size {
                throw ConversionOptionError("\(option: .inputShape) \(input.name): size \(size) at axis \(index) differs from the model's \(declared!)")
            }
            dims = given.map { $0 }
        }
        if case .some(.none) = dims.first { dims[0] = 1 }  // a symbolic batch
        guard input.elementType == 1 || input.elementType == 0 else {
            throw ONNXError("\(path): input '\(input.name)' holds elements of type \(input.elementType), not float32")
        }
        let shape = dims.compactMap { $0 }
        guard shape.count == dims.count, shape.first == 1, shape.dropFirst().allSatisfy({ $0 > 0 && $0 <= 1 << 20 }),
              (2...5).contains(shape.count) else {
            throw inputShapeError(input, dims: dims, given: inputShapes[input.name] != nil)
        }
        return shape
    }

    /// Why an input's shape (`dims`: as declared, or as `--input-shape` gave it)
    /// cannot be converted, with a hint only when `--input-shape` can help: the
    /// sizes the model leaves open, never the ones it or the user gave.
    private func inputShapeError(_ input: ONNXInput, dims: [Int?], given: Bool) -> any Error {
        let text = dims.map { $0.map(String.init) ?? "?" }.joined(separator: ", ")
        let fail = { (reason: String) -> any Error in
            given ? ConversionOptionError("\(option: .inputShape) \(input.name): the shape [\(text)]: \(reason)")
                  : ONNXError("\(path): input '\(input.name)' has the shape [\(text)]: \(reason)")
        }
        if dims.isEmpty {
            return fail("its rank is not declared: give every size, batch 1, with \(option: .inputShape) \(input.name)=1,3,224,224 (say)")
        }
        guard (2...5).contains(dims.count) else {
            return fail("rank \(dims.count) is not converted (inputs of rank 2 to 5 are: [1, F], [1, T, D], [1, C, H, W], [1, D, C, H, W])")
        }
        if let bad = dims.dropFirst().firstIndex(where: { $0.map { $0 <= 0 || $0 > 1 << 20 } ?? false }) {
            return fail("size \(dims[bad]!) at axis \(bad) is not 1 to \(1 << 20)")
        }
        let open = dims.indices.filter { dims[$0] == nil }.map(String.init)
        let example = dims.enumerated().map { index, size in index == 0 ? "1" : size.map(String.init) ?? "?" }.joined(separator: ",")
        return fail("the size\(open.count == 1 ? " at axis" : "s at axes") \(open.joined(separator: ", ")) \(open.count == 1 ? "is" : "are") open: "
                    + "give \(open.count == 1 ? "it" : "them"), batch 1, with \(option: .inputShape) \(input.name)=\(example) (each ? a size)")
    }

    private mutating func visit(_ node: ONNXNode) throws {
        guard let output = node.outputs.first, !output.isEmpty else { throw node.fail("has no output") }
        // ONNX graphs are single-assignment: a name written twice (or over an input) is not one.
        for name in node.outputs where values[name] != nil || node.outputs.filter({ $0 == name && !$0.isEmpty }).count > 1 {
            throw node.fail("writes '\(name)', which an input, initializer, earlier node or its other output gives already")
        }
        // Every attribute honoured or refused, before anything is folded or mapped.
        if let refusal = ONNXLedgers.refusal(for: node) { throw refusal }
        let mapping = ONNXOpTable.mappings[node.op]
        var arguments: [GraphValue?] = []
        for input in node.inputs {
            if input.isEmpty { arguments.append(nil); continue }  // an optional input left out
            guard let value = values[input] else { throw node.fail("reads '\(input)', which no earlier node or initializer gives") }
            arguments.append(value)
        }
        if node.op == "Shape", case .tensor(let name, let rank)?? = arguments.first {
            let s = shapes[name]!
            values[output] = .constant(ONNXConstant(vector: ONNXFolding.shapeSlice(ONNXTensor.dims(of: s, rank: rank), node)))
            return
        }
        let builder = ONNXBuilder(node: node, inputs: arguments, shapes: shapes, opset: graph.opset)
        let allConstant = arguments.allSatisfy { value in if case .tensor? = value { false } else { true } }
        if allConstant, ONNXFolding.foldable.contains(node.op), let folded = try ONNXFolding.evaluate(node, builder.constants, graph: graph, budget: made.remaining) {
            do { try made.add(folded) } catch { throw node.fail(error.message) }
            values[output] = .constant(folded)
            return
        }
        if let multiple = ONNXOpTable.multiOutput[node.op] {
            // Every output a value; a part no node reads and the graph does not output is not made.
            let (emitted, made) = try multiple(builder)
            let needed = emitted.filter { $0.outputs.contains { consumers[$0] != nil || graph.outputs.contains($0) || !node.outputs.contains($0) } }
            try ShapeInference.append(needed, to: &nodes, shapes: &shapes)
            for (name, value) in zip(node.outputs, made) where !name.isEmpty { values[name] = value }
            return
        }
        guard let mapping else {
            throw node.fail("is supported only on constants, and an input is computed from the model's input")
        }
        let (emitted, value) = try mapping(builder)
        try ShapeInference.append(emitted, to: &nodes, shapes: &shapes)
        values[output] = value
    }
}

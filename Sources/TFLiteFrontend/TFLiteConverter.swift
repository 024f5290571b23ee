import Conversion
import ModelFormat

/// Converts a TFLite model (`.tflite`: float, float16 or quantized; TensorFlow's TFLiteConverter or
/// LiteRT) to the model spec: the first subgraph's operators in order, NHWC
/// tensors as Core ML's [C, H, W] maps and [1, N] tensors as [N] vectors,
/// kernels moved once to Core ML's layouts (`NHWCLayout`), read from the
/// mapped file. Quantized activations are computed in float; UINT8 and
/// INT8 graph inputs and outputs are dequantized (`TFLiteQuantizedFeature`).
/// The model's TFLite metadata gives the class labels, the image input's
/// normalization and the descriptions the options do not (`TFLiteMetadata.apply`).
public enum TFLiteConverter {
    /// - Throws: `TFLiteError` (with the byte, for a malformed file; with the
    ///   operator, for one the converter cannot map), `FileError`, `ModelError`.
    public static func convert(model path: String, options: ConversionOptions = ConversionOptions()) throws -> Model {
        let file = try TFLiteModel(path: path)
        var walk = try TFLiteWalk(file: file)
        var model = try walk.build()
        var options = options
        if let note = walk.weightNote { options.metadata.userDefined.append(("tflite.weights", note)) }
        let metadata = try TFLiteMetadata.read(file)
        try TFLiteQuantizedFeature.apply(inputs: walk.quantizedInputs, outputs: walk.quantizedOutputs, metadata: metadata, to: &options, path: path)
        try metadata?.apply(to: &options, model: &model, path: path)
        try options.finish(&model, convertedFrom: "TFLite model", source: path)
        return model
    }
}

/// One pass over the first subgraph's operators, in their order (TFLite
/// stores them in execution order; an operator reading a tensor nothing
/// produced yet is an error).
struct TFLiteWalk {
    let file: TFLiteModel
    let graph: TFLiteModel.Subgraph
    /// The IR name of each tensor, by index (unique: a TFLite name may repeat).
    let names: [String]
    var nodes: [Node] = []
    var shapes: [String: TensorShape] = [:]
    /// 4 for [1, H, W, C] maps, 2 for [1, N] vectors.
    var ranks: [Int: Int] = [:]
    /// Tensors that stand for another (a reshape that changes nothing).
    var alias: [Int: Int] = [:]
    /// The operators the outputs need (`TFLiteWalk.neededOperators`).
    let needed: Set<Int>
    /// DEQUANTIZE outputs folded into their constant input (float16
    /// weights): output tensor -> the constant, widened where it is read.
    var folded: [Int: Int] = [:]
    /// How many weight tensors of each stored kind were widened to float32,
    /// and how many int8 ones stay 8-bit (`TFLiteQuantizedWeights`).
    var widened: [String: Int] = [:]
    var keptInt8 = 0
    /// Activations stored quantized (computed in float here), and the
    /// QUANTIZE and DEQUANTIZE operators between them and float ones.
    var quantizedActivations: [String: Int] = [:]
    var droppedQuantizations = 0
    /// Graph inputs and outputs of UINT8 or INT8 levels (`TFLiteQuantizedFeature`).
    var quantizedInputs: [TFLiteQuantizedFeature] = []
    var quantizedOutputs: [TFLiteQuantizedFeature] = []

    init(file: TFLiteModel) throws {
        guard let graph = file.subgraphs.first else { throw TFLiteError("\(file.path): the model has no subgraph") }
        if file.subgraphs.count > 1 {
            throw TFLiteError("\(file.path): the model has \(file.subgraphs.count) subgraphs (control flow or signatures); one is supported")
        }
        self.file = file
        self.graph = graph
        var seen = Set<String>()
        names = graph.tensors.map { tensor in
            let base = tensor.name.isEmpty ? "tensor_\(tensor.index)" : tensor.name
            return seen.insert(base).inserted ? base : "\(base)__\(tensor.index)"
        }
        needed = Self.neededOperators(graph, codes: file.operatorCodes)
    }

    /// The operators the graph's outputs read, through every input but a
    /// RESHAPE's shape (input 1): the reshape takes the output shape the
    /// file states, so the shape arithmetic a Flatten of Keras leaves
    /// (SHAPE, STRIDED_SLICE, PACK on int32 tensors) is not converted.
    static func neededOperators(_ graph: TFLiteModel.Subgraph, codes: [TFLiteModel.OperatorCode]) -> Set<Int> {
        var producer: [Int32: Int] = [:]
        for op in graph.operators { for output in op.outputs where producer[output] == nil { producer[output] = op.index } }
        var needed = Set<Int>()
        var pending = graph.outputs.compactMap { producer[$0] }
        while let index = pending.popLast() {
            guard needed.insert(index).inserted else { continue }
            let op = graph.operators[index]
            let isReshape = op.opcodeIndex < codes.count && codes[op.opcodeIndex].builtin == 22
            for (position, input) in op.inputs.enumerated() where !(isReshape && position == 1) {
                if let source = producer[input] { pending.append(source) }
            }
        }
        return needed
    }

    func fail(_ message: String) -> TFLiteError { TFLiteError("\(file.path): \(message)") }

    func tensor(_ index: Int32, _ what: String) throws -> TFLiteModel.Tensor {
        guard index >= 0, Int(index) < graph.tensors.count else {
            throw fail("\(what) is tensor \(index), and subgraph 0 has \(graph.tensors.count) tensors")
        }
        return graph.tensors[Int(index)]
    }

    /// An activation's refusal clause, nil when it converts: FLOAT32, or
    /// INT8 / UINT8 with one scale (a full-integer model's), computed in float.
    static func typeRefusal(_ tensor: TFLiteModel.Tensor) -> String? {
        let isQuantizedActivation = [3, 9].contains(tensor.type) && tensor.scales.count == 1
        if !isQuantizedActivation && (tensor.isQuantized || [3, 7, 9, 17].contains(tensor.type)) {
            return "tensor '\(tensor.name)' is \(TFLiteModel.typeName(tensor.type)) with quantization parameters"
                + (tensor.scales.count > 1 ? " (\(tensor.scales.count) scales)" : "") + ": of quantized activations, INT8 and UINT8 ones with one scale are "
                + "converted (computed in float)"
        }
        if tensor.type != 0 && !isQuantizedActivation { return "tensor '\(tensor.name)' is \(TFLiteModel.typeName(tensor.type)); only FLOAT32 values are converted" }
        if tensor.isSparse { return "tensor '\(tensor.name)' is sparse, which is not supported" }
        if tensor.isVariable { return "tensor '\(tensor.name)' is a variable, which is not supported" }
        if let field = tensor.unknownFields.first { return "tensor '\(tensor.name)' has field \(field), which this reader does not know" }
        return nil
    }

    mutating func build() throws -> Model {
        try refuseUnsupported()
        var inputs: [Input] = []
        for index in graph.inputs {
            let tensor = try self.tensor(index, "an input")
            let (dims, rank) = try mapShape(tensor)
            let name = FeatureName.sanitized(tensor.name)
            if let quantized = try quantizedInput(tensor, feature: name, dims: dims, rank: rank) { quantizedInputs.append(quantized) }
            if let refusal = Self.typeRefusal(tensor) { throw fail(refusal) }
            inputs.append(Input(name: name, kind: .array(shape: dims)))
            shapes[name] = TensorShape(featureShape: dims)
            ranks[tensor.index] = rank
        }
        // Inputs are named as features; other tensors keep their names.
        var names = self.names
        for index in graph.inputs { names[Int(index)] = FeatureName.sanitized(graph.tensors[Int(index)].name) }
        for op in graph.operators where needed.contains(op.index) {
            let name = TFLiteOperators.name(file.operatorCodes[op.opcodeIndex].builtin)
            let output = op.outputs.first.flatMap { Int($0) < names.count && $0 >= 0 ? names[Int($0)] : nil } ?? "?"
            if name == "DEQUANTIZE", try foldDequantize(op) { continue }
            try TFLiteError.locating("\(file.path): operator \(op.index) (\(name)) writing '\(output)'", layer: output, own: TFLiteOpError.self) {
                try add(op, name, names: names)
            }
        }
        var model = Model(inputs: inputs, outputs: [], nodes: nodes)
        for index in graph.outputs {
            let tensor = try self.tensor(index, "an output")
            let source = alias[tensor.index] ?? tensor.index
            guard ranks[source] != nil else { throw fail("output '\(tensor.name)' is not produced by any operator") }
            let feature = FeatureName.sanitized(tensor.name)
            if let quantized = try quantizedOutput(tensor, feature: feature) { quantizedOutputs.append(quantized) }
            if names[source] != feature && !inputs.contains(where: { $0.name == feature }) { model.renameTensor(names[source], to: feature) }
            model.outputs.append(Output(name: inputs.contains(where: { $0.name == names[source] }) ? names[source] : feature))
        }
        return model
    }

    /// [1, H, W, C] as [C, H, W] (rank 4), [1, N] as [N] (rank 2).
    func mapShape(_ tensor: TFLiteModel.Tensor) throws -> (dims: [Int], rank: Int) {
        let shape = tensor.shape.map(Int.init)
        let limit = ShapeInference.maximumSize
        guard shape.first == 1, shape.count == 4 || shape.count == 2, shape.allSatisfy({ (1...limit).contains($0) }) else {
            throw fail("tensor '\(tensor.name)' has the shape \(shape); [1, H, W, C] and [1, N] are supported")
        }
        if shape.count == 4 { return ([shape[3], shape[1], shape[2]], 4) }
        return ([shape[1]], 2)
    }

    /// Every operator the table does not map, in one error, each named by its first output.
    func refuseUnsupported() throws {
        for op in graph.operators {
            guard op.opcodeIndex < file.operatorCodes.count else {
                throw fail("operator \(op.index) refers to operator code \(op.opcodeIndex), and the file has \(file.operatorCodes.count)")
            }
        }
        var unsupported = UnsupportedOps()
        for op in graph.operators where needed.contains(op.index) {
            let name = TFLiteOperators.name(file.operatorCodes[op.opcodeIndex])
            guard TFLiteOpTable.mappings[name] == nil else { continue }
            unsupported.add(name, node: op.outputs.first.flatMap { Int($0) < names.count && $0 >= 0 ? names[Int($0)] : nil } ?? "?")
        }
        if !unsupported.isEmpty { throw fail(unsupported.message(nodeNoun: "operator")) }
    }

    private mutating func add(_ op: TFLiteModel.Operator, _ name: String, names: [String]) throws {
        guard let mapping = TFLiteOpTable.mappings[name] else { throw TFLiteOpError("is not supported") }
        if let extra = op.extras.first { throw TFLiteOpError("\(extra) is not supported") }
        let expected = TFLiteOptions.expectedTypes[name] ?? 0
        if op.optionsType != 0 && op.optionsType != expected {
            throw TFLiteOpError("carries builtin options of type \(op.optionsType), not \(TFLiteOptions.tables[expected]?.name ?? "none")")
        }
        let present = try TFLiteOptions.present(op.options, type: op.optionsType)
        if let refusal = TFLiteOptions.ledgers.refusal(op: name, present: present) { throw TFLiteOpError(refusal) }
        guard op.outputs.count == 1 else { throw TFLiteOpError("has \(op.outputs.count) outputs; one is supported") }
        let output = try tensor(op.outputs[0], "its output")
        if let refusal = Self.typeRefusal(output) { throw TFLiteOpError(refusal) }
        guard ranks[output.index] == nil, graph.inputs.firstIndex(of: Int32(output.index)) == nil else {
            throw TFLiteOpError("writes tensor '\(output.name)', which an earlier operator or the input already wrote")
        }
        let builder = try TFLiteBuilder(walk: self, op: op, names: names, output: output)
        var (emitted, rank) = try mapping(builder)
        if name == "QUANTIZE" || name == "DEQUANTIZE" { droppedQuantizations += 1 }
        if output.isQuantized { quantizedActivations[TFLiteModel.typeName(output.type).lowercased(), default: 0] += 1 }
        if emitted.isEmpty {
            alias[output.index] = alias[builder.inputIndices[0]] ?? builder.inputIndices[0]
            ranks[output.index] = rank
            return
        }
        try keepInt8Weights(of: &emitted, op: name, builder: builder)
        try ShapeInference.append(emitted, to: &nodes, shapes: &shapes)
        ranks[output.index] = rank
        // What the file states: the output's shape, NHWC.
        let (dims, stated) = try mapShape(output)
        let ours = shapes[names[output.index]]
        let matches = stated == rank && (rank == 4 ? ours?.dimensions == dims : ours?.count == dims[0])
        if !matches {
            throw TFLiteOpError("gives the shape \(ours?.description ?? "?") where the file states [C, H, W] \(dims)")
        }
    }
}

/// A mapping's refusal, wrapped with the file and the operator by the walk.
typealias TFLiteOpError = MessageError<TFLiteOpErrorKind>
enum TFLiteOpErrorKind {}

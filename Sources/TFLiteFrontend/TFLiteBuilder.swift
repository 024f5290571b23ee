import Conversion
import ModelFormat

/// What an operator's mapping sees: its inputs (activations by IR name,
/// constants as bytes in the mapped file), its options, its output.
struct TFLiteBuilder {
    let file: TFLiteModel
    let op: TFLiteModel.Operator
    /// The operator's input tensors (nil for an absent optional input, -1).
    let inputs: [TFLiteModel.Tensor?]
    /// The tensor each input stands for (an alias resolved).
    let inputIndices: [Int]
    let inputNames: [String]
    let inputShapes: [TensorShape?]
    let inputRanks: [Int?]
    let output: TFLiteModel.Tensor
    let name: String

    init(walk: TFLiteWalk, op: TFLiteModel.Operator, names: [String], output: TFLiteModel.Tensor) throws {
        file = walk.file
        self.op = op
        var inputs: [TFLiteModel.Tensor?] = [], indices: [Int] = []
        for index in op.inputs {
            if index == -1 { inputs.append(nil); indices.append(-1); continue }
            var tensor = try walk.tensor(index, "input \(inputs.count)")
            // A DEQUANTIZE the walk folded: the constant it reads, widened where it is read.
            if let source = walk.folded[tensor.index] { tensor = walk.graph.tensors[source] }
            inputs.append(tensor)
            indices.append(walk.alias[tensor.index] ?? tensor.index)
        }
        self.inputs = inputs
        inputIndices = indices
        inputNames = indices.map { $0 >= 0 ? names[$0] : "" }
        inputShapes = inputNames.map { walk.shapes[$0] }
        inputRanks = indices.map { $0 >= 0 ? walk.ranks[$0] : nil }
        self.output = output
        name = names[output.index]
    }

    // MARK: inputs

    /// Activation input `index` (produced by an earlier operator or a graph input).
    func input(_ index: Int) throws -> String {
        guard index < inputs.count, let tensor = inputs[index] else { throw TFLiteOpError("input \(index) is missing") }
        guard inputRanks[index] != nil, inputShapes[index] != nil else {
            if try file.data(of: tensor) != nil { throw TFLiteOpError("input \(index) '\(tensor.name)' is a constant, which is not supported there") }
            throw TFLiteOpError("input \(index) '\(tensor.name)' is not produced by an earlier operator")
        }
        if let refusal = TFLiteWalk.typeRefusal(tensor) { throw TFLiteOpError(refusal) }
        return inputNames[index]
    }

    func shape(_ index: Int) -> TensorShape { inputShapes[index]! }
    func rank(_ index: Int) -> Int { inputRanks[index]! }

    /// Whether input `index` is a constant (data in a buffer).
    func isConstant(_ index: Int) throws -> Bool {
        guard index < inputs.count, let tensor = inputs[index] else { return false }
        guard inputRanks[index] == nil else { return false }
        return try file.data(of: tensor) != nil
    }

    /// Constant float input `index`: its shape and bytes, checked against
    /// each other; float16 and quantized constants widened to float32
    /// (`TFLiteConstants`).
    func floats(_ index: Int, _ what: String) throws -> (shape: [Int], values: FloatBytes) {
        let (tensor, data) = try constant(index, what)
        let shape = tensor.shape.map(Int.init)
        if !tensor.isSparse, tensor.type != 0 || tensor.isQuantized, let values = try TFLiteConstants.widened(tensor, data, count: try checkedCount(shape)) {
            return (shape, FloatBytes(values))
        }
        if let refusal = TFLiteWalk.typeRefusal(tensor) { throw TFLiteOpError("the \(what): \(refusal)") }
        guard let count = try? checkedCount(shape), data.count == 4 * count else {
            throw TFLiteOpError("the \(what) '\(tensor.name)' has the shape \(shape) and \(data.count) bytes of data")
        }
        return (shape, FloatBytes(borrowing: data, owner: file.file, isMappedFile: true))
    }

    /// The optional bias (input `index`, absent or -1 for none) of `count` values.
    func bias(_ index: Int, count: Int) throws -> Weights? {
        guard index < inputs.count, inputs[index] != nil else { return nil }
        let (shape, values) = try floats(index, "bias")
        guard values.count == 4 * count else { throw TFLiteOpError("the bias has the shape \(shape); \(count) values are expected") }
        return NHWCLayout.unchanged(from: values)
    }

    /// Constant int32 input `index` (shapes, axes, paddings).
    func ints(_ index: Int, _ what: String) throws -> [Int] {
        let (tensor, data) = try constant(index, what)
        guard tensor.type == 2 || tensor.type == 4 else {
            throw TFLiteOpError("the \(what) '\(tensor.name)' is \(TFLiteModel.typeName(tensor.type)), not INT32 or INT64")
        }
        let size = tensor.type == 2 ? 4 : 8
        let count = try checkedCount(tensor.shape.map(Int.init))
        guard data.count == size * count else { throw TFLiteOpError("the \(what) '\(tensor.name)' has \(data.count) bytes for \(count) values") }
        return (0..<count).map { i in
            size == 4 ? Int(Int32(littleEndian: data.loadUnaligned(fromByteOffset: 4 * i, as: Int32.self)))
                : Int(clamping: Int64(littleEndian: data.loadUnaligned(fromByteOffset: 8 * i, as: Int64.self)))
        }
    }

    private func constant(_ index: Int, _ what: String) throws -> (TFLiteModel.Tensor, UnsafeRawBufferPointer) {
        guard index < inputs.count, let tensor = inputs[index] else { throw TFLiteOpError("the \(what) (input \(index)) is missing") }
        guard inputRanks[index] == nil, let data = try file.data(of: tensor) else {
            throw TFLiteOpError("the \(what) '\(tensor.name)' is computed by the graph; a constant is supported")
        }
        return (tensor, data)
    }

    /// The product of sizes from the file, each 0...2^30, capped at 2^30 in all.
    func checkedCount(_ shape: [Int]) throws -> Int {
        var count = 1
        for size in shape {
            guard (0...TensorShape.maximumCount).contains(size) else { throw TFLiteOpError("the size \(size) in \(shape) is out of range") }
            count *= size
            guard count <= TensorShape.maximumCount else { throw TFLiteOpError("the shape \(shape) holds more than 2^30 values") }
        }
        return count
    }

    // MARK: options (absent fields take the schema's defaults)

    func int(_ id: Int, default value: Int32 = 0) throws -> Int { Int(try op.options?.i32(id) ?? value) }
    func float(_ id: Int) throws -> Float { try op.options?.f32(id) ?? 0 }
    func bool(_ id: Int) throws -> Bool { try op.options?.u8(id) ?? 0 != 0 }
    func byte(_ id: Int) throws -> UInt8 { try op.options?.u8(id) ?? 0 }

    /// Padding (field `id`): SAME pads the odd pixel at the bottom and right.
    func padding(_ id: Int) throws -> WindowPadding {
        switch try byte(id) {
        case 0: return .same(topLeftHeavy: false)
        case 1: return .explicit(.zero)
        case let other: throw TFLiteOpError("padding \(other) is neither SAME (0) nor VALID (1)")
        }
    }

    /// Two window sizes (strides, dilations, filters), each 1...maximumSize.
    func pair(h: Int, w: Int, _ what: String, default value: Int32 = 0) throws -> Size2 {
        let size = Size2(try int(h, default: value), try int(w, default: value))
        let limit = ShapeInference.maximumSize
        guard (1...limit).contains(size.height), (1...limit).contains(size.width) else {
            throw TFLiteOpError("\(what) [\(size.height), \(size.width)] is out of range (1...\(limit))")
        }
        return size
    }

    // MARK: nodes

    func node(_ op: Op, _ inputs: [String], suffix: String? = nil) -> Node {
        let output = suffix.map { "\(name)__\($0)" } ?? name
        return Node(name: output, operation: op, inputs: inputs, outputs: [output])
    }

    /// `op`, then the fused activation (options field `id`) under the output's name.
    func fused(_ op: Op, _ inputs: [String], activation id: Int) throws -> [Node] {
        let activation: Op
        switch try byte(id) {
        case 0: return [node(op, inputs)]
        case 1: activation = .activation(.relu)
        case 2: activation = .activation(.clip(min: -1, max: 1))
        case 3: activation = .activation(.clip(min: 0, max: 6))
        case 4: activation = .activation(.tanh)
        case let other:
            throw TFLiteOpError("fused_activation_function \(TFLiteOptions.activations.indices.contains(Int(other)) ? TFLiteOptions.activations[Int(other)] : "\(other)") is not supported")
        }
        let pre = node(op, inputs, suffix: "preactivation")
        return [pre, node(activation, pre.outputs)]
    }
}

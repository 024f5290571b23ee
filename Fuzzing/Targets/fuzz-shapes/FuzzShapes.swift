import FuzzSupport
import ModelFormat
import Runtime

/// Arbitrary attribute values through every operation's shape inference,
/// the model's validation and the runtime's planning: what a hostile file
/// reaches through any frontend or the Core ML reader, without the parsing
/// in between. Each input is a small model: an input shape, then nodes,
/// each an operation kind and its attributes; an attribute is one selector
/// byte (below 24: a value from `extremes`; otherwise the next 8 bytes as an
/// Int64). Errors are fine; a trap is a finding.
let extremes: [Int] = [0, 1, 2, 3, -1, -2, 1 << 30, (1 << 30) + 1, 1 << 31, (1 << 31) - 1, 1 << 32, (1 << 32) - 1,
                       1 << 62, Int.max, Int.min, Int.max - 1, -(1 << 31), 7, 8, 16, 64, 224, 4096, 65536]
let floats: [Float] = [0, 1, -1, .nan, .infinity, -.infinity, 1e30, -1e30, .leastNonzeroMagnitude, 0.5, .greatestFiniteMagnitude, 6]

struct Reader {
    var bytes: UnsafeRawBufferPointer.SubSequence

    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    mutating func int() -> Int {
        let selector = Int(byte())
        if selector < extremes.count { return extremes[selector] }
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return Int(truncatingIfNeeded: value)
    }

    mutating func float() -> Float { floats[Int(byte()) % floats.count] }
    mutating func size2() -> Size2 { Size2(int(), int()) }
    mutating func edges() -> Edges { Edges(top: int(), bottom: int(), left: int(), right: int()) }
    /// Small weights: their counts are what the checks read.
    mutating func weights() -> Weights { Weights(unloadedCount: Int(byte())) }

    mutating func padding() -> WindowPadding {
        switch byte() % 3 {
        case 0: .explicit(edges())
        case 1: .same(topLeftHeavy: byte() & 1 == 0)
        default: .includeLastPixel(size2())
        }
    }

    /// Up to five values.
    mutating func ints() -> [Int] { (0..<Int(byte()) % 6).map { _ in int() } }

    mutating func operation() -> Op {
        switch byte() % 31 {
        case 0, 1:
            return .convolution(Convolution(outputChannels: int(), kernelChannels: int(), groups: int(), kernel: size2(), stride: size2(),
                                            dilation: size2(), padding: padding(), isDeconvolution: byte() & 1 == 0,
                                            outputShape: byte() & 1 == 0 ? [] : [int(), int()], weights: weights(),
                                            bias: byte() & 1 == 0 ? nil : weights()))
        case 2:
            return .pooling(Pooling(kind: [.max, .average, .l2][Int(byte()) % 3], kernel: size2(), stride: size2(), padding: padding(),
                                    excludePaddingFromAverage: byte() & 1 == 0, global: byte() & 1 == 0))
        case 3: return .innerProduct(InnerProduct(inputChannels: int(), outputChannels: int(), weights: weights(), bias: weights()))
        case 4:
            return .batchNorm(BatchNorm(channels: int(), epsilon: float(), gamma: weights(), beta: weights(), mean: weights(),
                                        variance: weights(), computeMeanVar: byte() & 1 == 0))
        case 5: return .scale(Scale(shape: [int(), int(), int()].prefix(Int(byte()) % 4).map { $0 }, scale: weights(),
                                    biasShape: [int()], bias: byte() & 1 == 0 ? nil : weights()))
        case 6: return .bias(Bias(shape: [int(), int(), int()].prefix(Int(byte()) % 4).map { $0 }, bias: weights()))
        case 7: return .lrn(LRN(alpha: float(), beta: float(), localSize: int(), k: float()))
        case 8: return .activation([.relu, .clip(min: float(), max: float()), .prelu(alpha: weights()),
                                    .parametricSoftplus(alpha: weights(), beta: weights()), .linear(alpha: float(), beta: float())][Int(byte()) % 5])
        case 9: return .reshape(targetShape: (0..<Int(byte()) % 5).map { _ in int() }, order: byte() & 1 == 0 ? .channelFirst : .channelLast)
        case 10: return .permute(axes: (0..<Int(byte()) % 6).map { _ in int() })
        case 11: return .padding(Padding(kind: .constant(float()), edges: edges()))
        case 12: return .crop(byte() & 1 == 0 ? .edges(edges()) : .like(offset: (0..<Int(byte()) % 4).map { _ in int() }))
        case 13: return .slice(Slice(axis: [.channel, .height, .width][Int(byte()) % 3], start: int(), end: int(), stride: int()))
        case 14: return .upsample(Upsample(scale: size2(), mode: byte() & 1 == 0 ? .nearest : .bilinear))
        case 15: return .constant(shape: (0..<Int(byte()) % 5).map { _ in int() }, data: weights())
        case 16: return .reduce(Reduce(mode: .sum, axes: Reduce.mapAxes[Int(byte()) % 5].axes, epsilon: float()))
        case 17: return .unary(Unary(kind: .power, alpha: float(), epsilon: float(), shift: float(), scale: float()))
        case 18: return .concat
        case 19: return [.add(constant: float()), .multiply(constant: float()), .maximum, .minimum, .average][Int(byte()) % 5]
        case 20: return .split
        case 21: return .flatten(byte() & 1 == 0 ? .channelFirst : .channelLast)
        // The rank-N operations (OpDefinition).
        case 22: return .defined(MatMul(transposeA: byte() & 1 == 0, transposeB: byte() & 1 == 0))
        case 23: return .defined(MatMul(inputChannels: int(), outputChannels: int(), weights: weights(), bias: byte() & 1 == 0 ? nil : weights()))
        case 24: return .defined(Softmax(axis: int()))
        case 25: return .defined(Transpose(axes: ints()))
        case 26: return .defined(GELU(mode: GELU.Mode.allCases[Int(byte()) % 3]))
        case 27: return .reshape(targetShape: ints())
        case 28: return .defined(Concat(axis: int()))
        case 29: return .slice(Slice(axes: ints(), begin: ints(), end: ints(), strides: ints()))
        default: return .reduce(Reduce(mode: Reduce.Mode.allCases[Int(byte()) % 10], axes: ints(), keepDimensions: byte() & 1 == 0))
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzShapes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = Reader(bytes: inputBytes(data, size)[...])
    let shape = (0..<Int(reader.byte()) % 4 + 1).map { _ in reader.int() }
    var nodes: [Node] = []
    var tensors = ["x"]
    for index in 0..<Int(reader.byte()) % 4 + 1 {
        let operation = reader.operation()
        let inputs = (0..<Int(reader.byte()) % 3).map { _ in tensors[Int(reader.byte()) % tensors.count] }
        let outputs = (0..<Int(reader.byte()) % 3 + 1).map { "t\(index)_\($0)" }
        nodes.append(Node(name: "n\(index)", operation: operation, inputs: inputs, outputs: outputs))
        tensors += outputs
    }
    // Each node alone, on shapes from the bytes, then the whole model.
    for node in nodes {
        // Any rank from 1 to 5.
        let shapes = node.inputs.indices.map { _ in TensorShape((0...Int(reader.byte()) % 5).map { _ in reader.int() }) }
        _ = try? ShapeInference.checkedOutputShapes(of: node, inputs: shapes)
    }
    // A [C] / [C, H, W] array, or a tensor of any rank.
    let kind: Input.Kind = reader.byte() & 1 == 0 ? .array(shape: shape) : .tensor(shape: shape)
    let model = Model(inputs: [Input(name: "x", kind: kind)], outputs: [Output(name: tensors.last!)], nodes: nodes)
    if (try? model.validate()) != nil {
        _ = try? Network(model)
    }
    return 0
}

@_cdecl("fuzz_shapes_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzShapes)
}

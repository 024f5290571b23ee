import Conversion
import ModelFormat

/// A mapping met a map or vector where Core ML has only a rank-N layer
/// (a transpose, a reshape to rank 5, a layer norm): the converter walks
/// the graph again with every [1, C, H, W] value a tensor.
struct ONNXNeedsTensors: Error {
    let error: ONNXError
}

/// A model tensor as a mapping sees it.
struct ONNXTensor {
    var name: String
    /// ONNX's rank: 4 for [1, C, H, W], 2 for [1, F].
    var rank: Int
    var shape: TensorShape

    /// Its dimensions as ONNX states them.
    var dims: [Int] { ONNXTensor.dims(of: shape, rank: rank) }

    /// A tensor the model holds exactly as ONNX shapes it (rank-N layers);
    /// else a map ([1, C, H, W] as [C, H, W]) or a vector ([1, F] as [F, 1, 1]).
    var isExact: Bool { shape.rank == rank }
    var isMap: Bool { rank == 4 && !isExact }
    var isVector: Bool { rank == 2 && !isExact }
    /// A [1, C, H, W] value the model's map layers take (convolution,
    /// pooling, normalization, padding, resizing): a map, or a tensor of
    /// batch 1, which those layers take as its map with a batch axis.
    var takesMapLayers: Bool { isMap || (isExact && rank == 4 && shape.dimensions[0] == 1) }

    static func dims(of shape: TensorShape, rank: Int) -> [Int] {
        if shape.rank == rank { return shape.dimensions }
        return rank == 4 ? [1, shape.channels, shape.height, shape.width] : [1, shape.count]
    }
}

/// What a mapping sees: the node, its input values, the opset, and the
/// shapes of the tensors made so far.
struct ONNXBuilder: GraphBuilding {
    let node: ONNXNode
    let inputs: [GraphValue?]
    let shapes: [String: TensorShape]
    let opset: Int
    var name: String { node.outputs.first ?? node.name }

    func value(_ index: Int) -> GraphValue? { index < inputs.count ? inputs[index] : nil }

    func has(_ index: Int) -> Bool { value(index) != nil }

    func tensor(_ index: Int) throws -> ONNXTensor {
        guard index < inputs.count, case .tensor(let name, let rank)? = inputs[index] else {
            throw node.fail("input \(index) must be computed from the model's input, not a constant")
        }
        return ONNXTensor(name: name, rank: rank, shape: shapes[name]!)
    }

    /// `needs`, for a map or vector where a rank-N tensor is needed.
    func needsTensors(_ needs: String) -> ONNXNeedsTensors {
        ONNXNeedsTensors(error: node.fail("\(needs) of a [C, H, W] map or [F] vector is not supported"))
    }

    /// Each input's constant, nil for a tensor or an input left out.
    var constants: [ONNXConstant?] {
        inputs.map { value in if case .constant(let c)? = value { c } else { nil } }
    }

    /// One node; the output keeps the input's rank.
    func single(_ op: Op, _ x: ONNXTensor) -> (nodes: [Node], value: GraphValue) { single(op, x.name, rank: x.rank) }

    /// A 2-D window attribute (kernel_shape, strides, dilations) as (h, w).
    func window(_ key: String, default value: Int) throws -> Size2 {
        guard let list = node.ints(key) else { return Size2(square: value) }
        guard list.count == 2, list.allSatisfy({ $0 > 0 && $0 <= 1 << 16 }) else {
            throw node.fail("\(key) \(list) must be two positive sizes (2-D windows only)")
        }
        return Size2(list[0], list[1])
    }

    /// For a convolution whose weights hold `outputChannels` kernels of
    /// `kernel` [kH, kW]: refuses a `kernel_shape` other than the weights',
    /// and returns the bias (input 2, one value per output channel; nil without).
    func convolutionBias(kernel: [Int], outputChannels cout: Int) throws -> Weights? {
        if let declared = node.ints("kernel_shape"), declared != kernel { throw node.fail("kernel_shape \(declared) differs from the weights' \(kernel)") }
        guard has(2) else { return nil }
        let c = try constant(2, "the bias")
        guard c.count == cout else { throw node.fail("bias has \(c.count) values for \(cout) output channels") }
        return c.weights()
    }

    /// `pads` [top, left, bottom, right] or `auto_pad`.
    func padding() throws -> WindowPadding {
        switch node.string("auto_pad") ?? "NOTSET" {
        case "SAME_UPPER": return .same(topLeftHeavy: false)
        case "SAME_LOWER": return .same(topLeftHeavy: true)
        case "VALID": return .explicit(.zero)
        case "NOTSET", "":
            guard let p = node.ints("pads") else { return .explicit(.zero) }
            guard p.count == 4, p.allSatisfy({ $0 >= 0 && $0 <= 1 << 16 }) else { throw node.fail("pads \(p) must be four sizes [top, left, bottom, right]") }
            return .explicit(Edges(top: p[0], bottom: p[2], left: p[1], right: p[3]))
        case let other:
            throw node.fail("auto_pad \(other) is not supported")
        }
    }

    /// A constant that applies per channel of `x` under numpy's broadcasting:
    /// one value; for maps, C values shaped [C, 1, 1] or [1, C, 1, 1]; for
    /// vectors [1, F], F values shaped [F] or [1, F].
    func perChannel(_ value: ONNXConstant, of x: ONNXTensor) -> [Float]? {
        if value.isScalar { return [Float(value[0])] }
        guard x.takesMapLayers || x.isVector else { return nil }
        let channels = x.takesMapLayers ? x.shape.channels : x.shape.count
        let trailing = x.takesMapLayers ? [channels, 1, 1] : [channels]
        guard value.count == channels, value.shape.count >= trailing.count, Array(value.shape.suffix(trailing.count)) == trailing,
              value.shape.dropLast(trailing.count).allSatisfy({ $0 == 1 }) else { return nil }
        return value.floats
    }
}

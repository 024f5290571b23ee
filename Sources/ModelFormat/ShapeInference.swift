/// Output shapes of every tensor, computed from the input shapes and each
/// operation's attributes, in graph order.
public enum ShapeInference {
    /// The shape of every input and every node output of `model`.
    /// - Throws: `ModelError` naming the layer whose inputs do not fit it.
    public static func shapes(of model: Model) throws(ModelError) -> [String: TensorShape] {
        var shapes: [String: TensorShape] = [:]
        for input in model.inputs {
            shapes[input.name] = try inputShape(input)
        }
        for node in model.nodes {
            var inputShapes: [TensorShape] = []
            for name in node.inputs {
                guard let shape = shapes[name] else {
                    throw ModelError(node: node.name, "input '\(name)' is not produced by an earlier layer or a model input")
                }
                inputShapes.append(shape)
            }
            let outputs = try checkedOutputShapes(of: node, inputs: inputShapes)
            guard outputs.count == node.outputs.count else {
                throw ModelError(node: node.name, "has \(node.outputs.count) outputs, the operation gives \(outputs.count)")
            }
            for (name, shape) in zip(node.outputs, outputs) { shapes[name] = shape }
        }
        return shapes
    }

    static func inputShape(_ input: Input) throws(ModelError) -> TensorShape {
        switch input.kind {
        case .image(let image):
            guard image.width > 0, image.height > 0 else {
                throw ModelError("input '\(input.name)': image size \(image.width)x\(image.height) is empty")
            }
            guard image.width <= ImageInput.maximumSide, image.height <= ImageInput.maximumSide else {
                throw ModelError("input '\(input.name)': image size \(image.width)x\(image.height) is over \(ImageInput.maximumSide) pixels a side")
            }
            return TensorShape(channels: image.channels, height: image.height, width: image.width)
        case .array(let dimensions):
            guard let shape = TensorShape(featureShape: dimensions), dimensions.allSatisfy({ $0 > 0 }) else {
                throw ModelError("input '\(input.name)': shape \(dimensions) is not [C] or [C, H, W] with positive sizes")
            }
            guard dimensions.allSatisfy({ $0 <= maximumSize }), shape.count <= TensorShape.maximumCount else {
                throw ModelError("input '\(input.name)': shape \(dimensions) is too large")
            }
            return shape
        case .tensor(let dimensions):
            guard !dimensions.isEmpty, dimensions.allSatisfy({ $0 > 0 && $0 <= maximumSize }),
                  let count = dimensions.checkedProduct, count <= TensorShape.maximumCount else {
                throw ModelError("input '\(input.name)': shape \(dimensions) is empty or too large")
            }
            return TensorShape(dimensions)
        }
    }

    /// `outputShapes`, and an output that would be empty, or larger than
    /// `TensorShape.maximumCount`, is an error: what every frontend and
    /// `shapes(of:)` use as they build or check a graph.
    public static func checkedOutputShapes(of node: Node, inputs: [TensorShape]) throws(ModelError) -> [TensorShape] {
        let shapes = try outputShapes(of: node, inputs: inputs)
        for (name, shape) in zip(node.outputs, shapes) {
            guard shape.dimensions.allSatisfy({ $0 > 0 }) else {
                throw ModelError(node: node.name, "output '\(name)' would have the empty shape \(shape)")
            }
            guard shape.count <= TensorShape.maximumCount, shape.dimensions.allSatisfy({ $0 <= maximumSize }) else {
                throw ModelError(node: node.name, "output '\(name)' would have the shape \(shape), too large")
            }
        }
        return shapes
    }

    /// Shapes of a node's outputs, given its input shapes (possibly empty:
    /// a slice past the end has length 0).
    public static func outputShapes(of node: Node, inputs: [TensorShape]) throws(ModelError) -> [TensorShape] {
        func fail(_ message: String) -> ModelError { ModelError(node: node.name, message) }
        try checkAttributes(of: node)
        for shape in inputs where shape.dimensions.contains(where: { $0 < 0 || $0 > maximumSize }) {
            throw fail("an input has the shape \(shape), too large")
        }
        guard let first = inputs.first else {
            if case .constant(let shape, _) = node.operation, let tensor = TensorShape(featureShape: shape) {
                return [tensor]
            }
            throw fail("has no input")
        }
        if let definition = node.operation.definition {
            do { return try definition.outputShapes(inputs, outputCount: node.outputs.count) } catch { throw fail(error.message) }
        }
        if !node.operation.takesAnyRank, let shape = inputs.first(where: { $0.rank != 3 }) {
            throw fail("takes [C, H, W] tensors, gets \(shape)")
        }
        switch node.operation {
        case .convolution(let conv):
            return [try convolutionShape(conv, first, fail)]
        case .pooling(let pool):
            if pool.global { return [TensorShape(channels: first.channels)] }
            let height = try windowOutput(first.height, pool.kernel.height, pool.stride.height, 1, pool.padding, vertical: true, fail)
            let width = try windowOutput(first.width, pool.kernel.width, pool.stride.width, 1, pool.padding, vertical: false, fail)
            return [TensorShape(channels: first.channels, height: height, width: width)]
        case .innerProduct(let product):
            // Core ML (specifications 1-3) takes only vectors here.
            guard first.height == 1 && first.width == 1 else {
                throw fail("takes a [C, 1, 1] vector, gets \(first): flatten its input first")
            }
            guard first.count == product.inputChannels else {
                throw fail("expects \(product.inputChannels) input values, gets \(first) = \(first.count)")
            }
            return [TensorShape(channels: product.outputChannels)]
        case .concat:
            guard inputs.allSatisfy({ $0.height == first.height && $0.width == first.width }) else {
                throw fail("concatenates maps of different sizes: \(inputs.map(\.description).joined(separator: ", "))")
            }
            let channels = inputs.reduce(0) { $0 + $1.channels }  // at most count * 2^30
            return [TensorShape(channels: channels, height: first.height, width: first.width)]
        case .add, .multiply, .average:
            return [try broadcast(inputs, fail)]
        case .maximum, .minimum:
            // Core ML gives these the first input's shape: no broadcasting to a larger one.
            let shape = try broadcast(inputs, fail)
            guard shape == first else {
                throw fail("the first input \(first) must have the full shape \(shape) (Core ML does not broadcast it)")
            }
            return [shape]
        case .flatten:
            return [TensorShape(channels: first.count)]
        case .reshape(let target, _):
            guard let shape = TensorShape(featureShape: target), shape.count == first.count else {
                throw fail("cannot reshape \(first) (\(first.count) values) to \(target)")
            }
            return [shape]
        case .permute(let axes):
            // Axes index [Seq, C, H, W]; the sequence axis must stay first.
            guard axes.sorted() == [0, 1, 2, 3], axes[0] == 0 else { throw fail("permutation \(axes) is not supported") }
            let dims = [1, first.channels, first.height, first.width]
            return [TensorShape(channels: dims[axes[1]], height: dims[axes[2]], width: dims[axes[3]])]
        case .padding(let padding):
            let e = padding.edges
            return [TensorShape(channels: first.channels, height: first.height + e.top + e.bottom,
                                width: first.width + e.left + e.right)]
        case .crop(.edges(let e)):
            return [TensorShape(channels: first.channels, height: first.height - e.top - e.bottom,
                                width: first.width - e.left - e.right)]
        case .crop(.like(let offset)):
            guard inputs.count == 2 else { throw fail("crops to a reference input, but has \(inputs.count) inputs") }
            guard offset[0] + inputs[1].height <= first.height, offset[1] + inputs[1].width <= first.width else {
                throw fail("a \(inputs[1].height)x\(inputs[1].width) crop at offset \(offset) runs past the \(first.height)x\(first.width) input")
            }
            return [TensorShape(channels: first.channels, height: inputs[1].height, width: inputs[1].width)]
        case .slice(let slice):
            let axis = switch slice.axis {
            case .channel: first.rank - 3
            case .height: first.rank - 2
            case .width: first.rank - 1
            }
            try checkSliceBounds(slice, size: first.dimensions[axis], fail)
            return [first.replacing(axis: axis, with: sliceLength(first.dimensions[axis], slice))]
        case .split:
            guard node.outputs.count >= 2 else { throw fail("a split needs at least 2 outputs, has \(node.outputs.count)") }
            guard first.channels % node.outputs.count == 0 else {
                throw fail("cannot split \(first.channels) channels into \(node.outputs.count) equal parts")
            }
            let part = TensorShape(channels: first.channels / node.outputs.count, height: first.height, width: first.width)
            return Array(repeating: part, count: node.outputs.count)
        case .reduce(let reduce):
            switch reduce.axes {
            case .chw: return [TensorShape(channels: 1)]
            case .hw: return [TensorShape(channels: first.channels)]
            case .c: return [TensorShape(channels: 1, height: first.height, width: first.width)]
            case .h: return [TensorShape(channels: first.channels, height: 1, width: first.width)]
            case .w: return [TensorShape(channels: first.channels, height: first.height, width: 1)]
            }
        case .upsample(let upsample):
            // At most 2^30 * 2^30 each: checked against the size limit after.
            return [TensorShape(channels: first.channels, height: first.height * upsample.scale.height,
                                width: first.width * upsample.scale.width)]
        case .constant(let shape, _):
            guard let tensor = TensorShape(featureShape: shape) else { throw fail("constant shape \(shape) is not [C, H, W]") }
            return [tensor]
        case .activation(let activation):
            try checkPerChannel(activation, channels: first.channels, fail)
            return [first]
        case .batchNorm(let norm):
            guard norm.channels == first.channels else {
                throw fail("normalizes \(norm.channels) channels, its input has \(first.channels)")
            }
            return [first]
        case .scale(let scale):
            try checkBroadcast(scale.shape, "scale", to: first, fail)
            if scale.bias != nil { try checkBroadcast(scale.biasShape, "scale bias", to: first, fail) }
            return [first]
        case .bias(let bias):
            try checkBroadcast(bias.shape, "bias", to: first, fail)
            return [first]
        case .lrn, .softmax, .unary, .l2Normalize:
            return [first]
        case .defined:
            preconditionFailure("handled above")
        }
    }

    /// PReLU and parametric softplus take one parameter per channel, or one for all.
    static func checkPerChannel(_ activation: Activation, channels: Int, _ fail: (String) -> ModelError) throws(ModelError) {
        let parameters: [(Weights, String)] = switch activation {
        case .prelu(let alpha): [(alpha, "alpha")]
        case .parametricSoftplus(let alpha, let beta): [(alpha, "alpha"), (beta, "beta")]
        default: []
        }
        for (weights, name) in parameters where weights.count != 1 && weights.count != channels {
            throw fail("\(name) has \(weights.count) values for \(channels) channels (one per channel, or one)")
        }
    }

    /// A scale or bias constant of shape [1], [C], [1, H, W] or [C, H, W] of the input.
    static func checkBroadcast(_ shape: [Int], _ what: String, to input: TensorShape,
                               _ fail: (String) -> ModelError) throws(ModelError) {
        let fits = switch shape.count {
        case 1: shape[0] == 1 || shape[0] == input.channels
        case 3: (shape[0] == 1 || shape[0] == input.channels) && shape[1] == input.height && shape[2] == input.width
        default: false
        }
        guard fits else { throw fail("\(what) of shape \(shape) does not fit the input \(input)") }
    }

    /// Core ML's slice reads `start..<end` of an axis of `size` only where
    /// it agrees with the Python semantics the model spec states: a positive
    /// end within the axis (Core ML does not clamp it), and no negative start
    /// before a positive end (Core ML computes that length differently).
    static func checkSliceBounds(_ slice: Slice, size: Int, _ fail: (String) -> ModelError) throws(ModelError) {
        if slice.end > size {
            throw fail("slice end \(slice.end) is past the axis' \(size) elements")
        }
        if slice.start < 0 && slice.end > 0 {
            throw fail("slice \(slice.start)..<\(slice.end) mixes a negative start with a positive end")
        }
    }

    static func convolutionShape(_ conv: Convolution, _ input: TensorShape,
                                 _ fail: (String) -> ModelError) throws(ModelError) -> TensorShape {
        guard conv.groups > 0, conv.outputChannels % conv.groups == 0 else {
            throw fail("\(conv.outputChannels) output channels do not split into \(conv.groups) groups")
        }
        if conv.isDeconvolution {
            guard input.channels == conv.kernelChannels, input.channels % conv.groups == 0 else {
                throw fail("expects \(conv.kernelChannels) input channels in \(conv.groups) groups, gets \(input.channels)")
            }
            if conv.outputShape.count == 2 {
                return TensorShape(channels: conv.outputChannels, height: conv.outputShape[0], width: conv.outputShape[1])
            }
            func deconvolved(_ size: Int, _ kernel: Int, _ stride: Int, _ dilation: Int, _ pads: Int) -> Int {
                (size - 1) * stride + (kernel - 1) * dilation + 1 - pads
            }
            var padsHeight = 0, padsWidth = 0
            if case .explicit(let e) = conv.padding {
                padsHeight = e.top + e.bottom
                padsWidth = e.left + e.right
            }
            if case .same = conv.padding {
                return TensorShape(channels: conv.outputChannels, height: input.height * conv.stride.height,
                                   width: input.width * conv.stride.width)
            }
            return TensorShape(channels: conv.outputChannels,
                               height: deconvolved(input.height, conv.kernel.height, conv.stride.height, conv.dilation.height, padsHeight),
                               width: deconvolved(input.width, conv.kernel.width, conv.stride.width, conv.dilation.width, padsWidth))
        }
        guard input.channels == conv.kernelChannels * conv.groups else {
            throw fail("expects \(conv.kernelChannels) x \(conv.groups) groups = \(conv.kernelChannels * conv.groups) input channels, gets \(input.channels)")
        }
        let height = try windowOutput(input.height, conv.kernel.height, conv.stride.height, conv.dilation.height,
                                      conv.padding, vertical: true, fail)
        let width = try windowOutput(input.width, conv.kernel.width, conv.stride.width, conv.dilation.width,
                                     conv.padding, vertical: false, fail)
        return TensorShape(channels: conv.outputChannels, height: height, width: width)
    }

    /// Output length of a sliding window along one axis.
    static func windowOutput(_ size: Int, _ kernel: Int, _ stride: Int, _ dilation: Int, _ padding: WindowPadding,
                             vertical: Bool, _ fail: (String) -> ModelError) throws(ModelError) -> Int {
        guard kernel > 0, stride > 0, dilation > 0 else {
            throw fail("kernel \(kernel), stride \(stride) and dilation \(dilation) must be positive")
        }
        let extent = (kernel - 1) * dilation + 1
        switch padding {
        case .explicit(let e):
            let padded = size + (vertical ? e.top + e.bottom : e.left + e.right)
            guard padded >= extent else { throw fail("window \(extent) is larger than the padded input \(padded)") }
            return (padded - extent) / stride + 1
        case .same:
            return (size + stride - 1) / stride
        case .includeLastPixel(let pads):
            // Caffe's pooling: round up, then, when there is any padding (on
            // either axis, as Caffe checks), drop a last window that would
            // start in the bottom/right padding.
            let pad = vertical ? pads.height : pads.width
            guard size + 2 * pad >= kernel else { throw fail("window \(kernel) is larger than the padded input \(size + 2 * pad)") }
            var output = (size + 2 * pad - kernel + stride - 1) / stride + 1
            if (pads.height > 0 || pads.width > 0) && (output - 1) * stride >= size + pad { output -= 1 }
            return output
        }
    }

    static func sliceLength(_ size: Int, _ slice: Slice) -> Int {
        let start = max(slice.start < 0 ? size + slice.start : slice.start, 0)
        // Python-style: -1 is the last index, and the end is exclusive
        // (NeuralNetwork.proto: "-1 denotes N-1"); ends past N are clamped.
        let end = slice.end < 0 ? size + slice.end : min(slice.end, size)
        guard slice.stride > 0, end > start else { return 0 }
        return (end - start + slice.stride - 1) / slice.stride
    }

    /// Element-wise layers broadcast as numpy does: shapes aligned at their
    /// last axis, each size equal or 1 (so a [C, 1, 1] or [1, H, W] map
    /// meets a [C, H, W] one, as in Core ML's rank-5 layers).
    static func broadcast(_ inputs: [TensorShape], _ fail: (String) -> ModelError) throws(ModelError) -> TensorShape {
        var result = inputs[0].dimensions
        for shape in inputs.dropFirst() {
            guard let merged = try? broadcast(result, shape.dimensions) else {
                throw fail("cannot combine shapes \(inputs.map(\.description).joined(separator: " and "))")
            }
            result = merged
        }
        return TensorShape(result)
    }

    /// The numpy broadcast of two shapes (either may be empty: a scalar).
    /// - Throws: `ModelError` when a pair of sizes is neither equal nor 1.
    public static func broadcast(_ a: [Int], _ b: [Int]) throws(ModelError) -> [Int] {
        let rank = max(a.count, b.count)
        let a = Array(repeating: 1, count: rank - a.count) + a, b = Array(repeating: 1, count: rank - b.count) + b
        var result: [Int] = []
        for (x, y) in zip(a, b) {
            guard x == y || x == 1 || y == 1 else { throw ModelError("cannot broadcast \(a) with \(b)") }
            result.append(x == 1 ? y : x)
        }
        return result
    }
}

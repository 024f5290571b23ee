import ModelFormat
import CoreMLSchema
import Protobuf

/// Each operation `ProgramLowering` writes, back as the IR node it came
/// from (or as a view of a tensor: a reshape between a map and its
/// flattened or batch-axis form changes nothing the IR keeps).
extension ProgramRaising {
    mutating func raise(_ operation: UnsafeMutablePointer<MILOperation>) throws {
        let type = CArrays.string(operation.pointee.type)
        guard operation.pointee.n_outputs > 0, let first = operation.pointee.outputs[0] else { throw fail("operation '\(type)' has no output", operation) }
        let name = CArrays.string(first.pointee.name)
        let shape = try outputShape(operation)
        programShapes[name] = shape
        if type != "const", type != "cast", !type.hasPrefix("constexpr_"),
           Self.dataType(of: first.pointee.type) == CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT16 {
            computesInFloat16 = true
        }
        func node(_ op: Op, _ inputs: [String]) { append(name, op, inputs) }
        if tensorModel || type == "gelu", try raiseTensor(operation, type: type, name: name, shape: shape) { return }
        if !tensorModel, try raiseMap(operation, type: type, name: name, shape: shape) { return }
        switch type {
        case "const":
            guard let entry = CArrays.buffer(operation.pointee.attributes, operation.pointee.n_attributes)
                .first(where: { CArrays.string($0?.pointee.key) == "val" }) ?? nil else { throw fail("const '\(name)' has no value", operation) }
            values[name] = .constant(try constant(entry.pointee.value))
        case "constexpr_affine_dequantize", "constexpr_blockwise_shift_scale", "constexpr_lut_to_dense":
            values[name] = .constant(try decompressed(operation, type: type, name: name, shape: shape))
        case "conv", "conv_transpose":
            // conv's weight is [C_out, C_in / groups, kH, kW], conv_transpose's [C_in, C_out / groups, kH, kW] (the IR's deconvolution's).
            let weights = try constant(operation, "weight")
            guard let kernel = weights?.floats, let shape4 = weights?.shape, shape4.count == 4 else { throw fail("\(type) '\(name)' has no 4-D weight", operation) }
            let strides = try ints(operation, "strides"), dilations = try ints(operation, "dilations"), pads = try self.pads(operation)
            guard strides.count == 2, dilations.count == 2 else { throw fail("\(type) '\(name)' is not 2-D (strides \(strides), dilations \(dilations))", operation) }
            let groups = try ints(operation, "groups").first ?? 1, transposed = type == "conv_transpose"
            let convolution = Convolution(outputChannels: transposed ? shape4[1] * groups : shape4[0], kernelChannels: transposed ? shape4[0] : shape4[1],
                                          groups: groups, kernel: Size2(shape4[2], shape4[3]), stride: Size2(strides[0], strides[1]),
                                          dilation: Size2(dilations[0], dilations[1]), padding: pads, isDeconvolution: transposed,
                                          weights: kernel, bias: try constant(operation, "bias")?.floats)
            node(.convolution(convolution), [try tensor(operation, "x")])
        case "max_pool", "avg_pool", "l2_pool":
            let kernel = try ints(operation, "kernel_sizes"), strides = try ints(operation, "strides")
            guard kernel.count == 2, strides.count == 2 else { throw fail("\(type) '\(name)' is not 2-D", operation) }
            var padding = try pads(operation)
            if try bool(operation, "ceil_mode") {
                // The output size rounded up (torch's ceil_mode, as coremltools writes it): Caffe's pooling, with its
                // rule that no window starts in the bottom or right padding; the average's divisor is not that rule's.
                guard type == "max_pool", case .explicit(let edges) = padding, edges.top == edges.bottom, edges.left == edges.right else {
                    throw fail("\(type) '\(name)' rounds its output size up with asymmetric padding or averaging", operation)
                }
                padding = .includeLastPixel(Size2(edges.top, edges.left))
            }
            let kinds: [String: Pooling.Kind] = ["max_pool": .max, "avg_pool": .average, "l2_pool": .l2]
            let pooling = Pooling(kind: kinds[type]!, kernel: Size2(kernel[0], kernel[1]), stride: Size2(strides[0], strides[1]),
                                  padding: padding, excludePaddingFromAverage: try bool(operation, "exclude_padding_from_average"))
            node(.pooling(pooling), [try tensor(operation, "x")])
        case "reduce_mean", "reduce_max":
            // Over H and W: a global pooling (its [1, C] form when the axes are not kept, as coremltools writes a
            // torch model's, is the same map to what follows: a linear or a reshape).
            guard [[2, 3], [-2, -1]].contains(try ints(operation, "axes")) else { throw fail("\(type) '\(name)' is not a global pooling", operation) }
            node(.pooling(Pooling(kind: type == "reduce_max" ? .max : .average, kernel: Size2(1, 1), stride: Size2(1, 1), global: true)),
                 [try tensor(operation, "x")])
        case "linear":
            let weights = try constant(operation, "weight")
            guard let matrix = weights?.floats, let size = weights?.shape, size.count == 2 else { throw fail("linear '\(name)' has no 2-D weight", operation) }
            node(.innerProduct(InnerProduct(inputChannels: size[1], outputChannels: size[0], weights: matrix, bias: try constant(operation, "bias")?.floats)),
                 [try tensor(operation, "x")])
        case "reshape":
            try reshape(operation, name: name, shape: shape)
        case "transpose":
            // A permute, or the first half of a channel-last flatten (then a permute and a flatten of its output, the same values).
            let perm = try ints(operation, "perm")
            guard perm.count == 4, perm[0] == 0, perm.sorted() == [0, 1, 2, 3] else { throw fail("transpose '\(name)' moves the batch axis", operation) }
            node(.permute(axes: perm), [try tensor(operation, "x")])
        case "pad":
            // [before, after] per padded axis, the last ones: coremltools gives every axis, the leading ones zero.
            let given = try ints(operation, "pad"), mode = try constant(operation, "mode")?.strings.first ?? "constant"
            guard given.count >= 4, given.count % 2 == 0, given.dropLast(4).allSatisfy({ $0 == 0 }) else {
                throw fail("pad '\(name)' does not pad the last two axes", operation)
            }
            let pads = Array(given.suffix(4))
            let kind: Padding.Kind
            switch mode {
            case "constant": kind = .constant(try constant(operation, "constant_val") == nil ? 0 : try float(operation, "constant_val"))
            case "reflect": kind = .reflection
            case "replicate": kind = .replication
            default: throw fail("pad '\(name)' has mode '\(mode)'", operation)
            }
            node(.padding(Padding(kind: kind, edges: Edges(top: pads[0], bottom: pads[1], left: pads[2], right: pads[3]))), [try tensor(operation, "x")])
        case "crop":
            let height = try ints(operation, "crop_height"), width = try ints(operation, "crop_width")
            guard height.count == 2, width.count == 2 else { throw fail("crop '\(name)' has no [begin, end] amounts", operation) }
            node(.crop(.edges(Edges(top: height[0], bottom: height[1], left: width[0], right: width[1]))), [try tensor(operation, "x")])
        case "sqrt", "exp", "abs":
            node(.unary(Unary(kind: type == "sqrt" ? .sqrt : type == "exp" ? .exp : .abs)), [try tensor(operation, "x")])
        case "rsqrt", "inverse", "log":
            let kind: Unary.Kind = type == "rsqrt" ? .rsqrt : type == "inverse" ? .inverse : .log
            node(.unary(Unary(kind: kind, epsilon: try float(operation, "epsilon"))), [try tensor(operation, "x")])
        case "pow":
            node(.unary(Unary(kind: .power, alpha: try float(operation, "y"))), [try tensor(operation, "x")])
        case "threshold":
            node(.unary(Unary(kind: .threshold, alpha: try float(operation, "alpha"))), [try tensor(operation, "x")])
        case "maximum", "minimum":
            if case .constant? = try argument(operation, "y")?.first {
                // Against one value (this writer's clip whose bounds meet; coremltools' clamps): a clip open on one side.
                let bound = try float(operation, "y")
                node(.activation(type == "maximum" ? .clip(min: bound, max: .infinity) : .clip(min: -.infinity, max: bound)), [try tensor(operation, "x")])
            } else {
                node(type == "maximum" ? .maximum : .minimum, [try tensor(operation, "x"), try tensor(operation, "y")])
            }
        case _ where type == "select" || Self.comparisonKinds[type] != nil:
            try raiseLogic(operation, type: type, name: name)
        case "cumsum", "reduce_argmax":
            // Along one axis of a tensor, or of a map (kept: as ProgramLowering writes them).
            let given = try constant(operation, "axis")?.ints.first ?? 0  // MIL's default
            let keeps = try type == "cumsum" || bool(operation, "keep_dims")
            guard let axis = irAxis(given), tensorModel || keeps else {
                throw fail("\(type) '\(name)' is not along an axis of a map (axis \(given))", operation)
            }
            let x = try tensor(operation, "x")
            if type == "cumsum" {
                node(.defined(CumSum(axis: axis, exclusive: try bool(operation, "exclusive"), reverse: try bool(operation, "reverse"))), [x])
            } else {
                node(.reduce(Reduce(mode: .argmax, axes: [axis], keepDimensions: try bool(operation, "keep_dims"))), [x])
            }
        case "sub", "reduce_log_sum_exp":
            try raiseLogSoftmaxPart(operation, type: type, name: name)
        case "identity":
            values[name] = .tensor(try tensor(operation, "x"))
        case "cast":
            // Between a float32 input or output and float16 compute: the same values.
            guard let dtype = try constant(operation, "dtype")?.strings.first, dtype == "fp16" || dtype == "fp32" else {
                throw fail("cast '\(name)' is not to fp16 or fp32", operation)
            }
            values[name] = .tensor(try tensor(operation, "x"))
        case "batch_norm":
            let mean = try floats(operation, "mean")
            node(.batchNorm(BatchNorm(channels: mean.count, epsilon: try float(operation, "epsilon"), gamma: try floats(operation, "gamma"),
                                      beta: try floats(operation, "beta"), mean: mean, variance: try floats(operation, "variance"))),
                 [try tensor(operation, "x")])
        case "l2_norm":
            // Over a map's C, H and W (a [1, C, H, W] value's last three axes): the whole value, as the IR's.
            guard (3...4).contains(sourceShape(operation, tensor: try tensor(operation, "x")).count) else { throw fail("l2_norm '\(name)' does not normalize a map", operation) }
            node(.l2Normalize(epsilon: try constant(operation, "epsilon") == nil ? 1e-6 : try float(operation, "epsilon")), [try tensor(operation, "x")])
        case "instance_norm":
            let gamma = try floats(operation, "gamma"), ones = Weights(Array(repeating: 1, count: gamma.count))
            node(.batchNorm(BatchNorm(channels: gamma.count, epsilon: try float(operation, "epsilon"), gamma: gamma, beta: try floats(operation, "beta"),
                                      mean: Weights(Array(repeating: 0, count: gamma.count)), variance: ones, computeMeanVar: true, instanceNormalization: true)),
                 [try tensor(operation, "x")])
        case "mul", "add":
            let pair = [try argument(operation, "x")?.first, try argument(operation, "y")?.first]
            switch (pair[0], pair[1]) {
            case (.tensor(let x)?, .tensor(let y)?):
                node(type == "add" ? .add(constant: 0) : .multiply(constant: 1), [x, y])
            case (.tensor(let x)?, .constant(let c)?), (.constant(let c)?, .tensor(let x)?):
                guard let values = c.floats else { throw fail("\(type) '\(name)' has a constant that is not float", operation) }
                if preprocess(type, name: name, x, values) { return }
                let affine = Self.mapShape(c.shape)
                // A constant other operations read too was a `Constant` node of its own (a YOLO region's grid).
                var constantKey = "y"
                if case .constant? = pair[0] { constantKey = "x" }
                if let shared = boundName(operation, constantKey), readers[shared, default: 0] > 1 {
                    constantNode(shared, shape: affine, values)
                    node(type == "add" ? .add(constant: 0) : .multiply(constant: 1), constantKey == "x" ? [shared, x] : [x, shared])
                    return
                }
                node(type == "add" ? .bias(Bias(shape: affine, bias: values)) : .scale(Scale(shape: affine, scale: values)), [x])
            default:
                throw fail("\(type) '\(name)' does not take a tensor", operation)
            }
        case "concat":
            guard try ints(operation, "axis") == [1], try !bool(operation, "interleave") else { throw fail("concat '\(name)' is not along channels", operation) }
            let parts = try (argument(operation, "values") ?? []).map { value -> String in
                guard case .tensor(let tensor) = value else { throw fail("concat '\(name)' takes a value that is not a tensor", operation) }
                return tensor
            }
            if parts.count == 1 { values[name] = .tensor(parts[0]) } else { node(.concat, parts) }  // one value: itself
        case "local_response_norm":
            let size = try ints(operation, "size").first ?? 0
            node(.lrn(LRN(alpha: try float(operation, "alpha"), beta: try float(operation, "beta"), localSize: size, k: try float(operation, "k"))),
                 [try tensor(operation, "x")])
        case "softmax":
            // Axis 1 of [1, C, H, W] or of [1, C] (axis -1 there, as coremltools writes a torch classifier's).
            let x = try tensor(operation, "x"), axis = try ints(operation, "axis"), rank = sourceShape(operation, tensor: x).count
            guard axis.count == 1, axis[0] == 1 || axis[0] == 1 - rank else { throw fail("softmax '\(name)' is not over channels", operation) }
            node(.softmax, [x])
        case "classify":
            try classify(operation)
        case "upsample_nearest_neighbor", "upsample_bilinear":
            let scale = Size2(try ints(operation, "scale_factor_height").first ?? 1, try ints(operation, "scale_factor_width").first ?? 1)
            let upsample = type == "upsample_nearest_neighbor" ? Upsample(scale: scale)
                : Upsample(scale: scale, mode: .bilinear, alignment: try bool(operation, "align_corners") ? .alignCorners : .halfPixel)
            node(.upsample(upsample), [try tensor(operation, "x")])
        case "resize_bilinear":
            node(.upsample(try resizeBilinear(operation, name: name, shape: shape)), [try tensor(operation, "x")])
        case "silu":
            // x * sigmoid(x), as the frontends write swish.
            let x = try tensor(operation, "x")
            append(name + "_sigmoid", .activation(.sigmoid), [x])
            node(.multiply(constant: 1), [x, name + "_sigmoid"])
        default:
            guard let activation = try activation(type, operation) else {
                throw fail("operation '\(name)' is a \(type), which is not read yet (a program this toolkit writes has none)", operation)
            }
            node(.activation(activation), [try tensor(operation, "x")])
        }
    }

    /// An image input's scale (`mul` named `<input>_scaled`), biases
    /// (`add` named `<input>_biased`) or mean image (`add` of its negation
    /// named `<input>_mean_subtracted`), as `MLProgramWriter` writes them,
    /// back into the input (not nodes: `--input` values skip them).
    mutating func preprocess(_ type: String, name: String, _ x: String, _ constant: Weights) -> Bool {
        let names = ["_scaled", "_biased", "_mean_subtracted"]
        guard let input = images.keys.first(where: { input in x == input && names.contains { name == input + $0 } }),
              var image = images[input] else { return false }
        if name == input + "_mean_subtracted" {
            guard type == "add", image.meanImage == nil, constant.count == image.channels * image.height * image.width else { return false }
            image.meanImage = Weights(constant.values.map { -$0 })
        } else if type == "mul", constant.count == 1, image.scale == 1 {
            image.scale = constant.values[0]
        } else if type == "add", constant.count == image.channels, image.channelBiases.allSatisfy({ $0 == 0 }) {
            let biases = constant.values
            switch image.colorSpace {
            case .grayscale: image.grayBias = biases[0]
            case .rgb: (image.redBias, image.greenBias, image.blueBias) = (biases[0], biases[1], biases[2])
            case .bgr: (image.blueBias, image.greenBias, image.redBias) = (biases[0], biases[1], biases[2])
            }
        } else {
            return false
        }
        images[input] = image
        values[name] = .tensor(input)
        return true
    }

    /// A scale's or bias's shape from its constant's: [1, C, 1, 1] is per channel [C], [1, C, H, W] is [C, H, W], a scalar [1].
    static func mapShape(_ shape: [Int]) -> [Int] {
        if shape.count == 4, shape[0] == 1 { return shape[2] == 1 && shape[3] == 1 ? [shape[1]] : Array(shape.dropFirst()) }
        return [shape.reduce(1, *)]
    }

    /// A window's padding: `custom` amounts (what this toolkit writes), or
    /// `valid` (none), `same` and `same_lower` (the odd pixel after or
    /// before), as coremltools writes them.
    func pads(_ operation: UnsafeMutablePointer<MILOperation>) throws -> WindowPadding {
        let given = try constant(operation, "pad_type")
        guard let padType = given == nil ? "valid" : given?.strings.first else { throw fail("a window's pad_type is not a string", operation) }
        switch padType {
        case "custom":
            let pads = try ints(operation, "pad")
            guard pads.count == 4 else { throw fail("a window's pad is not [top, bottom, left, right]", operation) }
            return .explicit(Edges(top: pads[0], bottom: pads[1], left: pads[2], right: pads[3]))
        case "valid": return .explicit(.zero)
        case "same": return .same(topLeftHeavy: false)
        case "same_lower": return .same(topLeftHeavy: true)
        default: throw fail("a window's pad_type is '\(padType)', not custom, valid, same or same_lower", operation)
        }
    }

    /// A reshape to another map is a flatten or a reshape node; any other
    /// is a view of the same values.
    mutating func reshape(_ operation: UnsafeMutablePointer<MILOperation>, name: String, shape: [Int]) throws {
        try checkReshape(operation, name: name, declared: shape)
        guard let source = try argument(operation, "x")?.first else { throw fail("reshape '\(name)' has no x", operation) }
        switch source {
        case .tensor(let tensor):
            let from = sourceShape(operation, tensor: tensor)
            guard shape.count == 4, shape[0] == 1, from.count == 4, from != shape else {
                // [1, K] before a linear or classify and back, an input's or output's [F] or [C, H, W]: the same map.
                values[name] = .tensor(tensor)
                return
            }
            // (The middle of a reshape in H, W, C order, `ProgramLowering.channelLastReshape`, is a reshape of its [H, W, C] view.)
            let flat = shape[2] == 1 && shape[3] == 1 && !name.hasSuffix("_hwc_reshaped")
            let op: Op = flat ? .flatten(.channelFirst) : .reshape(targetShape: Array(shape.dropFirst()), order: .channelFirst)
            nodes.append(Node(name: name, operation: op, inputs: [tensor], outputs: [name]))
            values[name] = .tensor(name)
        case .constant:
            throw fail("reshape '\(name)' of a constant", operation)
        }
    }

    func activation(_ type: String, _ operation: UnsafeMutablePointer<MILOperation>) throws -> Activation? {
        switch type {
        case "relu": .relu
        case "sigmoid": .sigmoid
        case "tanh": .tanh
        case "softsign": .softsign
        case "softplus": .softplus
        case "leaky_relu": .leakyRelu(alpha: try float(operation, "alpha"))
        case "thresholded_relu": .thresholdedRelu(alpha: try float(operation, "alpha"))
        case "elu": .elu(alpha: try float(operation, "alpha"))
        case "scaled_tanh": .scaledTanh(alpha: try float(operation, "alpha"), beta: try float(operation, "beta"))
        case "sigmoid_hard": .sigmoidHard(alpha: try float(operation, "alpha"), beta: try float(operation, "beta"))
        case "linear_activation": .linear(alpha: try float(operation, "alpha"), beta: try float(operation, "beta"))
        case "clip": .clip(min: try float(operation, "alpha"), max: try float(operation, "beta"))
        case "relu6": .clip(min: 0, max: 6)  // coremltools writes it; this toolkit writes clip
        case "prelu": .prelu(alpha: try floats(operation, "alpha"))
        case "softplus_parametric": .parametricSoftplus(alpha: try floats(operation, "alpha"), beta: try floats(operation, "beta"))
        default: nil
        }
    }

    /// The classifier: labels from `classes`, its features' names from the
    /// operation's two outputs; the probabilities tensor takes the
    /// probabilities feature's name, as the IR names it.
    mutating func classify(_ operation: UnsafeMutablePointer<MILOperation>) throws {
        guard operation.pointee.n_outputs == 2, let classes = try constant(operation, "classes") else { throw fail("classify has no classes", operation) }
        let label = CArrays.string(operation.pointee.outputs[0]?.pointee.name), probabilities = CArrays.string(operation.pointee.outputs[1]?.pointee.name)
        let labels: ClassLabels = classes.strings.isEmpty ? .integers(classes.longInts) : .strings(classes.strings)
        classifier = Classifier(labels: labels, predictedFeatureName: label, probabilitiesName: probabilities)
        rename(try tensor(operation, "probabilities"), to: probabilities)
    }
}

import ModelFormat

/// The IR's map operations as ML Program (CoreML5, iOS 15) operations, op
/// and argument names as coremltools' iOS15 op definitions state them.
/// Every map `[C, H, W]` is the tensor `[1, C, H, W]` in the program (a
/// vector `[F]` is `[1, F, 1, 1]`), so that convolution, pooling and
/// normalization take it as they are and broadcasting is numpy's, as
/// Core ML's NeuralNetwork layers broadcast maps. In a model with tensor
/// inputs every value has its exact shape instead, and the map operations
/// take its [1, C, H, W] tensors as they are.
///
/// This is the first slice of issue 36: an operation not lowered here is
/// refused by name, never written approximately.
struct ProgramLowering {
    let program: ProgramBuilder
    /// The IR's shapes (`Model.validate`).
    let shapes: [String: TensorShape]
    /// IR tensor name -> the program's value name.
    var values: [String: String] = [:]
    /// A model with tensor inputs: every value has its exact shape, not a map's `[1, C, H, W]` view
    /// (`ProgramLowering+Tensors` writes its rank-N operations).
    var tensorModel = false

    /// A map's shape in the program.
    static func programShape(_ shape: TensorShape) -> [Int] {
        [1, shape.channels, shape.height, shape.width]
    }

    func shape(of tensor: String) -> [Int] {
        let shape = shapes[tensor] ?? TensorShape([1])
        return tensorModel ? shape.dimensions : Self.programShape(shape)
    }

    /// A node's operations; its outputs' values are recorded.
    /// - Throws: `ModelError` naming an operation or attribute not written yet.
    mutating func lower(_ node: Node) throws {
        let inputs = node.inputs.map { values[$0] ?? $0 }
        let output = node.outputs[0]
        let shape = shape(of: output)
        let name = node.name
        if tensorModel {
            if try lowerTensor(node, inputs, shape: shape) { return }
            // A map operation takes a [1, C, H, W] tensor as it is.
            let definition = node.operation.definition
            let source = node.inputs.first.map { self.shape(of: $0) } ?? []
            guard definition.takesAnyRank || (definition.takesBatchedMaps && source.count == 4 && source[0] == 1) else {
                throw refusal(node, "a \(definition.kindName) of a tensor shaped \(source)")
            }
        }
        let result: String
        switch node.operation {
        case .split:
            // Equal parts along the channels: one output each.
            let parts = program.operation("split", outputs: node.outputs.map { name + "_" + $0 }, [
                "x": inputs[0], "num_splits": program.constant(name + "_num_splits", .ints([Int32(node.outputs.count)])),
                "axis": program.constant(name + "_axis", .ints([1])),
            ], shapes: node.outputs.map { self.shape(of: $0) })
            for (output, part) in zip(node.outputs, parts) { values[output] = part }
            return
        case .convolution(let convolution):
            result = try self.convolution(convolution, inputs[0], node: node, shape: shape)
        case .pooling(let pooling):
            result = try self.pooling(pooling, inputs[0], node: node, shape: shape)
        case .innerProduct(let product):
            let input = self.shape(of: node.inputs[0])
            let flat = program.operation("reshape", name + "_flat", ["x": inputs[0], "shape": program.constant(name + "_flat_shape", .ints([1, Int32(input[1] * input[2] * input[3])]), shape: [2])], shape: [1, input[1] * input[2] * input[3]])
            var arguments: [(String, [String])] = [("x", [flat]), ("weight", [program.constant(name + "_weight", product.weights, shape: [product.outputChannels, product.inputChannels])])]
            if let bias = product.bias { arguments.append(("bias", [program.constant(name + "_bias", bias, shape: [product.outputChannels])])) }
            let linear = program.operation("linear", name + "_linear", arguments, shape: [1, product.outputChannels])
            result = program.operation("reshape", name, ["x": linear, "shape": program.constant(name + "_shape", .ints(shape.map { Int32($0) }), shape: [4])], shape: shape)
        case .batchNorm(let norm):
            let channels = [norm.channels]
            guard !norm.computeMeanVar else {
                // Each channel's own mean and variance over H and W (the runtime's, with or without instanceNormalization: one image).
                result = program.operation("instance_norm", name, [
                    "x": inputs[0], "gamma": program.constant(name + "_gamma", norm.gamma, shape: channels),
                    "beta": program.constant(name + "_beta", norm.beta, shape: channels), "epsilon": program.constant(name + "_epsilon", .floats([norm.epsilon])),
                ], shape: shape)
                break
            }
            result = program.operation("batch_norm", name, [
                "x": inputs[0],
                "mean": program.constant(name + "_mean", norm.mean, shape: channels),
                "variance": program.constant(name + "_variance", norm.variance, shape: channels),
                "gamma": program.constant(name + "_gamma", norm.gamma, shape: channels),
                "beta": program.constant(name + "_beta", norm.beta, shape: channels),
                "epsilon": program.constant(name + "_epsilon", .floats([norm.epsilon])),
            ], shape: shape)
        case .scale(let scale):
            let factor = program.constant(name + "_scale", scale.scale, shape: Self.broadcastShape(scale.shape))
            let scaled = program.operation("mul", scale.bias == nil ? name : name + "_scaled", ["x": inputs[0], "y": factor], shape: shape)
            if let bias = scale.bias {
                result = program.operation("add", name, ["x": scaled, "y": program.constant(name + "_bias", bias, shape: Self.broadcastShape(scale.biasShape))], shape: shape)
            } else {
                result = scaled
            }
        case .bias(let bias):
            result = program.operation("add", name, ["x": inputs[0], "y": program.constant(name + "_bias", bias.bias, shape: Self.broadcastShape(bias.shape))], shape: shape)
        case .activation(let activation):
            result = try self.activation(activation, inputs[0], node: node, shape: shape)
        case .upsample(let upsample):
            result = try self.upsample(upsample, inputs[0], node: node, shape: shape)
        case .padding(let padding):
            result = self.padding(padding, inputs[0], node: node, shape: shape)
        case .crop(let crop):
            result = try self.crop(crop, inputs[0], node: node, shape: shape)
        case .defined(let op) where op.definition is Transpose:
            result = try permute((op.definition as! Transpose).axes, inputs[0], node: node, shape: shape)
        case .maximum:
            result = pairwise("maximum", inputs, name: name, shape: shape)
        case .minimum:
            result = pairwise("minimum", inputs, name: name, shape: shape)
        case .average:
            result = average(inputs, name: name, shape: shape)
        case .unary(let unary):
            result = try self.unary(unary, inputs[0], node: node, shape: shape)
        case .add(let constant):
            result = elementwise("add", inputs, constant: constant, neutral: 0, name: name, shape: shape)
        case .multiply(let constant):
            result = elementwise("mul", inputs, constant: constant, neutral: 1, name: name, shape: shape)
        case .defined(let op) where (op.definition as? Concat)?.axis == Concat.channelAxis:
            result = program.operation("concat", name, [("values", inputs), ("axis", [program.constant(name + "_axis", .ints([1]))]),
                                                        ("interleave", [program.constant(name + "_interleave", .bools([false]))])], shape: shape)
        case .lrn(let lrn):
            result = program.operation("local_response_norm", name, [
                "x": inputs[0], "size": program.constant(name + "_size", .ints([Int32(lrn.localSize)])),
                "alpha": program.constant(name + "_alpha", .floats([lrn.alpha])), "beta": program.constant(name + "_beta", .floats([lrn.beta])),
                "k": program.constant(name + "_k", .floats([lrn.k])),
            ], shape: shape)
        case .defined(let op) where (op.definition as? Softmax)?.axis == Softmax.channelAxis:
            result = program.operation("softmax", name, ["x": inputs[0], "axis": program.constant(name + "_axis", .ints([1]))], shape: shape)
        case .l2Normalize(let epsilon):
            result = program.operation("l2_norm", name, ["x": inputs[0], "epsilon": program.constant(name + "_epsilon", .floats([epsilon]))], shape: shape)
        case .flatten(let order):
            var input = inputs[0]
            if order == .channelLast {
                let source = self.shape(of: node.inputs[0])
                input = program.operation("transpose", name + "_hwc", ["x": input, "perm": program.constant(name + "_perm", .ints([0, 2, 3, 1]), shape: [4])],
                                          shape: [1, source[2], source[3], source[1]])
            }
            result = program.operation("reshape", name, ["x": input, "shape": program.constant(name + "_shape", .ints(shape.map { Int32($0) }), shape: [4])], shape: shape)
        case .defined(let op) where (op.definition as? Reshape)?.targetShape.count == 3:
            guard (op.definition as! Reshape).order == .channelFirst else {
                result = channelLastReshape(inputs[0], node: node, shape: shape)
                break
            }
            result = program.operation("reshape", name, ["x": inputs[0], "shape": program.constant(name + "_shape", .ints(shape.map { Int32($0) }), shape: [4])], shape: shape)
        case .defined(let op) where op.definition is GELU:
            result = gelu(op.definition as! GELU, inputs[0], name: name, shape: shape)
        case .defined(let op) where op.definition is Slice:
            result = sliceByIndex(op.definition as! Slice, inputs[0], source: self.shape(of: node.inputs[0]), name: name, shape: shape)
        case .defined(let op) where op.definition is Constant:
            result = try mapConstant(op.definition as! Constant, node: node, shape: shape)
        case .defined(let op) where op.definition is LayerNorm:
            result = try mapLayerNorm(op.definition as! LayerNorm, inputs[0], node: node, shape: shape)
        case .defined(let op) where op.definition is Reduce:
            result = try mapReduce(op.definition as! Reduce, inputs[0], node: node, shape: shape)
        case .defined(let op) where op.definition is CumSum:
            let sum = op.definition as! CumSum
            result = cumSum(sum, inputs[0], axis: try mapAxes([sum.axis], of: node.inputs[0], node: node, "a running sum")[0], name: name, shape: shape)
        case .defined(let op) where op.definition is Comparison:
            result = comparison(op.definition as! Comparison, inputs, node: node, shape: shape)
        case .defined(let op) where op.definition is Where:
            result = select(inputs, node: node, shape: shape)
        case .defined(let op) where op.definition is LogSoftmax:
            result = try logSoftmax(op.definition as! LogSoftmax, inputs[0], node: node, shape: shape)
        default:
            throw refusal(node, node.operation.definition.kindName)
        }
        values[output] = result
    }

    /// `op` over the inputs in turn, then with `constant` unless it is `neutral`.
    private func elementwise(_ op: String, _ inputs: [String], constant: Float, neutral: Float, name: String, shape: [Int]) -> String {
        var terms = inputs
        if constant != neutral || terms.count == 1 { terms.append(program.constant(name + "_constant", .floats([constant]))) }
        return pairwise(op, terms, name: name, shape: shape)
    }

    /// A per-channel (`[C]`), per-position (`[C, H, W]`) or single (`[1]`)
    /// parameter's shape against `[1, C, H, W]`.
    static func broadcastShape(_ shape: [Int]) -> [Int] {
        switch shape.count {
        case 1: [1, shape[0], 1, 1]
        case 3: [1] + shape
        default: shape
        }
    }

    func refusal(_ node: Node, _ what: String) -> ModelError {
        ModelError("layer '\(node.name)': \(option: .convertTo) does not yet write \(what)")
    }
}

import ModelFormat
import CoreMLSchema
import Protobuf

/// The operations `ProgramLowering+Tensors` writes for a model with tensor
/// inputs, back as the IR's rank-N operations; a constant an operation
/// takes as a tensor (an `add`'s, a `concat`'s, a `matmul`'s) becomes a
/// `Constant` node named as the `const`.
extension ProgramRaising {
    /// Whether a program of tensor inputs was written: an array input the
    /// program takes as it is, not reshaped to a map (`<input>_map`), or
    /// an image input taken by the `identity` `<input>_tensor`.
    static func isTensorProgram(inputs: [Input], operations: [UnsafeMutablePointer<MILOperation>?]) -> Bool {
        func names(_ type: String) -> Set<String> {
            Set(operations.compactMap { operation -> String? in
                guard let operation, CArrays.string(operation.pointee.type) == type, operation.pointee.n_outputs > 0 else { return nil }
                return CArrays.string(operation.pointee.outputs[0]?.pointee.name)
            })
        }
        let arrays = inputs.filter { if case .array = $0.kind { true } else { false } }.map(\.name)
        let images = inputs.filter { $0.image != nil }.map(\.name)
        if !images.isEmpty, case let identities = names("identity"), images.contains(where: { identities.contains($0 + "_tensor") }) { return true }
        guard !arrays.isEmpty else { return false }
        let reshapes = names("reshape")
        return !arrays.contains { reshapes.contains($0 + "_map") }
    }

    /// Raises `operation` when it is a rank-N one of a tensor program; false for any other.
    mutating func raiseTensor(_ operation: UnsafeMutablePointer<MILOperation>, type: String, name: String, shape: [Int]) throws -> Bool {
        func node(_ op: Op, _ inputs: [String]) { append(name, op, inputs) }
        switch type {
        case "reshape":
            try checkReshape(operation, name: name, declared: shape)
            node(.reshape(targetShape: shape), [try tensor(operation, "x")])
        case "transpose":
            node(.defined(Transpose(axes: try ints(operation, "perm"))), [try tensor(operation, "x")])
        case "concat":
            guard try !bool(operation, "interleave"), let axis = try ints(operation, "axis").first else { throw fail("concat '\(name)' interleaves", operation) }
            let parts = try operands(operation, "values")
            // One value (coremltools writes a dense block's first concatenation so): the value itself, its axis one of its own.
            if parts.count == 1 {
                let rank = shape.count
                guard (-rank..<rank).contains(axis) else { throw fail("concat '\(name)' joins along axis \(axis) of a rank-\(rank) value", operation) }
                values[name] = .tensor(parts[0])
            } else {
                node(.defined(Concat(axis: axis)), parts)
            }
        case "softmax":
            guard let axis = try ints(operation, "axis").first else { throw fail("softmax '\(name)' has no axis", operation) }
            node(.defined(Softmax(axis: axis)), [try tensor(operation, "x")])
        case "slice_by_index":
            for mask in ["begin_mask", "end_mask", "squeeze_mask"] where try constant(operation, mask)?.bools.contains(true) == true {
                throw fail("slice_by_index '\(name)' has a \(mask), which is not read yet", operation)
            }
            let begin = try ints(operation, "begin")
            let stride = try constant(operation, "stride")?.ints ?? Array(repeating: 1, count: begin.count)
            node(.slice(Slice(begin: begin, end: try ints(operation, "end"), strides: stride)), [try tensor(operation, "x")])
        case let type where Self.reductionModes[type] != nil:
            node(.reduce(Reduce(mode: Self.reductionModes[type]!, axes: try ints(operation, "axes"), keepDimensions: try bool(operation, "keep_dims"))),
                 [try tensor(operation, "x")])
        case "matmul":
            let transposeX = try bool(operation, "transpose_x"), transposeY = try bool(operation, "transpose_y")
            if case .constant(let matrix)? = try argument(operation, "y")?.first, let weights = matrix.floats, matrix.shape.count == 2, transposeY, !transposeX {
                node(.defined(MatMul(inputChannels: matrix.shape[1], outputChannels: matrix.shape[0], weights: weights)), [try tensor(operation, "x")])
            } else {
                node(.defined(MatMul(transposeA: transposeX, transposeB: transposeY)), try operands(operation, "x") + operands(operation, "y"))
            }
        case "linear":
            // coremltools' form of a fully connected layer on [..., K]: weight [N, K], as MatMul stores it.
            guard let weight = try constant(operation, "weight"), let matrix = weight.floats, weight.shape.count == 2 else {
                throw fail("linear '\(name)' has no 2-D constant weight", operation)
            }
            node(.defined(MatMul(inputChannels: weight.shape[1], outputChannels: weight.shape[0], weights: matrix,
                                 bias: try constant(operation, "bias")?.floats)), [try tensor(operation, "x")])
        case "layer_norm":
            let x = try tensor(operation, "x")
            let dims = sourceShape(operation, tensor: x)
            let rank = dims.count, axes = try ints(operation, "axes").map { $0 < 0 ? $0 + rank : $0 }  // coremltools writes [-1]
            let axis: Int
            guard !axes.isEmpty, axes.count <= rank else { throw fail("layer_norm '\(name)' normalizes axes \(axes) of a rank-\(rank) tensor", operation) }
            if axes == Array((rank - axes.count)..<rank) {
                axis = -1
            } else if axes.count == 1, axes[0] == rank - 3 {
                axis = -3
            } else {
                throw fail("layer_norm '\(name)' normalizes axes \(axes) of a rank-\(rank) tensor", operation)
            }
            node(.defined(LayerNorm(normalizedShape: axes.map { dims[$0] }, epsilon: try float(operation, "epsilon"), gamma: try constant(operation, "gamma")?.floats,
                                    beta: try constant(operation, "beta")?.floats, axis: axis)), [x])
        case "gelu":
            let modes: [String: GELU.Mode] = ["EXACT": .exact, "TANH_APPROXIMATION": .tanhApproximation, "SIGMOID_APPROXIMATION": .sigmoidApproximation]
            guard let mode = modes[try constant(operation, "mode")?.strings.first ?? "EXACT"] else { throw fail("gelu '\(name)' has an unknown mode", operation) }
            node(.defined(GELU(mode: mode)), [try tensor(operation, "x")])
        case "add", "mul":
            let pair = [try argument(operation, "x")?.first, try argument(operation, "y")?.first]
            // An image input's preprocessing (`<input>_scaled`, `<input>_biased`): back into the input.
            if case .tensor(let x)? = pair[0], case .constant(let constant)? = pair[1], let values = constant.floats,
               preprocess(type, name: name, x, values) { return true }
            if case .constant(let scalar)? = pair[1], scalar.shape.isEmpty, let value = scalar.floats, value.count == 1 {
                node(type == "add" ? .add(constant: value.values[0]) : .multiply(constant: value.values[0]), [try tensor(operation, "x")])
            } else {
                node(type == "add" ? .add(constant: 0) : .multiply(constant: 1), try operands(operation, "x") + operands(operation, "y"))
            }
        default:
            return false
        }
        return true
    }

    /// A `Constant` node named `name`, made once however many operations read it.
    mutating func constantNode(_ name: String, shape: [Int], _ data: Weights) {
        guard constantNodes.insert(name).inserted else { return }
        nodes.append(Node(name: name, operation: .constant(shape: shape, data: data), inputs: [], outputs: [name]))
    }

    /// The tensors bound to `key`, a float constant made a `Constant` node (once) named as it.
    mutating func operands(_ operation: UnsafeMutablePointer<MILOperation>, _ key: String) throws -> [String] {
        guard let bindings = bindings(operation, key), !bindings.isEmpty else { throw fail("input '\(key)' is missing", operation) }
        return try bindings.map { binding in
            guard let binding, binding.pointee.binding_case == CORE_ML__SPECIFICATION__MILSPEC__ARGUMENT__BINDING__BINDING_NAME else {
                throw fail("'\(key)' is not bound to a named value", operation)
            }
            let name = CArrays.string(binding.pointee.name)
            switch values[name] {
            case .tensor(let tensor)?:
                return tensor
            case .constant(let constant)?:
                guard let data = constant.floats else { throw fail("'\(key)' names '\(name)', a constant that is not float", binding) }
                constantNode(name, shape: constant.shape.isEmpty ? [1] : constant.shape, data)
                return name
            case nil:
                throw fail("'\(key)' names '\(name)', which no earlier operation makes", binding)
            }
        }
    }
}

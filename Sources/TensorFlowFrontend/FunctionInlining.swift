import TensorFlowSchema
import Protobuf

/// Calls into the graph's function library (`StatefulPartitionedCall`,
/// `PartitionedCall`: a frozen Keras 3 grouped Conv2D is one) replaced by
/// the function's body. Each body node becomes `call/node`; the body's
/// inputs by argument name become the call's inputs, its `node:arg:index`
/// tensor names `call/node:index`; the call node itself becomes an
/// Identity (IdentityN for several outputs) of what the function returns.
extension TFGraph {
    static let callOps: Set<String> = ["StatefulPartitionedCall", "PartitionedCall"]
    /// Ops with more than one output argument, their arguments in order: a
    /// body names their tensors by argument, which gives the output index.
    /// Every other op is taken to have one (possibly a list).
    static let outputArguments: [String: [String]] = [
        "FusedBatchNorm": ["y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"],
        "FusedBatchNormV2": ["y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"],
        "FusedBatchNormV3": ["y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2", "reserve_space_3"],
        "TopKV2": ["values", "indices"], "Unique": ["y", "idx"],
    ]
    /// Calls within inlined bodies are inlined too, this deep at most, and
    /// to this many nodes in all (a function that calls itself twice per
    /// level would otherwise double the graph at each).
    static let maximumCallDepth = 8
    static let maximumInlinedNodes = 1 << 20

    mutating func inlineCalls() throws {
        let library = decoded.root.pointee.library
        var functions: [String: UnsafeMutablePointer<Tensorflow__FunctionDef>] = [:]
        if let library {
            for case let function? in CArrays.buffer(library.pointee.function, library.pointee.n_function) {
                guard let signature = function.pointee.signature else { continue }
                functions[CArrays.string(signature.pointee.name)] = function
            }
        }
        var depth: [String: Int] = [:]
        var position = 0
        while position < nodes.count {
            defer { position += 1 }
            let call = nodes[position]
            guard Self.callOps.contains(call.op) else { continue }
            guard let attribute = call[attribute: "f"], attribute.pointee.value_case == TENSORFLOW__ATTR_VALUE__VALUE_FUNC,
                  let target = attribute.pointee.func, let function = functions[CArrays.string(target.pointee.name)] else {
                throw call.fail("calls a function the graph's library does not hold")
            }
            let level = depth[call.name] ?? 1
            guard level <= Self.maximumCallDepth else { throw call.fail("calls nest more than \(Self.maximumCallDepth) deep") }
            try inline(function.pointee, at: position, depth: level, depths: &depth)
        }
        resolveInputs()
    }

    private mutating func inline(_ function: Tensorflow__FunctionDef, at position: Int, depth level: Int, depths: inout [String: Int]) throws {
        let call = nodes[position]
        guard let signature = function.signature?.pointee else { throw call.fail("its function has no signature") }
        let arguments = CArrays.buffer(signature.input_arg, signature.n_input_arg).map { CArrays.string($0?.pointee.name) }
        guard arguments.count == call.inputs.count else {
            throw call.fail("passes \(call.inputs.count) inputs to a function of \(arguments.count) arguments")
        }
        let argument = Dictionary(zip(arguments, call.inputs), uniquingKeysWith: { first, _ in first })
        let body = CArrays.buffer(function.node_def, function.n_node_def).compactMap { $0 }
        let ops = Dictionary(body.map { (CArrays.string($0.pointee.name), CArrays.string($0.pointee.op)) }, uniquingKeysWith: { first, _ in first })
        func reference(_ text: String) throws -> TensorRef {
            if let passed = argument[text] { return passed }
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, let inner = ops[parts[0]], let offset = Int(parts[2]), offset >= 0 else {
                guard parts.count == 1, ops[text] != nil else { throw call.fail("its function names the tensor '\(text)', which it does not define") }
                return TensorRef(node: "\(call.name)/\(text)", index: 0)
            }
            var index = offset
            if let names = Self.outputArguments[inner] {
                guard let argumentIndex = names.firstIndex(of: parts[1]) else { throw call.fail("its function reads '\(text)', an unknown output of \(inner)") }
                guard argumentIndex == 0 || offset == 0 else { throw call.fail("its function reads '\(text)', which is not supported") }
                index = argumentIndex + offset
            }
            return TensorRef(node: "\(call.name)/\(parts[0])", index: index)
        }
        guard nodes.count + body.count <= Self.maximumInlinedNodes else {
            throw call.fail("inlining the graph's function calls would make more than \(Self.maximumInlinedNodes) nodes")
        }
        for node in body {
            let n = node.pointee
            let name = "\(call.name)/\(CArrays.string(n.name))"
            guard index[name] == nil else { throw call.fail("inlining its function would make a second node '\(name)'") }
            let inputs = try CArrays.buffer(n.input, n.n_input).compactMap { input -> TensorRef? in
                guard let input, input.pointee != CChar(UInt8(ascii: "^")) else { return nil }
                return try reference(String(cString: input))
            }
            index[name] = nodes.count
            nodes.append(TFNode(name: name, op: CArrays.string(n.op), inputs: inputs, attributeEntries: CArrays.buffer(n.attr, n.n_attr)))
            if Self.callOps.contains(nodes[nodes.count - 1].op) { depths[name] = level + 1 }
        }
        let returned = Dictionary(CArrays.buffer(function.ret, function.n_ret).compactMap { entry in
            entry.map { (CArrays.string($0.pointee.key), CArrays.string($0.pointee.value)) }
        }, uniquingKeysWith: { first, _ in first })
        let outputs = try CArrays.buffer(signature.output_arg, signature.n_output_arg).map { output -> TensorRef in
            let name = CArrays.string(output?.pointee.name)
            guard let tensor = returned[name] else { throw call.fail("its function does not return its output '\(name)'") }
            return try reference(tensor)
        }
        nodes[position].op = outputs.count == 1 ? "Identity" : "IdentityN"
        nodes[position].inputs = outputs
        nodes[position].attributeEntries = UnsafeBufferPointer(start: nil, count: 0)
    }
}

import ModelFormat

/// The kernel that executes `node`, given its input and output shapes:
/// its operation's `KernelMaking` conformance, next to the kernel.
func makeKernel(_ node: Node, inputs: [TensorShape], outputs: [TensorShape]) throws -> any Kernel {
    try checkLoaded(node)
    guard let making = node.operation.definition as? any KernelMaking else {
        throw RuntimeError("layer '\(node.name)': the runtime cannot execute the operation '\(node.operation.kindName)'")
    }
    return making.kernel(inputs: inputs, outputs: outputs)
}

/// How the runtime executes one `OpDefinition`: every operation conforms,
/// next to its kernel; a new one does too.
protocol KernelMaking: OpDefinition {
    /// The kernel for these (checked) input and output shapes.
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel
}

/// Weights read structure-only cannot be executed.
private func checkLoaded(_ node: Node) throws {
    let mirror = Mirror(reflecting: node.operation)
    func scan(_ value: Any) -> Bool {
        if let weights = value as? Weights { return weights.isLoaded }
        return Mirror(reflecting: value).children.allSatisfy { scan($0.value) }
    }
    guard mirror.children.allSatisfy({ scan($0.value) }) else {
        throw RuntimeError("layer '\(node.name)': weights were not loaded (the model was read structure-only)")
    }
}

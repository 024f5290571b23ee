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
        for node in model.nodes { _ = try addOutputShapes(of: node, to: &shapes) }
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
            return image.asTensor ? TensorShape([1, image.channels, image.height, image.width])
                : TensorShape(channels: image.channels, height: image.height, width: image.width)
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

    /// Appends the nodes a frontend made for one source layer to `nodes`,
    /// giving their outputs their shapes (`addOutputShapes`): the step
    /// every frontend's walk takes. Returns the output names.
    /// - Throws: `ModelError` naming the node that does not fit.
    @discardableResult
    public static func append(_ emitted: [Node], to nodes: inout [Node],
                              shapes: inout [String: TensorShape]) throws(ModelError) -> [String] {
        var names: [String] = []
        for node in emitted {
            names += try addOutputShapes(of: node, to: &shapes)
            nodes.append(node)
        }
        return names
    }

    /// Adds the shapes of `node`'s outputs to `shapes`, which holds its
    /// inputs' (`checkedOutputShapes`); returns the output names.
    static func addOutputShapes(of node: Node, to shapes: inout [String: TensorShape]) throws(ModelError) -> [String] {
        var inputs: [TensorShape] = []
        for name in node.inputs {
            guard let shape = shapes[name] else {
                throw ModelError(node: node.name, "input '\(name)' is not produced by an earlier layer or a model input")
            }
            inputs.append(shape)
        }
        let outputs = try checkedOutputShapes(of: node, inputs: inputs)
        guard outputs.count == node.outputs.count else {
            throw ModelError(node: node.name, "has \(node.outputs.count) outputs, the operation gives \(outputs.count)")
        }
        for (name, shape) in zip(node.outputs, outputs) { shapes[name] = shape }
        return node.outputs
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
    /// a slice past the end has length 0): the operation's own rule
    /// (`OpDefinition.outputShapes`), after its attributes, its input
    /// count and the inputs' sizes and ranks are checked.
    public static func outputShapes(of node: Node, inputs: [TensorShape]) throws(ModelError) -> [TensorShape] {
        func fail(_ message: String) -> ModelError { ModelError(node: node.name, message) }
        let definition = node.operation.definition
        try checkAttributes(of: node, definition)
        for shape in inputs where shape.dimensions.contains(where: { $0 < 0 || $0 > maximumSize }) {
            throw fail("an input has the shape \(shape), too large")
        }
        // Input shapes come one per input (checked above): this guards the definitions' indexing.
        guard definition.inputCounts.contains(inputs.count) else { throw fail("has \(inputs.count) input shapes") }
        let batched = { (shape: TensorShape) in definition.takesBatchedMaps && shape.rank == 4 && shape.dimensions[0] == 1 }
        if !definition.takesAnyRank, let shape = inputs.first(where: { $0.rank != 3 && !batched($0) }) {
            throw fail("takes [C, H, W] tensors, gets \(shape)")
        }
        do {
            guard !definition.takesAnyRank, inputs.contains(where: batched) else {
                return try definition.outputShapes(inputs, outputCount: node.outputs.count)
            }
            return try batchedMapShapes(definition, inputs, outputCount: node.outputs.count)
        } catch { throw fail(error.message) }
    }

    /// The shapes of an operation on [1, C, H, W] tensors that it takes as
    /// [C, H, W] maps with a batch axis (`OpDefinition.takesBatchedMaps`):
    /// its rule on the maps, each output given the batch axis back.
    /// - Throws: `ModelError` when maps and batched tensors are mixed.
    static func batchedMapShapes(_ definition: any OpDefinition, _ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        guard inputs.allSatisfy({ $0.rank == 4 }) else {
            throw ModelError("mixes [C, H, W] maps with [1, C, H, W] tensors: \(inputs.map(\.description).joined(separator: ", "))")
        }
        let maps = inputs.map { TensorShape(Array($0.dimensions.dropFirst())) }
        return try definition.outputShapes(maps, outputCount: outputCount).map { TensorShape([1] + $0.dimensions) }
    }

    /// The numpy broadcast of two shapes (either may be empty: a scalar).
    /// - Throws: `ModelError` when a pair of sizes is neither equal nor 1.
    public static func broadcast(_ a: [Int], _ b: [Int]) throws(ModelError) -> [Int] {
        let rank = max(a.count, b.count)
        let paddedA = Array(repeating: 1, count: rank - a.count) + a, paddedB = Array(repeating: 1, count: rank - b.count) + b
        var result: [Int] = []
        for (x, y) in zip(paddedA, paddedB) {
            guard x == y || x == 1 || y == 1 else { throw ModelError("cannot broadcast \(a) with \(b)") }
            result.append(x == 1 ? y : x)  // a size-1 axis takes the other's size, 0 included
        }
        return result
    }

    /// The shape all of `shapes` broadcast to, as numpy broadcasts them
    /// (nil when they do not).
    public static func broadcast(_ shapes: [TensorShape]) -> TensorShape? {
        var result = shapes.first?.dimensions ?? []
        for shape in shapes.dropFirst() {
            guard let merged = try? broadcast(result, shape.dimensions) else { return nil }
            result = merged
        }
        return TensorShape(result)
    }

    /// The largest size any dimension or size attribute may have
    /// (`AttributeBounds`: a product of two fits an Int with room to spare).
    public static let maximumSize = 1 << 30

    /// Checks `node`'s input count and its operation's attributes
    /// (`OpDefinition.checkAttributes`).
    /// - Throws: `ModelError` naming the node and the attribute.
    static func checkAttributes(of node: Node, _ definition: any OpDefinition) throws(ModelError) {
        let range = definition.inputCounts
        guard range.contains(node.inputs.count) else {
            let expected = range.lowerBound == range.upperBound ? "\(range.lowerBound)"
                : range.upperBound == .max ? "at least \(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
            throw ModelError(node: node.name, "has \(node.inputs.count) inputs, the operation takes \(expected)")
        }
        do { try definition.checkAttributes() } catch { throw ModelError(node: node.name, error.message) }
    }
}

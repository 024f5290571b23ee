import ModelFormat

/// Counts that describe a model at a glance: layers by type, parameters,
/// weight bytes, multiply-accumulates. Computed from the structure alone,
/// so they work on a structure-only read that never touched the weights.
public struct ModelStatistics: Equatable, Sendable {
    /// Number of layers of each kind, in order of first appearance.
    public var layerCounts: [(kind: String, count: Int)]
    /// Number of weight values.
    public var parameterCount: Int
    /// Multiply-accumulate operations for one prediction.
    public var multiplyAccumulates: Int
    /// Shape of every tensor, when shape inference succeeded.
    public var shapes: [String: TensorShape]

    /// Bytes of the weights held as float32 (the stored size may differ:
    /// see `InspectedModel.parametersByPrecision`).
    public var weightBytes: Int { parameterCount * MemoryLayout<Float>.size }

    public init(_ model: Model) {
        var kinds: [String] = []
        var counts: [String: Int] = [:]
        for node in model.nodes {
            let kind = node.operation.kindName
            if counts[kind] == nil { kinds.append(kind) }
            counts[kind, default: 0] += 1
        }
        layerCounts = kinds.map { ($0, counts[$0]!) }
        parameterCount = model.nodes.reduce(0) { $0 + $1.operation.parameterCount }
        let shapes = (try? ShapeInference.shapes(of: model)) ?? [:]
        self.shapes = shapes
        // Saturating: a hostile file's attributes must not trap a summary.
        multiplyAccumulates = model.nodes.reduce(0) { total, node in
            let (sum, overflow) = total.addingReportingOverflow(node.multiplyAccumulates(shapes: shapes))
            return overflow ? .max : sum
        }
    }

    public static func == (lhs: ModelStatistics, rhs: ModelStatistics) -> Bool {
        lhs.layerCounts.elementsEqual(rhs.layerCounts, by: ==) && lhs.parameterCount == rhs.parameterCount
            && lhs.multiplyAccumulates == rhs.multiplyAccumulates && lhs.shapes == rhs.shapes
    }
}

extension Op {
    /// Number of weight values the operation carries.
    public var parameterCount: Int {
        weightTensors.reduce(0) { $0 + $1.values.count }
    }
}

extension Node {
    /// Multiply-accumulates of the layer, given the model's tensor shapes
    /// (all of them, or none when shape inference failed: then only what
    /// the attributes tell, an inner product's), Int.max when the count
    /// overflows.
    public func multiplyAccumulates(shapes: [String: TensorShape]) -> Int {
        let inputShapes = inputs.compactMap { shapes[$0] }, outputShapes = outputs.compactMap { shapes[$0] }
        return operation.definition.multiplyAccumulates(inputs: inputShapes, outputs: outputShapes)
    }
}

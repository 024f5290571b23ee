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
            let macs = if let definition = node.operation.definition {
                definition.multiplyAccumulates(inputs: node.inputs.compactMap { shapes[$0] }, outputs: node.outputs.compactMap { shapes[$0] })
            } else {
                node.multiplyAccumulates(outputShape: node.outputs.first.flatMap { shapes[$0] })
            }
            let (sum, overflow) = total.addingReportingOverflow(macs)
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
    /// Multiply-accumulates of the layer, given its output shape (Int.max
    /// when the count overflows).
    public func multiplyAccumulates(outputShape: TensorShape?) -> Int {
        let factors: [Int]
        switch operation {
        case .convolution(let c):
            guard let shape = outputShape, c.stride.height > 0, c.stride.width > 0 else { return 0 }
            // A deconvolution: every input pixel meets every weight once, and
            // the input is about the output divided by the stride. A
            // convolution: every output value takes one kernel's worth.
            factors = c.isDeconvolution ? [c.weights.count, shape.height / c.stride.height, shape.width / c.stride.width]
                                        : [shape.count, c.kernelChannels, c.kernel.height, c.kernel.width]
        case .innerProduct(let p):
            factors = [p.inputChannels, p.outputChannels]
        default:
            return 0
        }
        guard factors.allSatisfy({ $0 >= 0 }) else { return 0 }
        return factors.checkedProduct ?? .max
    }
}

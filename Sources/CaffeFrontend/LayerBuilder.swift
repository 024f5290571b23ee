import ModelFormat
import CaffeSchema

/// What a layer mapping sees: the Caffe layer, the tensors and shapes of its
/// bottoms, its learned blobs, and names for the tensors it produces.
struct LayerBuilder {
    let layer: CaffeLayer
    let inputs: [String]
    let inputShapes: [TensorShape]
    /// The bottoms' ranks as Caffe counts them (batch axis included).
    let inputRanks: [Int]
    let blobs: [Blob]
    /// The tensor name each top gets (fresh names for in-place tops).
    let outputs: [String]
    /// Without weights, a missing blob is a stand-in: zeros for a vector
    /// (the per-channel statistics that folds read), else unloaded values
    /// (the count alone, as a structure-only read of a weights file gives).
    var structureOnly = false

    var input: String { inputs[0] }
    var inputShape: TensorShape { inputShapes[0] }
    var output: String { outputs[0] }

    func fail(_ message: String) -> CaffeError {
        CaffeError("layer '\(layer.name)' (\(layer.type)): \(message)")
    }

    /// A name for an intermediate tensor of a layer that becomes several nodes.
    func temporary(_ suffix: String) -> String { "\(layer.name)__\(suffix)" }

    /// A node named after the layer (with a suffix when the layer becomes several).
    func node(_ op: Op, inputs: [String], output: String, suffix: String? = nil) -> Node {
        Node(name: suffix.map { "\(layer.name)__\($0)" } ?? layer.name, operation: op, inputs: inputs, outputs: [output])
    }

    /// Blob `index`, checked to hold as many values as `shape` (Caffe's
    /// own layout of the blob; legacy files may pad it with 1s).
    func blob(_ index: Int, shape: [Int], _ what: String) throws -> Weights {
        guard index < blobs.count else {
            if structureOnly && blobs.isEmpty, let count = shape.checkedProduct, count <= TensorShape.maximumCount {
                return shape.count <= 1 && count <= 4096 ? Weights([Float](repeating: 0, count: count)) : Weights(unloadedCount: count)
            }
            throw fail("needs \(what) of shape \(shape) (blob \(index)), but the weights have \(blobs.count) blob(s) for this layer")
        }
        // Caffe copies a blob only of the target's shape (legacy 4-D shapes padded with leading 1s): the
        // same count in another shape (a kernel h x w stored w x h) would be read in the wrong order.
        func unpadded(_ dims: [Int]) -> [Int] { Array(dims.drop(while: { $0 == 1 }).isEmpty ? [1] : dims.drop(while: { $0 == 1 })) }
        guard blobs[index].count == shape.checkedProduct, unpadded(blobs[index].shape) == unpadded(shape) else {
            throw fail("\(what) (blob \(index)) has shape \(blobs[index].shape), the deploy definition needs \(shape)")
        }
        return try blobs[index].loaded()
    }

    /// A layer's axis parameter counted from the first bottom's Caffe rank
    /// (negative: from the end), checked to name one of its axes.
    func axis(_ raw: Int) throws -> Int {
        let rank = inputRanks[0]
        let axis = raw < 0 ? raw + rank : raw
        guard (0..<rank).contains(axis) else { throw fail("axis \(raw) is out of range for a \(rank)-axis input") }
        return axis
    }

    func expectBottoms(_ count: ClosedRange<Int>) throws {
        guard count.contains(inputs.count) else {
            throw fail("has \(inputs.count) bottom(s), expected \(count.lowerBound == count.upperBound ? "\(count.lowerBound)" : "\(count)")")
        }
    }
}

/// Caffe's repeated-or-h/w window parameters: `kernel_size: 3`, or
/// `kernel_h` / `kernel_w`; `pad` and `stride` likewise.
func windowSize(_ values: [UInt32], h: UInt32?, w: UInt32?, default fallback: Int) -> Size2 {
    if let h, let w { return Size2(Int(h), Int(w)) }
    switch values.count {
    case 0: return Size2(square: fallback)
    case 1: return Size2(square: Int(values[0]))
    default: return Size2(Int(values[0]), Int(values[1]))
    }
}

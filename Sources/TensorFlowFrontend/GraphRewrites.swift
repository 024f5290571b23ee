/// Subgraphs that are one Core ML layer, found before the walk.
extension TFGraph {
    /// How many inputs of other nodes each node's outputs are.
    func readerCounts() -> [Int] {
        var readers = [Int](repeating: 0, count: nodes.count)
        for node in nodes { for input in node.inputNodes where input >= 0 { readers[input] += 1 } }
        return readers
    }

    /// The index of the node giving `ref` (output 0) if its op is `op`.
    func producer(of ref: TensorRef, _ op: String) -> Int? {
        guard ref.index == 0, let position = index[ref.node], nodes[position].op == op else { return nil }
        return position
    }

    /// `inputNodes` anew, after a pass changed inputs.
    mutating func resolveInputs() {
        for position in nodes.indices {
            nodes[position].inputNodes = nodes[position].inputs.map { index[$0.node] ?? -1 }
        }
    }

    /// TensorFlow's exact GELU, `(0.5 * x) * erfc(-x * 0.70710677)` (Keras
    /// 3's `gelu` once frozen): Core ML has no erf, but has GELU. The final
    /// Mul becomes the internal op `_GELU` of x; the pattern's other nodes,
    /// when nothing else reads them, become NoOps.
    mutating func fuseGELU() throws {
        let readers = readerCounts()
        func scalar(_ ref: TensorRef) throws -> Double? {
            guard let position = producer(of: ref, "Const"), let proto = nodes[position].tensor("value") else { return nil }
            let value = try TFConstant(proto, node: nodes[position], owner: decoded, inMappedFile: payloadsLieInFile)
            return value.isScalar ? value[0] : nil
        }
        /// (the tensor operand, the constant) of a Mul by a scalar.
        func product(_ position: Int) throws -> (TensorRef, Double)? {
            let inputs = nodes[position].inputs
            guard nodes[position].op == "Mul", inputs.count == 2 else { return nil }
            if let c = try scalar(inputs[1]) { return (inputs[0], c) }
            if let c = try scalar(inputs[0]) { return (inputs[1], c) }
            return nil
        }
        for position in nodes.indices where nodes[position].op == "Mul" && nodes[position].inputs.count == 2 {
            for (halfRef, erfcRef) in [(nodes[position].inputs[0], nodes[position].inputs[1]), (nodes[position].inputs[1], nodes[position].inputs[0])] {
                guard let erfc = producer(of: erfcRef, "Erfc"), let half = producer(of: halfRef, "Mul"), let (x, one) = try product(half),
                      abs(one - 0.5) < 1e-7, let erfcInput = nodes[erfc].inputs.first, let inner = producer(of: erfcInput, "Mul"), let (negated, root) = try product(inner),
                      abs(root - 0.5.squareRoot()) < 1e-6, let neg = producer(of: negated, "Neg"), nodes[neg].inputs.first == x else { continue }
                nodes[position].op = "_GELU"
                nodes[position].inputs = [x]
                nodes[position].attributeEntries = UnsafeBufferPointer(start: nil, count: 0)
                for (dead, uses) in [(half, 1), (erfc, 1), (inner, 1), (neg, 1)] where readers[dead] == uses {
                    nodes[dead].op = "NoOp"
                    nodes[dead].inputs = []
                    nodes[dead].attributeEntries = UnsafeBufferPointer(start: nil, count: 0)
                }
                break
            }
        }
        resolveInputs()
    }

    /// tf.repeat of a map along H or W (Keras 3's nearest UpSampling2D):
    /// Reshape(Tile(ExpandDims(x, d), multiples), shape) passes through a
    /// rank-5 tensor, which Core ML's [C, H, W] layers cannot hold. The
    /// Reshape becomes the internal op `_Repeat` reading x, d, the multiples
    /// and the shape (constants the walk folds and the mapping checks); the
    /// ExpandDims and Tile become NoOps when nothing else reads them.
    mutating func fuseRepeats() throws {
        let readers = readerCounts()
        for position in nodes.indices where nodes[position].op == "Reshape" && nodes[position].inputs.count == 2 {
            guard let tile = producer(of: nodes[position].inputs[0], "Tile"), nodes[tile].inputs.count == 2,
                  let expand = producer(of: nodes[tile].inputs[0], "ExpandDims"), nodes[expand].inputs.count == 2 else { continue }
            nodes[position].op = "_Repeat"
            nodes[position].inputs = [nodes[expand].inputs[0], nodes[expand].inputs[1], nodes[tile].inputs[1], nodes[position].inputs[1]]
            nodes[position].attributeEntries = UnsafeBufferPointer(start: nil, count: 0)
            for dead in [tile, expand] where readers[dead] == 1 {
                nodes[dead].op = "NoOp"
                nodes[dead].inputs = []
                nodes[dead].attributeEntries = UnsafeBufferPointer(start: nil, count: 0)
            }
        }
        resolveInputs()
    }
}

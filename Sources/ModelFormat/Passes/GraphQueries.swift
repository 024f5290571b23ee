extension Model {
    /// How many node inputs read each tensor (model outputs count as readers too).
    func readerCounts() -> [String: Int] {
        var counts: [String: Int] = [:]
        for node in nodes {
            for input in node.inputs { counts[input, default: 0] += 1 }
        }
        for output in outputs { counts[output.name, default: 0] += 1 }
        if let classifier { counts[classifier.probabilitiesName, default: 0] += 1 }
        return counts
    }

    /// Pairs (producer index, consumer index) where the consumer is the only
    /// reader of the producer's single output (which is not a model output)
    /// and `matches` accepts them; each node is in one pair at most. The
    /// passes merge such pairs; the runtime runs them as one step.
    /// `consumers` picks the nodes worth looking at as consumers: when it
    /// picks none (a pass's second round, usually), nothing else is computed.
    public func soleConsumerPairs(consumers: (Node) -> Bool = { _ in true },
                                  _ matches: (Node, Node) -> Bool) -> [(Int, Int)] {
        guard nodes.contains(where: { $0.inputs.count == 1 && consumers($0) }) else { return [] }
        let readers = readerCounts()
        var producer: [String: Int] = [:]
        for (index, node) in nodes.enumerated() where node.outputs.count == 1 { producer[node.outputs[0]] = index }
        var pairs: [(Int, Int)] = []
        var used = Set<Int>()
        for (index, node) in nodes.enumerated() where node.inputs.count == 1 && consumers(node) {
            guard let source = producer[node.inputs[0]], readers[node.inputs[0]] == 1,
                  !used.contains(source), !used.contains(index), matches(nodes[source], node) else { continue }
            pairs.append((source, index))
            used.formUnion([source, index])
        }
        return pairs
    }

    /// Replaces each pair by one node: `merge` rewrites the producer's op in
    /// place (so its weights can be rewritten without a copy); the producer
    /// takes the consumer's output, and the consumer goes.
    mutating func mergePairs(_ pairs: [(Int, Int)], _ merge: (inout Op, Node) -> Void) {
        guard !pairs.isEmpty else { return }
        var removed = [Bool](repeating: false, count: nodes.count)
        for (source, consumer) in pairs {
            merge(&nodes[source].operation, nodes[consumer])
            nodes[source].outputs = nodes[consumer].outputs
            removed[consumer] = true
        }
        removeNodes(removed)
    }

    /// Drops the nodes whose index is marked, in place and keeping the
    /// order: nodes move, none is copied.
    mutating func removeNodes(_ removed: [Bool]) {
        var kept = 0
        for index in nodes.indices where !removed[index] {
            if kept != index { nodes.swapAt(kept, index) }
            kept += 1
        }
        nodes.removeLast(nodes.count - kept)
    }
}

extension Op {
    /// Runs `body` on the convolution this op holds, in place: the op lets go
    /// of its copy first, so that `body` sees the only reference to the
    /// weights and `Weights.update` need not copy them. Other ops are left alone.
    mutating func updateConvolution(_ body: (inout Convolution) -> Void) {
        guard case .convolution(var convolution) = self else { return }
        self = .softmax
        body(&convolution)
        self = .convolution(convolution)
    }
}

extension Op {
    /// The kinds of consumer the folding passes look for.
    var isBatchNorm: Bool { if case .batchNorm = self { true } else { false } }
    var isScale: Bool { if case .scale = self { true } else { false } }
    var isBias: Bool { if case .bias = self { true } else { false } }
    var isConvolution: Bool { if case .convolution = self { true } else { false } }
}

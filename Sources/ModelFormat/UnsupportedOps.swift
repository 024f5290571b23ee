/// The op types a frontend does not take, each with its nodes, in the order
/// first met. Collected over a whole graph, so that `convert` names every
/// one in a single error and `inspect` counts them (`SourceOutline.Tally`).
public struct UnsupportedOps: Sendable {
    public private(set) var list: [(op: String, nodes: [String])] = []
    private var position: [String: Int] = [:]

    public init() {}

    public var isEmpty: Bool { list.isEmpty }

    /// `node`, of the op type `op` that the frontend does not take.
    public mutating func add(_ op: String, node: String) {
        if let index = position[op] { list[index].nodes.append(node); return }
        position[op] = list.count
        list.append((op, [node]))
    }

    /// "3 nodes of 2 unsupported op types: LSTM x2 (lstm_a, lstm_b);
    /// NonMaxSuppression x1 (nms)": each type with up to three of its
    /// nodes, in the framework's words for a node and an op type.
    public func message(nodeNoun: String = "node", typeNoun: String = "op type") -> String {
        let count = list.reduce(0) { $0 + $1.nodes.count }
        let types = list.map { op, nodes in
            "\(op) x\(nodes.count) (\(nodes.prefix(3).joined(separator: ", "))\(nodes.count > 3 ? ", ..." : ""))"
        }
        return "\(count) \(nodeNoun)\(count == 1 ? "" : "s") of \(list.count) unsupported \(typeNoun)\(list.count == 1 ? "" : "s"): "
            + types.joined(separator: "; ")
    }
}

extension SourceOutline {
    /// The obstacles a frontend's outline finds node by node, counted as
    /// `convert` would meet them: each op type it does not take (its nodes,
    /// the first named) and each clause a ledger refuses (nodes of one op
    /// refused for one reason counted together), each in the order first met.
    public struct Tally {
        public var unsupported = UnsupportedOps()
        public private(set) var refused: [(op: String, clause: String, nodes: [String])] = []
        private var refusedAt: [String: Int] = [:]

        public init() {}

        /// `node`, of the op type `op` that convert does not take.
        public mutating func unsupported(_ op: String, node: String) {
            unsupported.add(op, node: node)
        }

        /// `node`, of the op type `op`, refused by its ledger for `clause`.
        public mutating func refused(_ op: String, _ clause: String, node: String) {
            let key = op + "\u{0}" + clause
            if let index = refusedAt[key] { refused[index].nodes.append(node); return }
            refusedAt[key] = refused.count
            refused.append((op, clause, [node]))
        }

        /// One `.unsupportedOp` obstacle per op type (`op X is not supported:
        /// 2 nodes, first 'a'`), then one `.refusedAttribute` per op and clause
        /// (`node 'a' (X): clause (and 1 more alike)`); `opNoun` and `nodeNoun`
        /// are the framework's words (`layer type`, `layer`), `why` what
        /// follows "is not supported" for an op type.
        public func obstacles(opNoun: String, nodeNoun: String, why: (String) -> String = { _ in "" }) -> [Obstacle] {
            var obstacles: [Obstacle] = []
            for (op, nodes) in unsupported.list {
                obstacles.append(.init(kind: .unsupportedOp, message: "\(opNoun) \(short(op)) is not supported\(why(op)): "
                                       + "\(nodes.count) \(nodeNoun)\(nodes.count == 1 ? "" : "s"), first '\(short(nodes[0]))'",
                                       op: op, count: nodes.count, node: nodes[0]))
            }
            for (op, clause, nodes) in refused {
                let more = nodes.count > 1 ? " (and \(nodes.count - 1) more alike)" : ""
                obstacles.append(.init(kind: .refusedAttribute, message: "\(nodeNoun) '\(short(nodes[0]))' (\(op)): \(clause)\(more)",
                                       op: op, count: nodes.count, node: nodes[0]))
            }
            return obstacles
        }
    }

    /// A name shortened for a one-line message (JSON keeps it whole in its own field).
    public static func short(_ name: String, _ limit: Int = 32) -> String {
        name.count <= limit ? name : String(name.prefix(limit - 3)) + "..."
    }
}

import Naming
import ModelFormat

extension TensorFlowConverter {
    /// The graph at `path` as the file states it, read without converting
    /// it, with every obstacle `convert` meets: each unsupported op type
    /// (count, first node), each attribute a ledger refuses (nodes alike
    /// counted, first named), each placeholder without a static shape or
    /// with open sizes (with the `--input-shape` that gives them), a cycle or a
    /// dangling input, and, when none of those is what stopped the
    /// conversion, `failure` itself.
    /// - Parameter failure: the error `convert(graph:)` threw on the file.
    /// - Throws: `TensorFlowError` or `FileError` when the file does not parse.
    public static func outline(graph path: String, failure: (any Error)? = nil) throws -> SourceOutline {
        let graph = try read(path)
        let walk = GraphWalk(graph: graph, path: path, inputShapes: [:])
        let sinks = walk.sinks()
        var obstacles: [SourceOutline.Obstacle] = []
        do {
            _ = try walk.order(from: sinks.compactMap { graph.index[$0.node] })
        } catch {
            obstacles.append(.init(kind: .other, message: strip(String(mentioning: error), path)))
        }
        var tally = SourceOutline.Tally()
        for node in graph.nodes {
            guard TFOpTable.knownOps.contains(node.op) else {
                tally.unsupported(node.op, node: node.name)
                continue
            }
            guard let clause = TFOpTable.ledgers.refusal(op: node.op, present: node.renderedAttributes) else { continue }
            tally.refused(node.op, clause, node: node.name)
        }
        obstacles += tally.obstacles(opNoun: "op", nodeNoun: "node")
        var inputs: [SourceOutline.Tensor] = []
        for node in graph.nodes where node.op == "Placeholder" {
            let shape = node.shape("shape")
            let type = node.type("dtype").map(TFNode.typeName) ?? ""
            inputs.append(SourceOutline.Tensor(name: node.name, shape: shape?.map { $0 < 0 ? "?" : String($0) }, type: type))
            guard let shape else {
                obstacles.append(.init(kind: .inputShape, message: "placeholder '\(short(node.name))' has no static shape: "
                                       + "give one with \(option: .inputShape) \(short(node.name))=1,H,W,C", input: node.name, option: "\(option: .inputShape) \(node.name)=1,H,W,C"))
                continue
            }
            let open = shape.indices.filter { $0 > 0 && shape[$0] < 0 }
            guard !open.isEmpty, shape.count == 4 || shape.count == 2, shape[0] == 1 || shape[0] < 0 else { continue }
            let value = "\(node.name)=" + shape.enumerated().map { index, size in index == 0 ? "1" : size < 0 ? "?" : String(size) }
                .joined(separator: ",")
            let option = "\(option: .inputShape) \(value)"
            obstacles.append(.init(kind: .inputShape, message: "placeholder '\(short(node.name))': size\(open.count == 1 ? " at axis" : "s at axes") "
                                   + "\(open.map(String.init).joined(separator: ", ")) open: give \(open.count == 1 ? "it" : "them") with \(option: .inputShape) \(short(value, shortValue))",
                                   input: node.name, option: option))
        }
        if obstacles.isEmpty, let failure { obstacles.append(.init(kind: .other, message: strip(String(mentioning: failure), path))) }
        return SourceOutline(inputs: inputs, outputs: sinks.map { SourceOutline.Tensor(name: $0.index == 0 ? $0.node : $0.description, shape: nil, type: "") },
                             nodes: graph.nodes.map { SourceOutline.Node(name: $0.name, op: $0.op, inputs: $0.inputs.map { $0.index == 0 ? $0.node : $0.description },
                                                                outputs: [$0.name]) },
                             weightTensors: graph.nodes.filter { $0.op == "Const" }.count, obstacles: obstacles)
    }

    /// `message` without the leading `path: ` convert's errors carry.
    private static func strip(_ message: String, _ path: String) -> String {
        message.hasPrefix("\(path): ") ? String(message.dropFirst(path.count + 2)) : message
    }

    /// How long an input shape's value may be in a message: 48 columns for
    /// the whole option as the programs spell it (`--input-shape ` and the value).
    static let shortValue = 34

    /// A name shortened for a one-line message (JSON keeps it whole in its own field).
    static func short(_ name: String, _ limit: Int = 32) -> String { SourceOutline.short(name, limit) }
}

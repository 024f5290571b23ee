import ModelFormat

extension DarknetConverter {
    /// The network definition at `path` as it states itself, read without
    /// converting it (no weights), with the obstacles found section by
    /// section: each layer type convert does not take (count, first layer
    /// with its line) and each key a ledger refuses (sections alike counted).
    /// Layers are named by type and index (`shortcut_5`), as the converter
    /// names its nodes; each reads the layer before it, a route its `layers`,
    /// a shortcut the layer before and its `from`.
    /// - Throws: `DarknetError` or `FileError` when the file does not parse.
    public static func outline(config path: String) throws -> SourceOutline {
        let config = try DarknetConfig(path: path)
        var obstacles: [SourceOutline.Obstacle] = []
        var unsupported: [(type: String, layers: [String], line: Int)] = []
        var refused: [(type: String, clause: String, layers: [String], line: Int)] = []
        var at: [String: Int] = [:]
        var nodes: [SourceOutline.Node] = []
        var previous = DarknetWalk.inputName
        for (index, section) in config.sections.enumerated() {
            let name = "\(section.type)_\(index - 1)"
            if index > 0 {
                var inputs = [previous]
                // A route reads its layers; a shortcut the layer before and its from.
                let sources: [Int]? = section.type == "route" ? try? section.list("layers")
                    : section.type == "shortcut" ? (try? section.list("from")).map { [-1] + $0 } : nil
                if let sources {
                    inputs = sources.map { source in
                        let layer = source < 0 ? index - 1 + source : source
                        return (0..<index - 1).contains(layer) ? "\(config.sections[layer + 1].type)_\(layer)" : "?"
                    }
                }
                nodes.append(SourceOutline.Node(name: name, op: section.type, inputs: inputs, outputs: [name]))
                previous = name
            }
            guard DarknetLedgers.mappedTypes.contains(section.type) else {
                if let i = at[section.type] { unsupported[i].layers.append(name) } else {
                    at[section.type] = unsupported.count
                    unsupported.append((section.type, [name], section.line))
                }
                continue
            }
            guard let clause = DarknetLedgers.refusal(section) else { continue }
            let key = section.type + "\u{0}" + clause + "\u{0}refused"
            if let i = at[key] { refused[i].layers.append(name) } else {
                at[key] = refused.count
                refused.append((section.type, clause, [name], section.line))
            }
        }
        for (type, names, line) in unsupported {
            obstacles.append(.init(kind: .unsupportedOp, message: "layer type [\(short(type))] is not supported: \(names.count) layer\(names.count == 1 ? "" : "s"), "
                                   + "first \(short(names[0])) (line \(line))", op: type, count: names.count, node: names[0]))
        }
        for (type, clause, names, line) in refused {
            let more = names.count > 1 ? " (and \(names.count - 1) more alike)" : ""
            obstacles.append(.init(kind: .refusedAttribute, message: "line \(line) [\(short(type))]: \(clause)\(more)",
                                   op: type, count: names.count, node: names[0]))
        }
        let net = config.sections.first
        let dims = ["channels", "height", "width"].map { key in net?.options[key]?.trimmingCharacters(in: .whitespaces) ?? (key == "channels" ? "3" : "?") }
        return SourceOutline(inputs: [SourceOutline.Tensor(name: DarknetWalk.inputName, shape: ["1"] + dims, type: "")],
                             outputs: nodes.last.map { [SourceOutline.Tensor(name: $0.name, shape: nil, type: "")] } ?? [],
                             nodes: nodes, obstacles: obstacles)
    }

    /// A name shortened for a one-line message (JSON keeps it whole in its own field).
    static func short(_ name: String, _ limit: Int = 32) -> String { SourceOutline.short(name, limit) }
}

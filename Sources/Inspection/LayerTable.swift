import ModelFormat

/// One row per layer, for `inspect --layers`: index, name, type,
/// inputs -> outputs, output shape and parameter count, in aligned columns.
public enum LayerTable {
    public static func render(_ model: Model) -> String {
        let statistics = ModelStatistics(model)
        var rows = [["#", "name", "type", "inputs -> outputs", "output shape", "params"]]
        for (index, node) in model.nodes.enumerated() {
            let shape = node.outputs.first.flatMap { statistics.shapes[$0] }?.description ?? "?"
            rows.append([String(index), node.name, node.operation.kindName,
                         node.inputs.joined(separator: ", ") + " -> " + node.outputs.joined(separator: ", "),
                         shape, SummaryText.grouped(node.operation.parameterCount)])
        }
        return align(rows)
    }

    /// Pads every column to its widest cell; numbers in the last column align right.
    static func align(_ rows: [[String]]) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column == row.count - 1 ? padding + cell : cell + padding
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}

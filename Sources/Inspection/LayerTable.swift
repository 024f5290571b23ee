import Naming
import ModelFormat

/// One row per layer, for `inspect --layers`: index, name, type,
/// inputs -> outputs, output shape, parameter count and the attributes that
/// differ from their defaults, in aligned columns.
public enum LayerTable {
    public static func render(_ model: Model, style: TextStyle = .plain) -> String {
        let statistics = ModelStatistics(model)
        var rows = [["#", "name", "type", "inputs -> outputs", "output shape", "params", "attributes"]]
        for (index, node) in model.nodes.enumerated() {
            let shapes = node.outputs.map { statistics.shapes[$0]?.description ?? "?" }
            // Weights stored other than as float32 say how (`8-bit linear`, `float16`).
            let stored = Set(node.operation.weightTensors.map(\.values.storedPrecision)).subtracting([.float32]).sorted()
            let params = SummaryText.grouped(node.operation.parameterCount)
                + (stored.isEmpty ? "" : " (" + stored.map(SummaryText.precisionDetail).joined(separator: ", ") + ")")
            rows.append([String(index), node.name, node.operation.kindName,
                         arrow(node.inputs, node.outputs),
                         shapes.joined(separator: ", "), params, node.attributeText])
        }
        return align(rows, rightAligned: [0, 5], style: style, typeColumn: 2)
    }

    /// The layers of an inspected file: the graph's nodes, or a weights
    /// file's layers with their blob shapes.
    public static func render(_ inspected: InspectedModel, style: TextStyle = .plain) -> String {
        switch inspected.content {
        case .network(let model):
            return render(model, style: style)
        case .weightsOnly(let file):
            var rows = file.hasTopology ? [["#", "name", "type", "bottoms -> tops", "blob shapes", "params"]]
                                        : [["#", "name", "blob shapes", "params"]]
            for (index, layer) in file.layers.enumerated() {
                let shapes = layer.blobs.map { "[" + $0.shape.map(String.init).joined(separator: ",") + "]" }.joined(separator: " ")
                let params = SummaryText.grouped(layer.blobs.reduce(0) { $0 + $1.values.count })
                if file.hasTopology {
                    rows.append([String(index), layer.name, layer.type,
                                 arrow(layer.inputs, layer.outputs),
                                 shapes, params])
                } else {
                    rows.append([String(index), layer.name, shapes, params])
                }
            }
            return align(rows, rightAligned: [0, rows[0].count - 1], style: style, typeColumn: file.hasTopology ? 2 : nil)
        }
    }

    /// `a, b -> c`; `-> c` when nothing goes in.
    static func arrow(_ inputs: [String], _ outputs: [String]) -> String {
        (inputs.isEmpty ? "" : inputs.joined(separator: ", ") + " ") + "-> " + outputs.joined(separator: ", ")
    }

    /// Pads every column to its widest cell (numbers in `rightAligned`
    /// columns align right); the last column is not padded, so lines carry
    /// no trailing spaces. The first row is the heading. Cells are escaped
    /// (`TextEscaping`): a newline in a layer name cannot forge a row.
    public static func align(_ rows: [[String]], rightAligned: Set<Int> = [], style: TextStyle = .plain,
                             typeColumn: Int? = nil) -> String {
        let rows = rows.map { $0.map(TextEscaping.line) }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.enumerated().map { rowIndex, row in
            let cells = row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                var styled = cell
                if rowIndex == 0 { styled = style.heading(cell) } else if column == typeColumn { styled = style.type(cell) }
                if rightAligned.contains(column) { return padding + styled }
                return column == row.count - 1 ? styled : styled + padding
            }
            var line = cells.joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }.joined(separator: "\n") + "\n"
    }
}

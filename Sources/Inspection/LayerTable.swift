import ModelFormat
import Naming

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
                + (stored.isEmpty ? "" : " (" + stored.map(\.name).joined(separator: ", ") + ")")
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
        case .weightsOnly(let file) where inspected.outline != nil:
            // A model that does not convert: its nodes as the file states them.
            var rows = [["#", "name", "op type", "inputs -> outputs"]]
            for (index, layer) in file.layers.enumerated() {
                rows.append([String(index), layer.name, layer.type, arrow(layer.inputs, layer.outputs)])
            }
            return align(rows, rightAligned: [0], style: style, typeColumn: 2)
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

    /// Columns a table is fitted to (`align`): a terminal's usual width
    /// and more, so that no line wraps. `--json` keeps every cell whole.
    public static let maxWidth = 100

    /// Pads every column to its widest cell (numbers in `rightAligned`
    /// columns align right); the last column is not padded, so lines carry
    /// no trailing spaces. The first row is the heading. Cells are escaped
    /// (`TextEscaping`): a newline in a layer name cannot forge a row.
    ///
    /// A table wider than `width` is fitted: the widest text column is
    /// narrowed (not a number or the type column), one column at a time,
    /// down to 12 columns at the least (the last, 8); a longer cell keeps
    /// its end after `...` (`abbreviate`), except in the last column, whose
    /// text wraps onto lines of their own under it.
    public static func align(_ rows: [[String]], rightAligned: Set<Int> = [], style: TextStyle = .plain,
                             typeColumn: Int? = nil, width: Int = maxWidth) -> String {
        let rows = rows.map { $0.map(TextEscaping.line) }
        var widths = rows[0].indices.map { column in rows.map { TerminalCells.width($0[column]) }.max() ?? 0 }
        let last = widths.count - 1
        let minimum = 12
        while widths.reduce(0, +) + 2 * last > width {
            // Headings never shrink below their own width, nor numbers and layer kinds at all.
            let narrowable = widths.indices.filter {
                !rightAligned.contains($0) && $0 != typeColumn && widths[$0] > max($0 == last ? 8 : minimum, TerminalCells.width(rows[0][$0]))
            }
            guard let widest = narrowable.max(by: { widths[$0] < widths[$1] }) else { break }
            widths[widest] -= 1
        }
        let lastStart = widths.dropLast().reduce(0, +) + 2 * last
        return rows.enumerated().map { rowIndex, row in
            var continuation: [String] = []
            let cells = row.enumerated().map { column, whole in
                var cell = whole
                if TerminalCells.width(cell) > widths[column] {
                    if column == last {
                        let pieces = wrap(cell, width: widths[column])
                        cell = pieces[0]
                        continuation = pieces.dropFirst().map { String(repeating: " ", count: lastStart) + $0 }
                    } else {
                        cell = abbreviate(cell, to: widths[column])
                    }
                }
                let padding = String(repeating: " ", count: max(widths[column] - TerminalCells.width(cell), 0))
                var styled = cell
                if rowIndex == 0 { styled = style.heading(cell) } else if column == typeColumn { styled = style.type(cell) }
                if rightAligned.contains(column) { return padding + styled }
                return column == last ? styled : styled + padding
            }
            var line = cells.joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            return ([line] + continuation).joined(separator: "\n")
        }.joined(separator: "\n") + "\n"
    }

    /// `...Conv2d_1/Conv2D`: the end of `text` (where a scoped name differs
    /// from its neighbours) after `...`, `width` characters in all; an
    /// arrow cell (`a, b -> c`) keeps its arrow, each side shortened so.
    static func abbreviate(_ text: String, to width: Int) -> String {
        guard TerminalCells.width(text) > width else { return text }
        guard width > 3 else { return TerminalCells.suffix(text, cells: width) }
        if let arrow = text.range(of: " -> "), width >= 12 {
            let inputs = String(text[..<arrow.lowerBound]), outputs = String(text[arrow.upperBound...])
            let room = width - 4
            // The shorter side whole when it fits in half, the other side the rest.
            let inputRoom = min(TerminalCells.width(inputs), max(room / 2, room - TerminalCells.width(outputs)))
            return abbreviate(inputs, to: inputRoom) + " -> " + abbreviate(outputs, to: room - inputRoom)
        }
        return "..." + TerminalCells.suffix(text, cells: width - 3)
    }

    /// `text` in lines of at most `width` characters, broken after a comma
    /// (a list item stays whole: `softmax 1`) or else at a space, mid-word
    /// where there is none.
    static func wrap(_ text: String, width: Int) -> [String] {
        let width = max(width, 1)
        var lines: [String] = []
        var rest = Substring(text)
        while TerminalCells.width(rest) > width {
            // What fits, and one character more: a space just past the limit is a break too.
            let fits = TerminalCells.prefix(rest, cells: width)
            let head = rest.prefix(fits.count + 1)
            let commaSpace = head.indices.last { head[$0] == " " && $0 > head.startIndex && head[head.index(before: $0)] == "," }
            let breakAt = commaSpace.flatMap { TerminalCells.width(head[..<$0]) > width / 2 ? $0 : nil }
                ?? head.lastIndex(of: " ")
            if let space = breakAt, space > rest.startIndex {
                lines.append(String(rest[..<space]))
                rest = rest[rest.index(after: space)...]
            } else {
                let taken = max(fits.count, 1)  // a wide character in a one-cell column still moves on
                lines.append(String(rest.prefix(taken)))
                rest = rest.dropFirst(taken)
            }
        }
        lines.append(String(rest))
        return lines
    }
}

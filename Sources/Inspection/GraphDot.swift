import Naming
import Foundation
import ModelFormat

/// The graph as Graphviz DOT, for `inspect --graph dot`: inputs and outputs
/// as ellipses, one box per layer labelled with its name, type and output
/// shape, edges labelled with the tensor they carry.
public enum GraphDot {
    public struct Unavailable: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// - Throws: `Unavailable` for a weights file that records no topology (HDF5).
    public static func render(_ inspected: InspectedModel) throws(Unavailable) -> String {
        let fileName = inspected.path.split(separator: "/").last.map(String.init) ?? inspected.path
        var lines = ["digraph \(label(inspected.name.isEmpty ? fileName : inspected.name)) {",
                     "  graph [rankdir=TB];",
                     "  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=10];",
                     "  edge [fontname=\"Helvetica\", fontsize=9];"]
        switch inspected.content {
        case .network(let model):
            let statistics = ModelStatistics(model)
            var producer: [String: String] = [:]
            for (index, feature) in inspected.inputFeatures(statistics).enumerated() {
                lines.append("  in\(index) [shape=ellipse, label=\(label(feature.name, feature.type))];")
                producer[feature.name] = "in\(index)"
            }
            for (index, node) in model.nodes.enumerated() {
                let shapes = node.outputs.map { statistics.shapes[$0]?.description ?? "?" }.joined(separator: ", ")
                lines.append("  n\(index) [label=\(label(node.name, node.operation.kindName, shapes))];")
                for tensor in node.inputs {
                    if let source = producer[tensor] { lines.append("  \(source) -> n\(index) [label=\(label(tensor))];") }
                }
                for tensor in node.outputs { producer[tensor] = "n\(index)" }
            }
            for (index, feature) in inspected.outputFeatures(statistics).enumerated() {
                lines.append("  out\(index) [shape=ellipse, label=\(label(feature.name, feature.type))];")
                // The classifier's label feature comes from the probabilities tensor.
                var tensor = feature.name
                if let classifier = model.classifier, feature.name == classifier.predictedFeatureName {
                    tensor = classifier.probabilitiesName
                }
                if let source = producer[tensor] { lines.append("  \(source) -> out\(index) [label=\(label(tensor))];") }
            }
        case .weightsOnly(let file):
            guard file.hasTopology else {
                throw Unavailable(description: "\(inspected.path): \(inspected.format.name) store blobs only, no graph; "
                                  + "give the deploy prototxt with --weights")
            }
            var producer: [String: String] = [:]
            var external: [String: String] = [:]
            for (index, layer) in file.layers.enumerated() {
                let shapes = layer.blobs.map { "[" + $0.shape.map(String.init).joined(separator: ",") + "]" }.joined(separator: " ")
                let text = [layer.name, layer.type, shapes].filter { !$0.isEmpty }.map(TextEscaping.line)
                lines.append("  n\(index) [label=\(quoted(text.joined(separator: "\n")))];")
                for blob in layer.inputs {
                    var source = producer[blob]
                    if source == nil {
                        source = external[blob] ?? "in\(external.count)"
                        if external[blob] == nil {
                            external[blob] = source
                            lines.append("  \(source!) [shape=ellipse, label=\(quoted(blob))];")
                        }
                    }
                    lines.append("  \(source!) -> n\(index) [label=\(label(blob))];")
                }
                for blob in layer.outputs { producer[blob] = "n\(index)" }
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A DOT label of lines: each escaped for display (`TextEscaping`: no
    /// control characters reach Graphviz, so its SVG stays well-formed XML),
    /// joined by DOT's line breaks.
    static func label(_ lines: String...) -> String {
        quoted(lines.map(TextEscaping.line).joined(separator: "\n"))
    }

    /// A DOT string: quotes and backslashes escaped, newlines as `\n`.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}

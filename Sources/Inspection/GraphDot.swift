import Naming
import Foundation
import ModelFormat

/// The graph as Graphviz DOT, for `inspect --graph`: inputs and outputs as
/// ellipses, one box per layer labelled with its name, kind and output
/// shape and filled with its family's colour (`LayerFamily`, with a
/// legend), edges labelled with the tensor they carry. A detector is drawn
/// as the pipeline it is written as: the network (its box decoding a
/// cluster of its own) and the non-maximum suppression, each a cluster,
/// joined by the features they pass.
public enum GraphDot {
    public struct Unavailable: OptionMentioningError, Sendable {
        public var message: String
    }

    /// - Throws: `Unavailable` for a weights file that records no topology (HDF5).
    public static func render(_ inspected: InspectedModel) throws(Unavailable) -> String {
        let fileName = inspected.path.split(separator: "/").last.map(String.init) ?? inspected.path
        var drawing = Drawing()
        switch inspected.content {
        case .network(let model):
            network(model, inspected, &drawing)
        case .weightsOnly(let file):
            guard file.hasTopology else {
                throw Unavailable(message: "\(inspected.path): \(inspected.format.name) store blobs only, no graph; "
                                  + "give the deploy prototxt with \(option: .weights)")
            }
            weightsFile(file, &drawing)
        }
        var lines = ["digraph \(label(inspected.name.isEmpty ? fileName : inspected.name)) {",
                     "  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=11];",
                     "  node [shape=box, style=\"rounded,filled\", fillcolor=\"white\", fontname=\"Helvetica\", fontsize=10];",
                     "  edge [fontname=\"Helvetica\", fontsize=9];"]
        lines += drawing.lines
        if let legend = legend(drawing.families) { lines.append(legend) }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Node statements by where they go (top level, or a cluster), then
    /// the edges: an edge statement inside a cluster would pull its ends
    /// into it, so every edge is written at the top level, last.
    struct Drawing {
        var nodes: [String] = []
        var edges: [String] = []
        var families: Set<LayerFamily> = []
        var lines: [String] { nodes + edges }

        /// The statement of a node filled with its family's colour.
        mutating func statement(_ id: String, _ family: LayerFamily?, _ attributes: String) -> String {
            if let family { families.insert(family) }
            return "  \(id) [\(attributes)\(family.map { ", fillcolor=\"\($0.color)\"" } ?? "")];"
        }

        mutating func node(_ id: String, _ family: LayerFamily?, _ attributes: String) {
            nodes.append(statement(id, family, attributes))
        }

        mutating func edge(_ from: String, _ to: String, _ tensor: String) {
            edges.append("  \(from) -> \(to) [label=\(label(tensor))];")
        }
    }

    static func network(_ model: Model, _ inspected: InspectedModel, _ drawing: inout Drawing) {
        let statistics = ModelStatistics(model)
        var producer: [String: String] = [:]
        let defaults = model.detector.map { [Detector.iouThresholdFeature: $0.iouThreshold, Detector.confidenceThresholdFeature: $0.confidenceThreshold] }
        for (index, feature) in inspected.inputFeatures(statistics).enumerated() {
            let value = defaults?[feature.name].map { ["default \($0)"] } ?? []
            drawing.node("in\(index)", .input, "shape=ellipse, label=" + label([feature.name, feature.type] + value))
            producer[feature.name] = "in\(index)"
        }
        let decoding = model.detector.map { decodingNodes(model, $0) } ?? []
        var body: [String] = [], decoded: [String] = []
        for (index, node) in model.nodes.enumerated() {
            let shapes = node.outputs.map { statistics.shapes[$0]?.description ?? "?" }.joined(separator: ", ")
            let kind = node.operation.kindName
            let statement = drawing.statement("n\(index)", LayerFamily(kind: kind), "label=\(label(node.name, kind, shapes))")
            if decoding.contains(index) { decoded.append(statement) } else { body.append(statement) }
            for tensor in node.inputs {
                if let source = producer[tensor] { drawing.edge(source, "n\(index)", tensor) }
            }
            for tensor in node.outputs { producer[tensor] = "n\(index)" }
        }
        guard let detector = model.detector else {
            drawing.nodes += body
            for (index, feature) in inspected.outputFeatures(statistics).enumerated() {
                drawing.node("out\(index)", .output, "shape=ellipse, label=\(label(feature.name, feature.type))")
                // The classifier's label feature comes from the probabilities tensor.
                var tensor = feature.name
                if let classifier = model.classifier, feature.name == classifier.predictedFeatureName {
                    tensor = classifier.probabilitiesName
                }
                if let source = producer[tensor] { drawing.edge(source, "out\(index)", tensor) }
            }
            return
        }
        // The pipeline's models as `DetectorEncoding` names them.
        drawing.nodes.append("  subgraph cluster_network {")
        let title = label("network: neural network, \(model.nodes.count) layers")
        drawing.nodes.append("    graph [label=\(title), style=\"rounded\", color=\"#707070\"];")
        drawing.nodes += body.map { "  " + $0 }
        if !decoded.isEmpty {
            drawing.nodes.append("    subgraph cluster_decoding {")
            let title = label("box decoding: \(decoded.count) layers")
            drawing.nodes.append("      graph [label=\(title), style=\"dashed\", color=\"#707070\"];")
            drawing.nodes += decoded.map { "    " + $0 }
            drawing.nodes.append("    }")
        }
        drawing.nodes.append("  }")
        let rows = statistics.shapes[detector.coordinatesTensor]?.dimensions.dropLast().last
        let scope = detector.perClass ? "per class" : "across classes"
        var facts = ["NonMaximumSuppression", "IoU threshold \(detector.iouThreshold)",
                     "confidence threshold \(detector.confidenceThreshold)", "suppression \(scope)"]
        facts.append("\(detector.labels.count) class labels" + (rows.map { ", \($0) candidate " + (detector.rowsPerClass ? "rows (each box once per class)" : "boxes") } ?? ""))
        if let most = detector.maximumBoxes { facts.append("at most \(most) boxes kept") }
        let suppression = drawing.statement("nms", .output, "label=" + label(facts))
        drawing.nodes.append("  subgraph cluster_nonMaximumSuppression {")
        let stage = label("nonMaximumSuppression: non-maximum suppression")
        drawing.nodes.append("    graph [label=\(stage), style=\"rounded\", color=\"#707070\"];")
        drawing.nodes.append("  " + suppression)
        drawing.nodes.append("  }")
        for tensor in [detector.confidenceTensor, detector.coordinatesTensor, Detector.iouThresholdFeature, Detector.confidenceThresholdFeature] {
            if let source = producer[tensor] { drawing.edge(source, "nms", tensor) }
        }
        for (index, feature) in inspected.outputFeatures(statistics).enumerated() {
            drawing.node("out\(index)", .output, "shape=ellipse, label=\(label(feature.name, feature.type))")
            drawing.edge("nms", "out\(index)", feature.name)
        }
    }

    /// The indices of a detector's box decoding: the layers on the way to
    /// its two tensors after the last layer with learned weights (from
    /// which no such layer can be reached), e.g. YOLO's region decoding or
    /// SSD's prior boxes applied to the located offsets.
    static func decodingNodes(_ model: Model, _ detector: Detector) -> Set<Int> {
        var producer: [String: Int] = [:]
        for (index, node) in model.nodes.enumerated() {
            for tensor in node.outputs { producer[tensor] = index }
        }
        func learned(_ node: Node) -> Bool {
            !node.operation.weightTensors.isEmpty && LayerFamily(kind: node.operation.kindName) != .tensor
        }
        // Whether a learned layer reads, directly or not, what the node computes (nodes are in order).
        var reachesLearned = Array(repeating: false, count: model.nodes.count)
        for (index, node) in model.nodes.enumerated().reversed() {
            let feedsLearned = learned(node) || reachesLearned[index]
            guard feedsLearned else { continue }
            for tensor in node.inputs {
                if let source = producer[tensor], source < index { reachesLearned[source] = true }
            }
        }
        var decoding: Set<Int> = []
        var pending = [detector.confidenceTensor, detector.coordinatesTensor].compactMap { producer[$0] }
        while let index = pending.popLast() {
            let node = model.nodes[index]
            guard !learned(node), !reachesLearned[index], decoding.insert(index).inserted else { continue }
            pending += node.inputs.compactMap { producer[$0] }.filter { $0 < index }
        }
        return decoding
    }

    static func weightsFile(_ file: WeightsOnlyFile, _ drawing: inout Drawing) {
        var producer: [String: String] = [:]
        var external: [String: String] = [:]
        for (index, layer) in file.layers.enumerated() {
            let shapes = layer.blobs.map { "[" + $0.shape.map(String.init).joined(separator: ",") + "]" }.joined(separator: " ")
            let text = [layer.name, layer.type, shapes].filter { !$0.isEmpty }.map(TextEscaping.line)
            drawing.node("n\(index)", LayerFamily(kind: layer.type), "label=\(quoted(text.joined(separator: "\n")))")
            for blob in layer.inputs {
                var source = producer[blob]
                if source == nil {
                    source = external[blob] ?? "in\(external.count)"
                    if external[blob] == nil {
                        external[blob] = source
                        drawing.node(source!, .input, "shape=ellipse, label=\(quoted(TextEscaping.line(blob)))")
                    }
                }
                drawing.edge(source!, "n\(index)", blob)
            }
            for blob in layer.outputs { producer[blob] = "n\(index)" }
        }
    }

    /// A table of the families drawn, in the palette's order (fixed words:
    /// nothing from the file reaches the HTML label).
    static func legend(_ families: Set<LayerFamily>) -> String? {
        let shown = LayerFamily.allCases.filter(families.contains)
        guard !shown.isEmpty else { return nil }
        let rows = shown.map { "<tr><td bgcolor=\"\($0.color)\">\($0.title)</td></tr>" }.joined()
        return "  legend [shape=none, style=\"\", margin=0, label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" cellpadding=\"3\">"
            + "<tr><td><b>layer kinds</b></td></tr>\(rows)</table>>];"
    }

    /// A DOT label of lines: each escaped for display (`TextEscaping`: no
    /// control characters reach Graphviz, so its SVG stays well-formed XML),
    /// joined by DOT's line breaks.
    static func label(_ lines: String...) -> String {
        label(lines)
    }

    static func label(_ lines: [String]) -> String {
        quoted(lines.map(TextEscaping.line).joined(separator: "\n"))
    }

    /// A DOT string: quotes and backslashes escaped, newlines as `\n`, and
    /// `&` as `&amp;`. Graphviz reads HTML entities in every string (not
    /// only HTML-like labels) and copies them into its SVG: a name holding
    /// `&#1;` made the SVG invalid XML, one holding `&amp;` showed as `&`.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}

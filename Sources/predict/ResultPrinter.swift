import CLI
import Foundation
import Naming

/// Text and JSON renderings of prediction results. Names and labels come
/// from the model file and are escaped for the terminal. Outputs holding
/// NaN or infinite values are flagged: in the text by a warning line, in
/// JSON (which has no NaN) by `null` values and a `warnings` array.
enum ResultPrinter {
    /// - Parameter maxResults: how many of a detector's boxes are listed
    ///   (the most confident); the count of all of them is printed first.
    static func text(_ results: [PredictionResult], hasLabels: Bool, maxResults: Int = .max) -> String {
        var lines: [String] = []
        for result in results {
            lines.append(TextEscaping.line(result.source))
            lines += warnings(result).map { "  warning: \($0)" }
            if hasLabels {
                let labels = result.labels.map { (label: TextEscaping.line($0.label), probability: $0.probability) }
                let width = labels.map { TerminalCells.width($0.label) }.max() ?? 0
                for entry in labels {
                    let padding = String(repeating: " ", count: width - TerminalCells.width(entry.label))
                    lines.append("  \(entry.label)\(padding)  \(String(format: "%.4f", entry.probability))")
                }
            }
            if let boxes = result.boxes {
                lines += boxLines(boxes, maxResults: maxResults)
                continue
            }
            for output in result.outputs where !hasLabels {
                let shown = output.values.prefix(6).map { String(format: "%.5g", $0) }.joined(separator: ", ")
                lines.append("  \(TextEscaping.line(output.name)) \(output.shape): [\(shown)\(output.values.count > 6 ? ", ..." : "")]")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// - Parameter cropAndScale: how images were fitted (Vision's name),
    ///   added to each result from an image, with `exifOrientation`
    ///   ("applied" or "ignored").
    static func json(_ results: [PredictionResult], cropAndScale: String? = nil, exifOrientation: String = "applied") -> String {
        let objects: [[String: Any]] = results.map { result in
            var object: [String: Any] = ["source": PathBytes.escapingRawBytes(result.source)]
            if let cropAndScale, result.source != "arrays" {
                object["cropAndScale"] = cropAndScale
                object["exifOrientation"] = exifOrientation
            }
            if let boxes = result.boxes {
                object["detections"] = boxes.map { box in
                    ["label": box.detection.label, "confidence": number(box.detection.confidence),
                     "box": ["left": box.left, "top": box.top, "width": box.width, "height": box.height],
                     "normalized": ["x": number(box.detection.x), "y": number(box.detection.y),
                                    "width": number(box.detection.width), "height": number(box.detection.height)]] as [String: Any]
                }
            } else if let label = result.classLabel {
                object["classLabel"] = label
                object["results"] = result.labels.map { ["label": $0.label, "probability": number($0.probability)] }
            } else {
                object["outputs"] = Dictionary(uniqueKeysWithValues: result.outputs.map {
                    ($0.name, ["shape": $0.shape, "values": $0.values.map(number)] as [String: Any])
                })
            }
            let warnings = warnings(result)
            if !warnings.isEmpty { object["warnings"] = warnings.map { $0 + " (null in this JSON)" } }
            return object
        }
        let data = (try? JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// How many boxes there are and how many are shown, then one line per
    /// box shown, most confident first: label, confidence, and the box in
    /// pixels of the picture (left, top, width, height).
    static func boxLines(_ boxes: [Box], maxResults: Int = .max) -> [String] {
        guard !boxes.isEmpty else { return ["  no boxes above the confidence threshold"] }
        // Kept boxes are above the threshold; the others above it overlapped one kept.
        let count = "\(boxes.count) box\(boxes.count == 1 ? "" : "es") kept after suppression"
        let shown = boxes.sorted { $0.detection.confidence > $1.detection.confidence }.prefix(max(maxResults, 0))
        let heading = shown.count == boxes.count ? "  \(count)"
            : "  \(count); the \(shown.count) most confident shown (--max-results)"
        let labels = shown.map { TextEscaping.line($0.detection.label) }
        let width = labels.map(TerminalCells.width).max() ?? 0
        return [heading] + zip(labels, shown).map { label, box in
            let padding = String(repeating: " ", count: width - TerminalCells.width(label))
            return "  \(label)\(padding)  \(String(format: "%.4f", box.detection.confidence))  "
                + String(format: "left %.1f, top %.1f, width %.1f, height %.1f", box.left, box.top, box.width, box.height)
        }
    }

    /// A JSON number, or null for NaN and infinities.
    static func number(_ value: Float) -> Any {
        value.isFinite ? Double(value) : NSNull()
    }

    /// `output 'prob' holds 3 NaN and 1 infinite values`, one per such output.
    static func warnings(_ result: PredictionResult) -> [String] {
        result.outputs.compactMap { output in
            let nan = output.values.count(where: \.isNaN)
            let infinite = output.values.count(where: \.isInfinite)
            guard nan + infinite > 0 else { return nil }
            let parts = [nan > 0 ? "\(nan) NaN" : nil, infinite > 0 ? "\(infinite) infinite" : nil].compactMap { $0 }
            return "output '\(TextEscaping.line(output.name))' holds \(parts.joined(separator: " and ")) value\(nan + infinite == 1 ? "" : "s")"
        }
    }
}

import Foundation

/// Text and JSON renderings of prediction results.
enum ResultPrinter {
    static func text(_ results: [PredictionResult], hasLabels: Bool) -> String {
        var lines: [String] = []
        for result in results {
            lines.append(result.source)
            if hasLabels {
                let width = result.labels.map(\.label.count).max() ?? 0
                for entry in result.labels {
                    let padding = String(repeating: " ", count: width - entry.label.count)
                    lines.append("  \(entry.label)\(padding)  \(String(format: "%.4f", entry.probability))")
                }
            }
            for output in result.outputs where !hasLabels {
                let shown = output.values.prefix(6).map { String(format: "%.5g", $0) }.joined(separator: ", ")
                lines.append("  \(output.name) \(output.shape): [\(shown)\(output.values.count > 6 ? ", ..." : "")]")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func json(_ results: [PredictionResult]) -> String {
        let objects: [[String: Any]] = results.map { result in
            var object: [String: Any] = ["source": result.source]
            if let label = result.classLabel {
                object["classLabel"] = label
                object["results"] = result.labels.map { ["label": $0.label, "probability": Double($0.probability)] }
            } else {
                object["outputs"] = Dictionary(uniqueKeysWithValues: result.outputs.map {
                    ($0.name, ["shape": $0.shape, "values": $0.values.map(Double.init)] as [String: Any])
                })
            }
            return object
        }
        let data = (try? JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

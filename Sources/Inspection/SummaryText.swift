import ModelFormat

/// The plain-text summary `inspect` and `convert` print: what a model takes,
/// what it gives, how it preprocesses, which layers, how big.
public enum SummaryText {
    /// Renders the summary of `model`, read from a file of `format`.
    public static func render(_ model: Model, format: String) -> String {
        let statistics = ModelStatistics(model)
        var lines: [String] = []
        lines.append("Format:       \(format)")
        lines.append("Kind:         \(model.classifier == nil ? "neural network" : "neural network classifier")")
        let meta = model.metadata
        for (label, value) in [("Description", meta.shortDescription), ("Author", meta.author),
                               ("License", meta.license), ("Version", meta.version)] where !value.isEmpty {
            lines.append(pad("\(label):") + value)
        }
        for pair in meta.userDefined {
            lines.append(pad("Metadata:") + "\(pair.key) = \(pair.value)")
        }
        lines.append("Inputs:")
        for input in model.inputs {
            lines.append("  \(input.name): \(typeDescription(input))")
            if let image = input.image {
                lines.append("    preprocessing: \(preprocessing(image))")
            }
        }
        lines.append("Outputs:")
        if let classifier = model.classifier {
            let key = if case .strings = classifier.labels { "string" } else { "int64" }
            lines.append("  \(classifier.probabilitiesName): dictionary<\(key),double>")
            lines.append("  \(classifier.predictedFeatureName): \(key)")
        }
        for output in model.outputs {
            let shape = output.shape.isEmpty ? statistics.shapes[output.name]?.featureShape ?? [] : output.shape
            lines.append("  \(output.name): multiarray<double,\(shape)>")
        }
        if let classifier = model.classifier {
            let labels = classifier.labels.descriptions
            let shown = labels.prefix(8).joined(separator: ", ")
            lines.append(pad("Labels:") + "\(labels.count) (\(shown)\(labels.count > 8 ? ", ..." : ""))")
        }
        let layerList = statistics.layerCounts.map { "\($0.kind) \($0.count)" }.joined(separator: ", ")
        lines.append(pad("Layers:") + "\(model.nodes.count) (\(layerList))")
        lines.append(pad("Parameters:") + "\(grouped(statistics.parameterCount)) (float32, \(byteCount(statistics.weightBytes)))")
        lines.append(pad("MACs:") + grouped(statistics.multiplyAccumulates))
        return lines.joined(separator: "\n") + "\n"
    }

    static func pad(_ label: String) -> String {
        label.count >= 14 ? label + " " : label + String(repeating: " ", count: 14 - label.count)
    }

    /// `image<BGR,227x227>` or `multiarray<double,[3, 10, 10]>`.
    public static func typeDescription(_ input: Input) -> String {
        switch input.kind {
        case .image(let image): "image<\(image.colorSpace.rawValue),\(image.width)x\(image.height)>"
        case .array(let shape): "multiarray<double,\(shape)>"
        }
    }

    static func preprocessing(_ image: ImageInput) -> String {
        var parts = ["scale \(image.scale)"]
        switch image.colorSpace {
        case .grayscale: parts.append("gray bias \(image.grayBias)")
        case .rgb, .bgr: parts.append("bias R \(image.redBias) G \(image.greenBias) B \(image.blueBias)")
        }
        if let mean = image.meanImage { parts.append("mean image (\(mean.count) values)") }
        return parts.joined(separator: ", ")
    }

    /// 1234567 -> "1,234,567".
    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }

    /// 206083 -> "201.3 KB".
    public static func byteCount(_ bytes: Int) -> String {
        let units = ["bytes", "KB", "MB", "GB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) bytes" : "\((value * 10).rounded() / 10) \(units[unit])"
    }
}

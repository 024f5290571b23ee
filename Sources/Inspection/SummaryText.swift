import Naming
import CoreMLBackend
import ModelFormat

/// The plain-text summary `inspect` and `convert` print: what a model takes,
/// what it gives, how it preprocesses, which layers, how big.
public enum SummaryText {
    /// Renders the summary of `model`, read from a file of `format`.
    /// (`convert`'s summary: feature descriptions are not shown.)
    public static func render(_ model: Model, format: String) -> String {
        render(InspectedModel(path: "", format: FileFormatInfo(id: "", name: format), content: .network(model)),
               featureDescriptions: false)
    }

    /// Renders the summary of an inspected file: a network's inputs,
    /// outputs, labels, layers and size, or a weights file's layers and size.
    /// Text from the file is escaped (`TextEscaping`) before it is styled;
    /// an option a line mentions is named by `naming` (a program: its flag).
    public static func render(_ inspected: InspectedModel, style: TextStyle = .plain, featureDescriptions: Bool = true,
                              naming: (OptionName) -> String = \.libraryName) -> String {
        var lines: [String] = []
        // A value wider than the columns left after its label wraps onto lines under it.
        func line(_ label: String, _ value: String) { notes((label: label, items: [value])) }
        func append(_ text: String) {
            // An indented line (a feature, its preprocessing) wraps under its own indent.
            let escaped = TextEscaping.line(text)
            let indent = escaped.prefix(while: { $0 == " " }).count
            let pieces = LayerTable.wrap(String(escaped.dropFirst(indent)), width: LayerTable.maxWidth - indent - 2)
            for (index, piece) in pieces.enumerated() {
                lines.append(String(repeating: " ", count: indent + (index == 0 ? 0 : 2)) + piece)
            }
        }
        func notes(_ note: (label: String, items: [String])) {
            var first = true
            for item in note.items {
                for piece in LayerTable.wrap(TextEscaping.line(item), width: LayerTable.maxWidth - pad("").count) {
                    lines.append((first ? style.heading(pad(note.label + ":")) : pad("")) + piece)
                    first = false
                }
            }
        }
        line("Format", inspected.format.name)
        if let deployment = inspected.deployment {
            // The reason a version is raised on lines of its own: a list of layer kinds can be long.
            notes((label: "Loads on", items: deployment.lines(indent: pad("").count)))
        }
        if !inspected.name.isEmpty { line("Name", inspected.name) }
        if let outline = inspected.outline {
            outlineLines(outline, line: line, append: append, raw: { lines.append($0) }, style: style, naming: naming)
            return lines.joined(separator: "\n") + "\n"
        }
        switch inspected.content {
        case .network(let model):
            let statistics = ModelStatistics(model)
            let network = inspected.format.id == "mlprogram" ? "ML program" : "neural network"
            line("Kind", model.detector != nil ? "object detector (pipeline: \(network), then non-maximum suppression)"
                 : model.classifier == nil ? "neural network" : "neural network classifier")
            let meta = model.metadata
            for (label, value) in [("Description", meta.shortDescription), ("Author", meta.author),
                                   ("License", meta.license), ("Version", meta.version)] where !value.isEmpty {
                line(label, value)
            }
            for pair in meta.userDefined {
                line("Metadata", "\(pair.key) = \(pair.value)")
            }
            lines.append(style.heading("Inputs:"))
            for (index, feature) in inspected.inputFeatures(statistics).enumerated() {
                append("  \(feature.name): \(feature.type)")
                if index < model.inputs.count, let image = model.inputs[index].image {
                    append("    preprocessing: \(preprocessing(image))")
                }
                if featureDescriptions && !feature.description.isEmpty { append("    description: \(feature.description)") }
            }
            lines.append(style.heading("Outputs:"))
            for feature in inspected.outputFeatures(statistics) {
                append("  \(feature.name): \(feature.type)")
                if featureDescriptions && !feature.description.isEmpty { append("    description: \(feature.description)") }
            }
            if let detector = model.detector {
                let rows = statistics.shapes[detector.coordinatesTensor]?.dimensions.dropLast().last ?? 0
                notes((label: "Detector", items: [
                    "\(rows) candidate " + (detector.rowsPerClass ? "rows (each box once per class)" : "boxes") + ", \(detector.labels.count) classes",
                    "suppression \(detector.perClass ? "per class" : "across classes"), "
                        + "IoU threshold \(detector.iouThreshold), confidence threshold \(detector.confidenceThreshold)"
                        + (detector.maximumBoxes.map { ", at most \($0) boxes kept" } ?? "")]))
            }
            if let labelSet = model.classifier?.labels ?? model.detector?.labels {
                let labels = labelSet.descriptions
                let shown = labels.prefix(8).joined(separator: ", ")
                line("Labels", "\(labels.count) (\(shown)\(labels.count > 8 ? ", ..." : ""))")
            }
            let layerList = statistics.layerCounts.map { "\($0.kind) \($0.count)" }.joined(separator: ", ")
            line("Layers", "\(model.nodes.count) (\(layerList))")
            for note in inspected.notes { notes(note) }
            line("Parameters", parameters(inspected))
            line("MACs", grouped(statistics.multiplyAccumulates))
        case .weightsOnly(let file):
            line("Kind", "weights only (the network definition is a separate file)")
            let withBlobs = file.layers.filter { !$0.blobs.isEmpty }.count
            if file.hasTopology {
                var kinds: [String] = []
                var counts: [String: Int] = [:]
                for layer in file.layers {
                    if counts[layer.type] == nil { kinds.append(layer.type) }
                    counts[layer.type, default: 0] += 1
                }
                let list = kinds.map { "\($0) \(counts[$0]!)" }.joined(separator: ", ")
                line("Layers", "\(file.layers.count) (\(list)), \(withBlobs) with blobs")
            } else {
                line("Layers", "\(file.layers.count), \(withBlobs) with blobs")
            }
            for note in inspected.notes { notes(note) }
            line("Parameters", parameters(inspected))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Op types named on the `Layers` line of a model that does not convert; the rest are counted.
    static let outlineOpTypes = 12
    /// Obstacles listed under `Cannot convert:`; the rest are counted (`--json` lists every one).
    static let outlineObstacles = 40

    /// A model that parses but does not convert: what the file states
    /// (inputs and outputs as declared, node counts by op type), then one
    /// line per obstacle, each cut to `LayerTable.maxWidth` columns.
    private static func outlineLines(_ outline: SourceOutline, line: (String, String) -> Void, append: (String) -> Void,
                                     raw: (String) -> Void, style: TextStyle, naming: (OptionName) -> String) {
        line("Kind", "not convertible as it is: the model as the file states it")
        for pair in outline.metadata { line("Metadata", "\(pair.key) = \(pair.value)") }
        raw(style.heading("Inputs:"))
        if outline.inputs.isEmpty { raw("  (none declared)") }
        for tensor in outline.inputs { append("  \(tensor.description)") }
        raw(style.heading("Outputs:"))
        if outline.outputs.isEmpty { raw("  (none declared)") }
        for tensor in outline.outputs { append("  \(tensor.description)") }
        let counts = outline.opCounts
        let list = counts.prefix(outlineOpTypes).map { "\($0.op) \($0.count)" }.joined(separator: ", ")
            + (counts.count > outlineOpTypes ? ", and \(counts.count - outlineOpTypes) more op types" : "")
        line("Layers", "\(outline.nodes.count) nodes" + (list.isEmpty ? "" : " (\(list))"))
        if let parameters = outline.parameters {
            line("Parameters", grouped(parameters) + (outline.weightTensors.map { $0 == 0 ? "" : " in \($0) stored tensor\($0 == 1 ? "" : "s")" } ?? ""))
        }
        let count = outline.obstacles.count
        raw(style.heading("Cannot convert:") + " \(count) obstacle\(count == 1 ? "" : "s") (once they are fixed, convert may find more)")
        for obstacle in outline.obstacles.prefix(outlineObstacles) {
            let text = "  " + TextEscaping.line(obstacle.message.namingOptions(naming))
            raw(text.count <= LayerTable.maxWidth ? text : String(text.prefix(LayerTable.maxWidth - 3)) + "...")
        }
        if count > outlineObstacles { raw("  ... and \(count - outlineObstacles) more (\(naming(.json)) lists every one)") }
    }

    /// `33,160 (float32, 129.5 KB)`, or per precision when there are several:
    /// `1,234 (float16: 1,000, 2.0 KB; float32: 234, 936 bytes)`.
    static func parameters(_ inspected: InspectedModel) -> String {
        let parts = inspected.parametersByPrecision
        let total = parts.reduce(0) { $0 + $1.count }
        guard parts.count > 1 else {
            let part = parts.first ?? (.float32, 0, 0)
            return "\(grouped(total)) (\(part.precision.name), \(byteCount(part.bytes)))"
        }
        let list = parts.map { "\($0.precision.name): \(grouped($0.count)), \(byteCount($0.bytes))" }
        return "\(grouped(total)) (\(list.joined(separator: "; ")))"
    }

    static func pad(_ label: String) -> String {
        label.count >= 14 ? label + " " : label + String(repeating: " ", count: 14 - label.count)
    }

    /// `image<BGR,227x227>` or `multiarray<double,[3,10,10]>`.
    public static func typeDescription(_ input: Input) -> String {
        switch input.kind {
        case .image(let image): "image<\(image.colorSpace.rawValue),\(image.width)x\(image.height)>"
        case .array(let shape), .tensor(let shape): arrayType(shape)
        }
    }

    /// A feature type as a Core ML file states it: `multiarray<float32,[3,32,32]>`,
    /// `image<BGR,227x227>`, `dictionary<string,double>`, `string`; nil for
    /// an array without a stated shape (the model's shape inference tells).
    public static func typeText(_ type: StoredFeatureType) -> String? {
        switch type {
        case .int64: "int64"
        case .double: "double"
        case .string: "string"
        case .image(let colorSpace, let width, let height): "image<\(colorSpace),\(width)x\(height)>"
        case .multiArray(let dataType, let shape): shape.isEmpty ? nil : arrayType(shape, dataType: dataType)
        case .multiArrayRange(let dataType, let lower, let upper): flexibleArrayType(lower: lower, upper: upper, dataType: dataType)
        case .dictionary(let keyType): "dictionary<\(keyType),double>"
        }
    }

    /// `multiarray<double,[0...,20]>`: a shape range, a dimension of fixed
    /// size as its size, others as `lower...upper` (`lower...` unbounded).
    public static func flexibleArrayType(lower: [Int], upper: [Int?], dataType: String = "double") -> String {
        let dimensions = zip(lower, upper).map { lower, upper in
            upper == lower ? "\(lower)" : "\(lower)...\(upper.map(String.init) ?? "")"
        }
        return "multiarray<\(dataType),[\(dimensions.joined(separator: ","))]>"
    }

    /// `multiarray<double,[3,299,299]>`: how the toolkit writes array features.
    public static func arrayType(_ shape: [Int], dataType: String = "double") -> String {
        "multiarray<\(dataType),[\(shape.map(String.init).joined(separator: ","))]>"
    }

    static func preprocessing(_ image: ImageInput) -> String {
        if !image.hasScaler && image.meanImage == nil { return "none (pixel values 0 to 255 as they are)" }
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
    /// A precision's name, with a lookup table's size: `4-bit lookup
    /// table, 16 entries`.
    public static func precisionDetail(_ precision: Precision) -> String {
        guard case .quantized(let bits, let mode) = precision, mode.usesLookupTable else { return precision.name }
        return "\(precision.name), \(1 << bits) entries"
    }

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

/// A model input or output as an app sees it: name, type text, description.
public struct FeatureSummary: Equatable, Sendable {
    public var name: String
    /// `image<BGR,227x227>`, `multiarray<double,[8]>`, `dictionary<string,double>`, `string`, `int64`.
    public var type: String
    public var description: String
    /// Array shape, or [C, H, W] of an image; empty for other types.
    public var shape: [Int]
}

extension InspectedModel {
    /// The model's inputs, typed as the file states when it does.
    public func inputFeatures(_ statistics: ModelStatistics? = nil) -> [FeatureSummary] {
        guard let model else { return [] }
        return model.inputs.map { input in
            let shape: [Int] = switch input.kind {
            case .image(let image): [image.channels, image.height, image.width]
            case .array(let shape), .tensor(let shape): shape
            }
            return FeatureSummary(name: input.name, type: featureTypes[input.name] ?? SummaryText.typeDescription(input),
                                  description: input.description, shape: shape)
        } + (model.detector.map(Self.thresholdFeatures) ?? [])
    }

    /// A detector's optional threshold inputs.
    static func thresholdFeatures(_ detector: Detector) -> [FeatureSummary] {
        [(Detector.iouThresholdFeature, detector.iouThreshold, "IoU"), (Detector.confidenceThresholdFeature, detector.confidenceThreshold, "Confidence")]
            .map { name, value, what in
                FeatureSummary(name: name, type: "double (optional)", description: "(optional) \(what) threshold override (default: \(value))", shape: [])
            }
    }

    /// The classifier's two features first (probabilities, then label), then the array outputs.
    public func outputFeatures(_ statistics: ModelStatistics? = nil) -> [FeatureSummary] {
        guard let model else { return [] }
        var features: [FeatureSummary] = []
        if let classifier = model.classifier {
            let key = if case .strings = classifier.labels { "string" } else { "int64" }
            features.append(FeatureSummary(name: classifier.probabilitiesName,
                                           type: featureTypes[classifier.probabilitiesName] ?? "dictionary<\(key),double>",
                                           description: classifier.probabilitiesDescription, shape: []))
            features.append(FeatureSummary(name: classifier.predictedFeatureName,
                                           type: featureTypes[classifier.predictedFeatureName] ?? key,
                                           description: classifier.predictedFeatureDescription, shape: []))
        }
        if let detector = model.detector {
            // The pipeline's outputs: the rows the suppression keeps.
            return [(Detector.confidenceFeature, detector.labels.count, "Confidence of each class label for each box kept"),
                    (Detector.coordinatesFeature, 4, "Each box kept: centre x, centre y, width, height (fractions of the image)")].map { name, columns, text in
                FeatureSummary(name: name, type: featureTypes[name]
                                   ?? SummaryText.flexibleArrayType(lower: [0, columns], upper: [nil, columns]),
                               description: text, shape: [])
            }
        }
        let shapes = (statistics ?? ModelStatistics(model)).shapes
        for output in model.outputs {
            let shape = output.shape.isEmpty ? shapes[output.name]?.featureShape ?? [] : output.shape
            features.append(FeatureSummary(name: output.name, type: featureTypes[output.name] ?? SummaryText.arrayType(shape),
                                           description: output.description, shape: shape))
        }
        return features
    }
}

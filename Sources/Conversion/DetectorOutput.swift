import ModelFormat
import Naming

/// The output layouts of the detectors people export from PyTorch with
/// their decoding inside the graph (Ultralytics' `model.export(format="onnx")`):
/// one row or column per candidate box, the box as centre x, centre y,
/// width and height in pixels of the network's input.
public enum DetectorOutputLayout: String, CaseIterable, Sendable {
    /// YOLOv5: [1, N, 5 + C], each row the box, the objectness and C
    /// class scores (a class's confidence is objectness x class score).
    case yolov5
    /// YOLOv8 and YOLO11: [1, 4 + C, N], each column the box and C class
    /// confidences (no objectness).
    case yolov8

    /// The thresholds the exporters' own prediction uses: YOLOv5's
    /// detect.py (IoU 0.45), Ultralytics' predict for v8 and 11 (IoU 0.7);
    /// confidence 0.25 for both.
    public var defaultThresholds: (iou: Double, confidence: Double) {
        switch self {
        case .yolov5: (0.45, 0.25)
        case .yolov8: (0.7, 0.25)
        }
    }

    /// The columns of a row besides the class scores.
    var boxColumns: Int { self == .yolov5 ? 5 : 4 }
}

extension ConversionOptions {
    /// With `detectorOutput` and no image options given, the model's one
    /// [1, 3, H, W] input becomes the image, RGB pixels scaled by 1/255:
    /// what Ultralytics' exports take.
    mutating func takeDetectorImageDefaults(_ inputs: [Input]) {
        guard detectorOutput != nil, imageInputNames.isEmpty, givenPreprocessing.isEmpty, normalization == nil, inputs.count == 1 else { return }
        switch inputs[0].kind {
        case .tensor(let shape) where shape.count == 4 && shape[0] == 1 && shape[1] == 3: break
        case .array(let shape) where shape.count == 3 && shape[0] == 3: break
        default: return
        }
        imageInputNames = [inputs[0].name]
        imageScale = 1 / 255
    }

    /// With `detectorOutput`, the model's one output, boxes in the layout
    /// named, becomes a detector: rows `raw_coordinates` [1, N, 4] (the
    /// boxes divided by the input's width and height) and
    /// `raw_confidence` [1, N, C], then Core ML's suppression (per class,
    /// thresholds from `detectionThresholds`, else the layout's defaults).
    ///
    ///     yolov8: output [1, 4 + C, N] -> transpose -> rows: columns 0-3 / size, columns 4...
    ///     yolov5: output [1, N, 5 + C] -> columns 0-3 / size, columns 5... x column 4
    ///
    /// - Throws: `ModelError` when the model has not one such output or
    ///   not one [1, C, H, W] input; `LabelFileError` for labels that do
    ///   not count C.
    public mutating func applyDetectorOutput(to model: inout Model) throws {
        guard let layout = detectorOutput else { return }
        let flag = "\(option: .detector) \(layout.rawValue)"
        let conflicts = [(yoloAnchors != nil, OptionName.yoloAnchors), (classMap, .classMap), (addSoftmax, .addSoftmax)].filter(\.0)
        if let conflict = conflicts.first {
            throw ModelError("\(flag) makes the model a detector; it does not go with \(option: conflict.1)")
        }
        guard model.detector == nil else { throw ModelError("\(flag): the model is a detector already") }
        guard model.outputs.count == 1 else {
            throw ModelError("\(flag) decodes the one output of boxes, and the model has \(model.outputs.count): "
                             + model.outputs.map(\.name).joined(separator: ", "))
        }
        guard model.inputs.count == 1, let size = Self.pixelSize(of: model.inputs[0]) else {
            throw ModelError("\(flag) reads boxes in pixels of the model's one input, an image, and the model's inputs are "
                             + model.inputs.map(\.name).joined(separator: ", "))
        }
        // The file's own entries, with the user's (the model's metadata is set last).
        let metadataNames = classLabels == nil ? try Self.exporterNames(metadata, flag: flag) : nil
        let output = model.outputs[0].name
        var shapes = try ShapeInference.shapes(of: model)
        let dimensions = shapes[output]?.dimensions ?? []
        guard dimensions.count == 3, dimensions[0] == 1 else {
            throw ModelError("\(flag) takes an output [1, \(layout == .yolov5 ? "boxes, 5 + classes" : "4 + classes, boxes")]; '\(output)' is "
                             + (shapes[output]?.description ?? "of unknown shape"))
        }
        let (rows, columns) = layout == .yolov5 ? (dimensions[1], dimensions[2]) : (dimensions[2], dimensions[1])
        let classes = columns - layout.boxColumns
        let other: DetectorOutputLayout = layout == .yolov5 ? .yolov8 : .yolov5
        let otherClasses = (layout == .yolov5 ? dimensions[1] : dimensions[2]) - other.boxColumns
        guard classes >= 1 else {
            throw ModelError("\(flag): output '\(output)' \(dimensions) has no class columns after the \(layout.boxColumns) of a box")
        }
        let labelCount = classLabels?.count ?? metadataNames?.count
        if labelCount == otherClasses, labelCount != classes {
            throw ModelError("\(flag): output '\(output)' \(dimensions) holds \(otherClasses) classes as \(other.rawValue) lays them out, "
                             + "as many as the labels: give \(option: .detector) \(other.rawValue)")
        }
        if let names = metadataNames {
            guard names.count == classes else {
                throw ModelError("\(flag): the model's metadata names \(names.count) classes ('names'), and output '\(output)' "
                                 + "\(dimensions) holds \(classes): give \(option: .classLabels)")
            }
            classLabels = .strings(names)
        }
        if labelCount == nil, rows < columns {
            throw ModelError("\(flag): output '\(output)' \(dimensions) would be \(rows) boxes of \(classes) classes, fewer boxes than columns: "
                             + "is it \(other.rawValue)'s layout? Give \(option: .classLabels) to convert it as it is")
        }
        var detector = try takeDetector(classes: classes, source: "the \(layout.rawValue) output '\(output)'", defaults: layout.defaultThresholds)
        var names = FreshNames(model)
        detector.confidenceTensor = names.make(detector.confidenceTensor)
        detector.coordinatesTensor = names.make(detector.coordinatesTensor)
        let nodes = Self.decoding(layout, output: output, rows: rows, classes: classes, size: size, into: detector, names: &names)
        _ = try ShapeInference.append(nodes, to: &model.nodes, shapes: &shapes)
        model.outputs = [Output(name: detector.confidenceTensor), Output(name: detector.coordinatesTensor)]
        model.detector = detector
    }

    /// What Ultralytics' exporter writes into a model's metadata: a `task`
    /// other than detect (pose, segment, obb: more columns than boxes and
    /// classes) is refused; its `names` (a Python dict's or list's text)
    /// are returned, to label the classes (nil: none, or not readable).
    static func exporterNames(_ metadata: Metadata, flag: String) throws -> [String]? {
        let entries = Dictionary(metadata.userDefined.map { ($0.key, $0.value) }) { first, _ in first }
        if let task = entries["task"], task != "detect" {
            throw ModelError("\(flag): the model's metadata says its task is '\(TextEscaping.line(task))' (an Ultralytics export); its output "
                             + "holds more than boxes and class scores: convert a detection model (task detect)")
        }
        return entries["names"].flatMap(pythonNames).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The strings of a Python literal as `str()` writes a names table:
    /// `{0: 'person', 1: "dog's"}` (keys 0, 1, ... in order) or
    /// `['person', ...]`; nil for anything else.
    public static func pythonNames(_ text: String) -> [String]? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard let open = rest.first, open == "{" || open == "[" else { return nil }
        rest.removeFirst()
        var names: [String] = []
        func skipSpaces() { while rest.first == " " { rest.removeFirst() } }
        func quoted() -> String? {
            guard let quote = rest.first, quote == "'" || quote == "\"" else { return nil }
            rest.removeFirst()
            var value = ""
            while let c = rest.first {
                rest.removeFirst()
                if c == quote { return value }
                guard c == "\\" else { value.append(c); continue }
                guard let escaped = rest.first else { return nil }
                rest.removeFirst()
                switch escaped {
                case "\\", "'", "\"": value.append(escaped)
                case "n": value.append("\n")
                case "t": value.append("\t")
                default: return nil  // \x, \u...: not read; the labels stay numbers
                }
            }
            return nil
        }
        skipSpaces()
        while rest.first != (open == "{" ? "}" : "]") {
            if !names.isEmpty {
                guard rest.first == "," else { return nil }
                rest.removeFirst()
                skipSpaces()
            }
            if open == "{" {
                let digits = rest.prefix { $0.isASCII && $0.isNumber }
                guard Int(digits) == names.count else { return nil }
                rest.removeFirst(digits.count)
                guard rest.first == ":" else { return nil }
                rest.removeFirst()
                skipSpaces()
            }
            guard let name = quoted() else { return nil }
            names.append(name)
            skipSpaces()
            if rest.isEmpty { return nil }
        }
        rest.removeFirst()
        return rest.isEmpty ? names : nil
    }

    /// The nodes that turn `output` into `detector`'s two tensors.
    static func decoding(_ layout: DetectorOutputLayout, output: String, rows: Int, classes: Int, size: (width: Int, height: Int),
                         into detector: Detector, names: inout FreshNames) -> [Node] {
        var nodes: [Node] = []
        func emit(_ name: String, _ operation: Op, _ inputs: String...) -> String {
            nodes.append(Node(name: name, operation: operation, inputs: inputs, outputs: [name]))
            return name
        }
        let table = layout == .yolov8 ? emit(names.make("\(output)_rows"), .defined(Transpose(axes: [0, 2, 1])), output) : output
        func columns(_ from: Int, _ to: Int, _ name: String) -> String {
            emit(name, .slice(Slice(begin: [0, 0, from], end: [1, rows, to])), table)
        }
        let (width, height) = (1 / Float(size.width), 1 / Float(size.height))
        let perPixel = emit(names.make("\(output)_per_pixel"), .defined(Constant(shape: [1, 1, 4], data: Weights([width, height, width, height]))))
        _ = emit(detector.coordinatesTensor, .multiply(constant: 1), columns(0, 4, names.make("\(output)_boxes")), perPixel)
        let first = layout.boxColumns
        if layout == .yolov5 {
            let scores = columns(first, first + classes, names.make("\(output)_class_scores"))
            _ = emit(detector.confidenceTensor, .multiply(constant: 1), scores, columns(4, 5, names.make("\(output)_objectness")))
        } else {
            _ = columns(first, first + classes, detector.confidenceTensor)
        }
        return nodes
    }

    /// Width and height of an image, a [1, C, H, W] tensor or a [C, H, W] array.
    static func pixelSize(of input: Input) -> (width: Int, height: Int)? {
        switch input.kind {
        case .image(let image): (image.width, image.height)
        case .tensor(let shape) where shape.count == 4 && shape[0] == 1: (shape[3], shape[2])
        case .array(let shape) where shape.count == 3: (shape[2], shape[1])
        case .array, .tensor: nil
        }
    }
}

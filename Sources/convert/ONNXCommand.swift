import CLI
import Conversion
import ModelFiles
import ONNXFrontend

/// `convert onnx`: an ONNX model (PyTorch's torch.onnx.export) -> .mlmodel.
enum ONNXCommand: Command {
    static let configuration = CommandConfiguration(
        name: "onnx", abstract: "Convert an ONNX model (.onnx, as PyTorch exports it) to Core ML.",
        discussion: """
            Reads opsets 9 to 21 with each opset's semantics (Softmax's axis, attributes that became inputs). \
            Initializers are constants and the shape arithmetic around Reshape is folded, so a symbolic batch \
            size needs nothing (it is 1); other symbolic sizes need --input-shape name=1,3,224,224. External data files \
            (models over 2 GB) are read from the model's folder and never outside it. Feature names come from the \
            graph's input and output names, characters other than letters, digits and '_' made '_'. An op the \
            converter cannot map is reported with every other one in one error: op type, count and node names.
            """,
        examples: [
            ("A torchvision classifier, app-ready: normalized, labelled, probabilities",
             "coreml-convert onnx resnet18.onnx --image-input input --mean 0.485,0.456,0.406 --std 0.229,0.224,0.225 "
                 + "--class-labels labels.txt --add-softmax -o ResNet18.mlmodel"),
            ("A model exported with symbolic sizes: give them, batch first",
             "coreml-convert onnx model.onnx --input-shape input=1,3,32,32 --image-input input -o Model.mlmodel"),
            ("A YOLOv8 or YOLO11 detector (Ultralytics' export) for Vision",
             "coreml-convert onnx yolov8n.onnx --detector yolov8 --class-labels coco.txt -o YOLOv8n.mlmodel"),
        ])
    static let options = Options(ConversionFlags.modelFileOptions("model.onnx", "The ONNX model.", layout: "1,C,H,W")
                                 + ConversionFlags.normalizationOptions + detectorOptions)

    static let detectorOptions: [OptionSpec] = [
        Option("detector", valueName: "layout",
               help: "The one output holds decoded boxes, to end in Core ML's suppression as a detector Vision reads: yolov5 "
                   + "([1, boxes, 5 + classes]: centre x, centre y, width, height in input pixels, objectness, class scores) or "
                   + "yolov8 (YOLOv8 and YOLO11: [1, 4 + classes, boxes], no objectness). Without image options, the one "
                   + "[1, 3, H, W] input becomes an RGB image scaled by 1/255, as Ultralytics' exports take it; without "
                   + "--class-labels, the class names in the file's metadata (Ultralytics' names) label the classes. Default "
                   + "thresholds: IoU 0.45 (yolov5) or 0.7 (yolov8), confidence 0.25, as the exporters' own prediction.").spec,
    ] + ConversionFlags.detectorOptions

    static func run(_ arguments: ParsedArguments) throws {
        let detector = try arguments.optionalValue("detector") { text in
            guard let layout = DetectorOutputLayout(rawValue: text) else {
                throw UsageError("takes \(DetectorOutputLayout.allCases.map(\.rawValue).joined(separator: " or ")), not '\(text)'")
            }
            return layout
        }
        if let detector, let other = ["add-softmax", "class-map"].first(where: arguments.flag) {
            throw UsageError("--detector \(detector.rawValue) makes the model a detector; it does not go with --\(other)")
        }
        let thresholds = try ConversionFlags.detectionThresholds(arguments)
        if detector == nil, thresholds.iou != nil || thresholds.confidence != nil {
            throw UsageError("--iou-threshold and --confidence-threshold apply to a detector: give --detector")
        }
        try ConversionFlags.convertModelFile(arguments, .onnx, featureName: FeatureName.sanitized) { source, options, shapes in
            var options = options
            (options.detectorOutput, options.detectionThresholds) = (detector, thresholds)
            ConversionFlags.applyDetectorFlags(arguments, to: &options)
            return try ONNXConverter.convert(model: source, inputs: shapes, options: options)
        }
    }
}

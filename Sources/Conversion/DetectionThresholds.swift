import ModelFormat

/// A detector's thresholds as the user gave them (nil: the converter's
/// default, from the source model where it has one).
public struct DetectionThresholds: Sendable {
    public var iou: Double?
    public var confidence: Double?

    public init(iou: Double? = nil, confidence: Double? = nil) {
        self.iou = iou
        self.confidence = confidence
    }
}

/// Darknet's own detection thresholds (its `detector test` defaults):
/// what a YOLO network is converted with unless told otherwise.
public let darknetThresholds = (iou: 0.45, confidence: 0.25)

extension ConversionOptions {
    /// The detector of a network whose decoding scores `classes` classes:
    /// its labels (`takeDetectorLabels`), the thresholds given
    /// (`detectionThresholds`, taken) or else `defaults` (the source
    /// model's), suppression per class as the frameworks do it.
    /// - Throws: `ConversionOptionError` for labels that do not fit.
    public mutating func takeDetector(classes: Int, background: Int? = nil, source: String,
                                      defaults: (iou: Double, confidence: Double)) throws -> Detector {
        let labels = try takeDetectorLabels(classes: classes, background: background, source: source)
        defer { detectionThresholds = DetectionThresholds() }
        return Detector(labels: labels, iouThreshold: detectionThresholds.iou ?? defaults.iou,
                        confidenceThreshold: detectionThresholds.confidence ?? defaults.confidence, perClass: true)
    }

    /// A detector's labels, from `classLabels` (taken: they make no
    /// classifier then): one per class; or, where the network scores a
    /// background class whose column the pipeline drops (SSD's), also one
    /// more, the background's label left out. Without labels, the class
    /// numbers (the background's skipped).
    /// - Throws: `LabelFileError` when the count fits neither.
    public mutating func takeDetectorLabels(classes: Int, background: Int? = nil, source: String) throws -> ClassLabels {
        let numbers = (0..<Int64(classes + (background == nil ? 0 : 1))).filter { $0 != Int64(background ?? -1) }
        guard let labels = classLabels else { return .integers(numbers) }
        classLabels = nil
        if labels.count == classes { return labels }
        if let background, labels.count == classes + 1 {
            switch labels {
            case .strings(var names): names.remove(at: background); return .strings(names)
            case .integers(var values): values.remove(at: background); return .integers(values)
            }
        }
        let counts = background == nil ? "\(classes)" : "\(classes) (or \(classes + 1) with the background's)"
        // The file does not fit the model, as a classifier's labels that do not (exit 1, not a usage error).
        throw LabelFileError(path: classLabelsSource, message: "\(labels.count) class labels, and \(source) detects \(classes) classes: give \(counts)")
    }
}

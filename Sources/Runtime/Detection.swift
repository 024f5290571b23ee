import ModelFormat

/// One box a detector kept, as Vision's `VNRecognizedObjectObservation`
/// reports it.
public struct Detection: Equatable, Sendable {
    /// The candidate row of the network's output it came from.
    public var row: Int
    /// Its top label and that label's confidence.
    public var label: String
    public var confidence: Float
    /// Centre and size in fractions of the image (x to the right, y down,
    /// as the network computes them; Vision's bounding boxes put y up).
    public var x: Float, y: Float, width: Float, height: Float

    public init(row: Int, label: String, confidence: Float, x: Float, y: Float, width: Float, height: Float) {
        self.row = row
        self.label = label
        self.confidence = confidence
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }
}

extension Network {
    /// The detector's suppression on the network's rows: the thresholds
    /// stored in the model unless `inputs` gives `iouThreshold` or
    /// `confidenceThreshold` (the pipeline's optional inputs).
    /// - Returns: the pipeline's outputs `confidence` [K, C] and
    ///   `coordinates` [K, 4] for the K boxes kept, and the boxes.
    static func suppress(_ detector: Detector, confidence: Tensor, coordinates: Tensor,
                         inputs: [String: InputValue]) throws -> (outputs: [String: Tensor], detections: [Detection]) {
        func threshold(_ name: String, _ stored: Double, _ valid: ClosedRange<Double>, _ range: String) throws -> Double {
            guard let given = inputs[name] else { return stored }
            guard case .number(let value) = given, valid.contains(value) else {
                let what = if case .number(let value) = given { "\(value)" } else { "an array or image" }
                throw RuntimeError("input '\(name)' takes a number \(range), not \(what)")
            }
            return value
        }
        let suppression = NonMaximumSuppression(
            iouThreshold: try threshold(Detector.iouThresholdFeature, detector.iouThreshold, 0...1, "from 0 to 1"),
            confidenceThreshold: try threshold(Detector.confidenceThresholdFeature, detector.confidenceThreshold,
                                               0...Double.greatestFiniteMagnitude, "of 0 or more"),
            perClass: detector.perClass, maximumBoxes: detector.maximumBoxes)
        let classes = detector.labels.count
        let kept = try suppression.kept(confidence: confidence.values, classes: classes, coordinates: coordinates.values)
        let labels = detector.labels.descriptions
        var scores: [Float] = [], boxes: [Float] = [], detections: [Detection] = []
        for (row, label) in kept {
            let box = Array(coordinates.values[row * 4..<(row + 1) * 4])
            scores += confidence.values[row * classes..<(row + 1) * classes]
            boxes += box
            detections.append(Detection(row: row, label: labels[label], confidence: confidence.values[row * classes + label],
                                        x: box[0], y: box[1], width: box[2], height: box[3]))
        }
        let outputs = [
            Detector.confidenceFeature: Tensor(shape: TensorShape([kept.count, classes]), values: scores),
            Detector.coordinatesFeature: Tensor(shape: TensorShape([kept.count, 4]), values: boxes),
        ]
        return (outputs, detections)
    }
}

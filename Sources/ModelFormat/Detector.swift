/// What makes a network an object detector that Vision reads directly:
/// the network ends with one row per candidate box (its class confidences,
/// and its box as centre x, centre y, width, height in fractions of the
/// image), and Core ML's non-maximum suppression keeps the best of
/// overlapping boxes. Written as a `Pipeline` of the network and a
/// `NonMaximumSuppression` model (specification 3), whose outputs
/// `confidence` and `coordinates` Vision turns into
/// `VNRecognizedObjectObservation`s.
public struct Detector: Equatable, Sendable {
    /// One per confidence column.
    public var labels: ClassLabels
    /// The network's [1, N, C] tensor of class confidences (graph tensor
    /// and output of the network inside the pipeline).
    public var confidenceTensor: String
    /// The network's [1, N, 4] tensor of boxes.
    public var coordinatesTensor: String
    /// Boxes overlapping a kept one by more than this intersection over
    /// union are dropped (0-1).
    public var iouThreshold: Double
    /// Boxes whose largest class confidence is below this are dropped first.
    public var confidenceThreshold: Double
    /// Suppression only among boxes of the same top label.
    public var perClass: Bool

    /// The pipeline's features, as Vision and Xcode's generated classes
    /// name them.
    public static let confidenceFeature = "confidence"
    public static let coordinatesFeature = "coordinates"
    public static let iouThresholdFeature = "iouThreshold"
    public static let confidenceThresholdFeature = "confidenceThreshold"

    public init(labels: ClassLabels, confidenceTensor: String = "raw_confidence", coordinatesTensor: String = "raw_coordinates",
                iouThreshold: Double, confidenceThreshold: Double, perClass: Bool) {
        (self.labels, self.confidenceTensor, self.coordinatesTensor) = (labels, confidenceTensor, coordinatesTensor)
        (self.iouThreshold, self.confidenceThreshold, self.perClass) = (iouThreshold, confidenceThreshold, perClass)
    }
}

extension Model {
    /// A detector's rules (`validate` calls this): no classifier beside it;
    /// its two tensors network outputs shaped [1, N, C] (C labels) and
    /// [1, N, 4]; thresholds Core ML's validator accepts (IoU 0-1,
    /// confidence >= 0); pipeline feature names free.
    func checkDetector(_ detector: Detector, shapes: [String: TensorShape]) throws(ModelError) {
        guard classifier == nil else { throw ModelError("a model cannot be both a classifier and a detector") }
        guard (0...1).contains(detector.iouThreshold) else {
            throw ModelError("the detector's IoU threshold must be from 0 to 1, not \(detector.iouThreshold)")
        }
        guard detector.confidenceThreshold >= 0, detector.confidenceThreshold.isFinite else {
            throw ModelError("the detector's confidence threshold must be 0 or more, not \(detector.confidenceThreshold)")
        }
        let reserved = [Detector.confidenceFeature, Detector.coordinatesFeature, Detector.iouThresholdFeature, Detector.confidenceThresholdFeature]
        if let clash = inputs.first(where: { reserved.contains($0.name) }) {
            throw ModelError("input '\(clash.name)' is named like one of the detector's features (\(reserved.joined(separator: ", ")))")
        }
        var rows: Int?
        for (tensor, columns, what) in [(detector.confidenceTensor, detector.labels.count, "class confidences"),
                                        (detector.coordinatesTensor, 4, "boxes")] {
            guard outputs.contains(where: { $0.name == tensor }), let shape = shapes[tensor] else {
                throw ModelError("the detector's \(what) '\(tensor)' is not an output of the network")
            }
            guard shape.dimensions.count == 3, shape.dimensions[0] == 1, shape.dimensions[2] == columns, rows ?? shape.dimensions[1] == shape.dimensions[1] else {
                throw ModelError("the detector's \(what) '\(tensor)' is \(shape.dimensions); it must be [1, boxes, \(columns)]"
                                 + (tensor == detector.confidenceTensor ? " (one column per class label)" : "") + ", with as many boxes as the other")
            }
            rows = shape.dimensions[1]
        }
        guard outputs.count == 2 else {
            throw ModelError("a detector's network has exactly its two tensors as outputs, not \(outputs.map(\.name))")
        }
        try checkLabels(detector.labels, owner: "the detector", clash: "an app could not tell the two apart")
    }
}

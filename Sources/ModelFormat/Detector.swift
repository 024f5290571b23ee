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
    /// Each box's row repeated once per class, row (n, c) holding only
    /// class c's confidence (`rowsPerClassNodes`): Core ML's suppression,
    /// one label per row, then suppresses each class on its own, a box
    /// kept under every label it passes, as Caffe's and OpenCV's
    /// DetectionOutput and torchvision's batched NMS do. N boxes of C
    /// classes make N x C rows into the suppression.
    public var rowsPerClass: Bool
    /// At most this many boxes kept, the most confident (the suppression's
    /// output rows' upper bound, as NonMaximumSuppression.proto describes
    /// it); nil: every box kept.
    public var maximumBoxes: Int?

    /// The pipeline's features, as Vision and Xcode's generated classes
    /// name them.
    public static let confidenceFeature = "confidence"
    public static let coordinatesFeature = "coordinates"
    public static let iouThresholdFeature = "iouThreshold"
    public static let confidenceThresholdFeature = "confidenceThreshold"

    public init(labels: ClassLabels, confidenceTensor: String = "raw_confidence", coordinatesTensor: String = "raw_coordinates",
                iouThreshold: Double, confidenceThreshold: Double, perClass: Bool, rowsPerClass: Bool = false, maximumBoxes: Int? = nil) {
        (self.labels, self.confidenceTensor, self.coordinatesTensor) = (labels, confidenceTensor, coordinatesTensor)
        (self.iouThreshold, self.confidenceThreshold, self.perClass) = (iouThreshold, confidenceThreshold, perClass)
        (self.rowsPerClass, self.maximumBoxes) = (rowsPerClass, maximumBoxes)
    }

    /// The nodes that repeat a detector's rows once per class
    /// (`rowsPerClass`): confidences [1, N, C] to [1, N x C, C], row
    /// (n, c) holding conf[n, c] in column c and zeros elsewhere, and boxes
    /// [1, N, 4] to [1, N x C, 4], each box C times. On tensors (`tensors`):
    ///
    ///     confidence [1, N, C] -> [1, N, 1, C] x identity [1, 1, C, C] -> [1, N x C, C]
    ///     boxes      [1, N, 4] -> [1, N, 1, 4] x ones [1, 1, C, 1]     -> [1, N x C, 4]
    ///
    /// on [C, H, W] maps, with the layers of those (a 1x1 convolution
    /// making the C x K channels (c, k) of K columns, value k of the row
    /// where c is its class, else 0):
    ///
    ///     rows [1, N, K] -> [K, N, 1] -> convolution [C x K, N, 1] -> [C, K, N] -> [N, C, K] -> [1, N x C, K]
    ///
    /// - Returns: the nodes and the two new tensors.
    public static func rowsPerClassNodes(confidence: String, coordinates: String, boxes: Int, classes: Int, tensors: Bool,
                                         names: inout FreshNames) -> (nodes: [Node], confidence: String, coordinates: String) {
        var nodes: [Node] = []
        func emit(_ base: String, _ operation: Op, _ inputs: String...) -> String {
            let name = names.make(base)
            nodes.append(Node(name: name, operation: operation, inputs: inputs, outputs: [name]))
            return name
        }
        var outputs: [String] = []
        for (tensor, columns, spread) in [(confidence, classes, true), (coordinates, 4, false)] {
            // Value (c, k): 1 where the row's class c keeps column k.
            let pattern = (0..<classes * columns).map { index in Float(!spread || index / columns == index % columns ? 1 : 0) }
            let repeated: String
            if tensors {
                let constant = emit("\(tensor)_by_class", .defined(Constant(shape: [1, 1, classes, columns], data: Weights(pattern))))
                let rows = emit("\(tensor)_rows", .reshape(targetShape: [1, boxes, 1, columns]), tensor)
                repeated = emit("\(tensor)_repeated", .multiply(constant: 1), rows, constant)
            } else {
                // Output channel (c, k) reads input channel k, weighted by the pattern.
                let weights = (0..<classes * columns).flatMap { out in (0..<columns).map { k in k == out % columns ? pattern[out] : 0 } }
                let maps = emit("\(tensor)_maps", .permute(axes: [0, 3, 2, 1]), tensor)
                let spreadMaps = emit("\(tensor)_by_class", .convolution(Convolution(outputChannels: classes * columns, kernelChannels: columns,
                                                                                    kernel: Size2(square: 1), weights: Weights(weights))), maps)
                let grouped = emit("\(tensor)_grouped", .reshape(targetShape: [classes, columns, boxes], order: .channelFirst), spreadMaps)
                repeated = emit("\(tensor)_repeated", .permute(axes: [0, 3, 1, 2]), grouped)
            }
            let shape = [1, boxes * classes, columns]
            outputs.append(emit("\(tensor)_per_class", .reshape(targetShape: shape), repeated))
        }
        return (nodes, outputs[0], outputs[1])
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
        if let most = detector.maximumBoxes, most < 1 {
            throw ModelError("the detector's most boxes kept must be 1 or more, not \(most)")
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

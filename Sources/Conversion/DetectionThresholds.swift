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

import Naming

/// Core ML's `NonMaximumSuppression` model (method PickTop) on a
/// detector's rows, as NonMaximumSuppression.proto describes it: a box's
/// confidence is its largest class confidence and its label that class
/// (the first on a tie); boxes whose confidence is below
/// `confidenceThreshold` are dropped first; the rest are taken in
/// descending order of confidence (on a tie, the earlier row first), each
/// kept unless a box kept before it (of the same label, with `perClass`)
/// overlaps it with an intersection over union above `iouThreshold`;
/// with `maximumBoxes` (the output's row range's upper bound), the first
/// that many kept, the most confident.
public struct NonMaximumSuppression: Equatable, Sendable {
    public var iouThreshold: Double
    public var confidenceThreshold: Double
    public var perClass: Bool
    public var maximumBoxes: Int?

    public init(iouThreshold: Double, confidenceThreshold: Double, perClass: Bool, maximumBoxes: Int? = nil) {
        self.iouThreshold = iouThreshold
        self.confidenceThreshold = confidenceThreshold
        self.perClass = perClass
        self.maximumBoxes = maximumBoxes
    }

    /// The most boxes above the confidence threshold the suppression takes
    /// (it compares them pairwise: a hostile or mistuned model would run for hours).
    public static let candidateLimit = 100_000

    /// The rows kept, in the order they were kept (descending confidence),
    /// each with its label.
    /// - Parameters:
    ///   - confidence: N rows of `classes` values.
    ///   - coordinates: N rows of (centre x, centre y, width, height).
    /// - Throws: `RuntimeError` when more than `candidateLimit` boxes are
    ///   above the confidence threshold.
    public func kept(confidence: [Float], classes: Int, coordinates: [Float]) throws -> [(row: Int, label: Int)] {
        precondition(classes > 0 && confidence.count % classes == 0 && coordinates.count == confidence.count / classes * 4,
                     "\(confidence.count) confidences of \(classes) classes for \(coordinates.count / 4) boxes")
        let rows = confidence.count / classes
        var scores = [Double](repeating: 0, count: rows), labels = [Int](repeating: 0, count: rows)
        for row in 0..<rows {
            for label in 0..<classes where confidence[row * classes + label] > confidence[row * classes + labels[row]] { labels[row] = label }
            scores[row] = Double(confidence[row * classes + labels[row]])
        }
        let candidates = (0..<rows).filter { scores[$0] >= confidenceThreshold }
        guard candidates.count <= Self.candidateLimit else {
            throw RuntimeError("\(candidates.count) boxes are above the confidence threshold \(confidenceThreshold); the suppression takes at most "
                               + "\(Self.candidateLimit): raise the threshold (the confidenceThreshold input, or \(option: .confidenceThreshold))")
        }
        var kept: [Int] = []
        for row in candidates.sorted(by: { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 })
        where !kept.contains(where: { (!perClass || labels[$0] == labels[row]) && overlap($0, row, coordinates) > iouThreshold }) {
            kept.append(row)
            if let most = maximumBoxes, kept.count >= most { break }
        }
        return kept.map { ($0, labels[$0]) }
    }

    /// Intersection over union of two rows' boxes (0 when both are empty).
    private func overlap(_ a: Int, _ b: Int, _ boxes: [Float]) -> Double {
        let (ax, ay, aw, ah) = (Double(boxes[4 * a]), Double(boxes[4 * a + 1]), Double(boxes[4 * a + 2]), Double(boxes[4 * a + 3]))
        let (bx, by, bw, bh) = (Double(boxes[4 * b]), Double(boxes[4 * b + 1]), Double(boxes[4 * b + 2]), Double(boxes[4 * b + 3]))
        let width = max(0, min(ax + aw / 2, bx + bw / 2) - max(ax - aw / 2, bx - bw / 2))
        let height = max(0, min(ay + ah / 2, by + bh / 2) - max(ay - ah / 2, by - bh / 2))
        let union = aw * ah + bw * bh - width * height
        return union > 0 ? width * height / union : 0
    }
}

/// Choosing which labels to show, in the manner of MediaPipe's image
/// classifier options: best first, at most `maxResults`, at least
/// `scoreThreshold`, only `allow`ed labels (when given), never `deny`ed ones.
public struct Ranking: Sendable, Equatable {
    public var maxResults: Int
    public var scoreThreshold: Float
    public var allow: Set<String>
    public var deny: Set<String>

    public init(maxResults: Int = 5, scoreThreshold: Float = 0, allow: Set<String> = [], deny: Set<String> = []) {
        self.maxResults = maxResults
        self.scoreThreshold = scoreThreshold
        self.allow = allow
        self.deny = deny
    }

    /// The labels to show, most probable first (ties keep label order). A
    /// NaN probability is shown first, whatever the threshold: it means the
    /// model computed nothing meaningful, and hiding it would hide that.
    public func apply(_ probabilities: [(label: String, probability: Float)]) -> [(label: String, probability: Float)] {
        let kept = probabilities.enumerated().filter { _, entry in
            (entry.probability >= scoreThreshold || entry.probability.isNaN) && !deny.contains(entry.label)
                && (allow.isEmpty || allow.contains(entry.label))
        }
        let sorted = kept.sorted { a, b in
            let x = a.element.probability, y = b.element.probability
            if x.isNaN != y.isNaN { return x.isNaN }
            return x != y && !x.isNaN ? x > y : a.offset < b.offset
        }
        return sorted.prefix(max(maxResults, 0)).map(\.element)
    }
}

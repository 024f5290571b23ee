/// A lookup table of at most `entries` values placed by one-dimensional
/// k-means, for `--quantization kmeans-lut`. In one dimension each cluster
/// is a run of the sorted values, which makes two exact methods cheap:
///
/// - up to `optimalLimit` distinct values, the optimal clustering (least
///   squared error), by dynamic programming over the sorted distinct values
///   (`optimalCentres`);
/// - beyond, Lloyd's iterations, each cluster bounded by the midpoints
///   between neighbouring centres: with prefix sums over the sorted values
///   an iteration costs a binary search per centre, not a pass over the
///   values, so 8-bit tables of millions of weights converge in
///   milliseconds. The start is the values' quantiles (one centre at the
///   mean of each of `entries` equal runs).
///
/// No random numbers: the same weights always give the same table.
struct KMeansTable {
    /// The centres, ascending; as many as asked for (unused ones repeat the last).
    var entries: [Float]

    /// Lloyd's iterations stop when no value changes cluster, or after this many.
    static let maximumIterations = 300

    static func table(for values: UnsafeBufferPointer<Float>, entries count: Int) -> KMeansTable {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return KMeansTable(entries: [Float](repeating: 0, count: count)) }
        // The distinct values and how often each occurs, up to one past the exact method's limit.
        var distinct: [Float] = [], occurrences: [Double] = []
        for value in sorted {
            if value == distinct.last { occurrences[occurrences.count - 1] += 1 } else { distinct.append(value); occurrences.append(1) }
            if distinct.count > optimalLimit { break }  // (count, at most 256, is below it)
        }
        if distinct.count <= count {  // every value gets its own entry, exactly
            return KMeansTable(entries: distinct + [Float](repeating: distinct.last!, count: count - distinct.count))
        }
        if distinct.count <= optimalLimit {
            return KMeansTable(entries: optimalCentres(distinct.map(Double.init), occurrences, entries: count).map { Float($0) })
        }
        var sums = [Double](repeating: 0, count: sorted.count + 1)
        for (index, value) in sorted.enumerated() { sums[index + 1] = sums[index] + Double(value) }
        func mean(_ range: Range<Int>) -> Double { (sums[range.upperBound] - sums[range.lowerBound]) / Double(range.count) }

        var centres = (0..<count).map { mean($0 * sorted.count / count..<($0 + 1) * sorted.count / count) }
        var bounds: [Int] = []
        for _ in 0..<maximumIterations {
            // Cluster j: the sorted values from bounds[j] to bounds[j + 1].
            let next = [0] + (0..<count - 1).map { j in
                let midpoint = (centres[j] + centres[j + 1]) / 2
                return Self.count(sorted, below: midpoint)
            } + [sorted.count]
            if next == bounds { break }
            bounds = next
            for j in 0..<count where bounds[j] < bounds[j + 1] { centres[j] = mean(bounds[j]..<bounds[j + 1]) }
        }
        return KMeansTable(entries: centres.map { Float($0) }.sorted())
    }

    /// Clusterings of at most this many distinct values are computed exactly.
    static let optimalLimit = 16384

    /// The centres of the least-squares clustering into `entries` runs of
    /// the ascending distinct `values`, each occurring `weights` times.
    /// `cost[j][i]`, the least error of the first i distinct values
    /// in j + 1 runs, is the least over t of `cost[j - 1][t]` plus the error
    /// of values t..<i around their mean; the best t never moves left as i
    /// grows, so each row is found by divide and conquer in O(n log n).
    static func optimalCentres(_ values: [Double], _ weights: [Double], entries: Int) -> [Double] {
        let n = values.count
        var (w, s, q) = ([0.0], [0.0], [0.0])  // prefix sums of weight, weight * value, weight * value²
        for i in 0..<n {
            w.append(w[i] + weights[i]); s.append(s[i] + weights[i] * values[i]); q.append(q[i] + weights[i] * values[i] * values[i])
        }
        func error(_ a: Int, _ b: Int) -> Double { max(0, q[b] - q[a] - (s[b] - s[a]) * (s[b] - s[a]) / (w[b] - w[a])) }
        var previous = (0...n).map { $0 == 0 ? 0 : error(0, $0) }
        var splits = [[Int32]](repeating: [], count: entries)
        for j in 1..<entries {
            var current = [Double](repeating: .infinity, count: n + 1), split = [Int32](repeating: 0, count: n + 1)
            func solve(_ low: Int, _ high: Int, _ first: Int, _ last: Int) {
                guard low <= high else { return }
                let i = (low + high) / 2
                var best = max(first, j)
                for t in max(first, j)...max(min(last, i - 1), max(first, j)) where t < i {
                    let cost = previous[t] + error(t, i)
                    if cost < current[i] { (current[i], best) = (cost, t) }
                }
                split[i] = Int32(best)
                solve(low, i - 1, first, best)
                solve(i + 1, high, best, last)
            }
            solve(j + 1, n, j, n - 1)
            (previous, splits[j]) = (current, split)
        }
        var centres: [Double] = [], end = n
        for j in stride(from: entries - 1, through: 0, by: -1) {
            let start = j == 0 ? 0 : Int(splits[j][end])
            centres.append((s[end] - s[start]) / (w[end] - w[start]))
            end = start
        }
        return centres.reversed()
    }

    /// The number of sorted values below `limit`.
    private static func count<Value: BinaryFloatingPoint>(_ sorted: [Value], below limit: Double) -> Int {
        var (low, high) = (0, sorted.count)
        while low < high {
            let middle = (low + high) / 2
            if Double(sorted[middle]) < limit { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Each value's nearest entry (the lower one on a tie).
    func assign(_ values: UnsafeBufferPointer<Float>, into levels: UnsafeMutableBufferPointer<UInt8>) {
        let midpoints = zip(entries, entries.dropFirst()).map { (Double($0) + Double($1)) / 2 }
        for (index, value) in values.enumerated() { levels[index] = UInt8(Self.count(midpoints, below: Double(value))) }
    }
}

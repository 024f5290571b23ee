/// Suggestions for a mistyped name: an option, a subcommand, a tensor or
/// an input that does not exist ("did you mean ...?").

/// The candidate closest to `word` by edit distance, if that distance is at most `maxDistance`.
/// Ties go to the earliest candidate.
public func closestMatch(to word: String, in candidates: [String], maxDistance: Int = 2) -> String? {
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
        let distance = editDistance(word, candidate)
        if distance <= maxDistance, distance < (best?.distance ?? .max) {
            best = (candidate, distance)
        }
    }
    return best?.candidate
}

/// Levenshtein distance (insertions, deletions, substitutions) between two strings.
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}

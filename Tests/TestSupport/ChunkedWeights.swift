import ModelFormat

/// The values of `weights` put together from every chunk a writer asks for
/// (`Weights.withChunk`); NaN where no chunk wrote.
public func valuesByChunks(_ weights: Weights) -> [Float] {
    var values = [Float](repeating: .nan, count: weights.count)
    for index in 0..<weights.chunkCount {
        weights.withChunk(index) { start, chunk in
            for (offset, value) in chunk.enumerated() { values[start + offset] = value }
        }
    }
    return values
}

import ModelFormat
import TestSupport
import XCTest

/// Weights that a `WeightProducer` computes: whole, chunk by chunk (as the
/// writer streams them), and through `update(chunkwise:)`, which the
/// folding passes use; each against the values written out by hand.
final class ComputedWeightsTests: XCTestCase {
    /// value i = i * 0.5 - 3, rows of `rowLength`; counts the fills.
    final class Source: @unchecked Sendable {
        let lock = NSLock()
        var fills = 0
        var released = 0

        func producer(count: Int, rowLength: Int) -> WeightProducer {
            WeightProducer(count: count, rowLength: rowLength, release: { self.lock.withLock { self.released += 1 } }) { start, target in
                precondition(start % rowLength == 0 && target.count % rowLength == 0, "ranges are whole rows")
                self.lock.withLock { self.fills += 1 }
                for offset in target.indices { target[offset] = Float(start + offset) * 0.5 - 3 }
            }
        }
    }

    static func expected(_ count: Int) -> [Float] { (0..<count).map { Float($0) * 0.5 - 3 } }


    func testComputedWeightsAreComputedOnceWhenRead() {
        for count in [6, 300_000] { // one fill, and a parallel one across cores
            let source = Source()
            let weights = Weights(producer: source.producer(count: count, rowLength: 3))
            XCTAssertTrue(weights.isComputed)
            XCTAssertEqual(source.fills, 0, "nothing computed before it is needed")
            XCTAssertEqual(weights.values, Self.expected(count))
            let fills = source.fills
            XCTAssertEqual(weights[count - 1], Self.expected(count).last)
            XCTAssertEqual(weights.unsafeBuffer.baseAddress, weights.unsafeBuffer.baseAddress, "kept, not recomputed")
            XCTAssertEqual(source.fills, fills)
            XCTAssertEqual(source.released, 1, "the source is told once the values are in memory")
            XCTAssertEqual(weights, Weights(Self.expected(count)), "equal to the same values in memory")
        }
    }

    func testChunksCoverTheValuesInWholeRows() {
        for (count, rowLength) in [(6, 3), (200_000, 5), (140_000, 70_000), (100, 100)] {
            let source = Source()
            let weights = Weights(producer: source.producer(count: count, rowLength: rowLength))
            XCTAssertEqual(valuesByChunks(weights), Self.expected(count), "\(count) in rows of \(rowLength)")
            XCTAssertEqual(source.released, 0, "chunks alone do not release the source")
            weights.releaseSource()
            XCTAssertEqual(source.released, 1)
            // Once in memory, chunks are slices of it, still in the same pieces.
            let chunks = weights.chunkCount
            _ = weights.values
            XCTAssertEqual(weights.chunkCount, chunks)
            XCTAssertEqual(valuesByChunks(weights), Self.expected(count))
        }
        XCTAssertEqual(Weights([1, 2]).chunkCount, 1)
        Weights([1, 2]).withChunk(0) { start, values in
            XCTAssertEqual(start, 0)
            XCTAssertEqual(Array(values), [1, 2])
        }
    }

    /// Doubles each value plus its index, knowing where the range starts.
    static let doubleAndAddIndex: WeightProducer.Fill = { start, values in
        for offset in values.indices { values[offset] = values[offset] * 2 + Float(start + offset) }
    }

    static func doubledAndIndexed(_ values: [Float]) -> [Float] {
        values.enumerated().map { $0.element * 2 + Float($0.offset) }
    }

    func testChunkwiseUpdateOfOwnedWeightsIsInPlace() {
        var weights = Weights([1, 2, 3, 4])
        let address = weights.unsafeBuffer.baseAddress
        weights.update(chunkwise: Self.doubleAndAddIndex)
        XCTAssertFalse(weights.isComputed)
        XCTAssertEqual(weights.unsafeBuffer.baseAddress, address)
        XCTAssertEqual(weights.values, [2, 5, 8, 11])
    }

    func testChunkwiseUpdateOfBorrowedWeightsComputesFromTheLender() {
        let lent = LentFloats((0..<100_000).map { Float($0 % 13) })
        var weights = Weights(borrowing: UnsafeBufferPointer(lent.buffer), owner: lent)
        weights.update(chunkwise: Self.doubleAndAddIndex)
        XCTAssertTrue(weights.isComputed, "no copy of the borrowed values is made now")
        let expected = Self.doubledAndIndexed((0..<100_000).map { Float($0 % 13) })
        XCTAssertEqual(valuesByChunks(weights), expected)
        XCTAssertEqual(weights.values, expected)
        XCTAssertEqual(Array(lent.buffer.prefix(3)), [0, 1, 2], "the lender's memory is untouched")
    }

    func testChunkwiseUpdateOfComputedWeightsComposes() {
        let source = Source()
        let original = Weights(producer: source.producer(count: 90_000, rowLength: 9))
        var updated = original
        updated.update(chunkwise: Self.doubleAndAddIndex)
        XCTAssertEqual(source.fills, 0)
        XCTAssertEqual(valuesByChunks(updated), Self.doubledAndIndexed(Self.expected(90_000)))
        XCTAssertEqual(original.values, Self.expected(90_000), "the copy before the update is unchanged")
    }
}

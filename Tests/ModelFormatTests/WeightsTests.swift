import ModelFormat
import XCTest

/// Memory that a test owns and lends to `Weights(borrowing:owner:)`.
final class LentFloats: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<Float>

    init(_ values: [Float]) {
        buffer = .allocate(capacity: values.count)
        _ = buffer.initialize(from: values)
    }

    deinit { buffer.deallocate() }
}

final class WeightsTests: XCTestCase {
    func testEqualityComparesBitPatterns() {
        XCTAssertEqual(Weights([1, 2, 3]), Weights([1, 2, 3]))
        XCTAssertNotEqual(Weights([1, 2, 3]), Weights([1, 2, 4]))
        XCTAssertNotEqual(Weights([1, 2, 3]), Weights([1, 2]))
        // NaN equals itself (a lossless round trip must compare equal)...
        XCTAssertEqual(Weights([.nan, 1]), Weights([.nan, 1]))
        let signalling = Float(bitPattern: 0x7FA0_0001)
        XCTAssertEqual(Weights([signalling]), Weights([signalling]))
        // ...but not a NaN with another payload, and -0 is not +0.
        XCTAssertNotEqual(Weights([.nan]), Weights([Float(bitPattern: 0x7FC0_0001)]))
        XCTAssertNotEqual(Weights([.nan]), Weights([-.nan]))
        XCTAssertNotEqual(Weights([0]), Weights([-0.0]))
        XCTAssertEqual(Weights([.infinity, -.infinity]), Weights([.infinity, -.infinity]))
        XCTAssertEqual(Weights([]), Weights([]))
    }

    func testCopiesShareEquality() {
        let weights = Weights([.nan, 2])
        let copy = weights
        XCTAssertEqual(weights, copy)
        XCTAssertEqual(copy.values.map(\.bitPattern), [Float.nan.bitPattern, Float(2).bitPattern])
    }

    func testBorrowedAndOwnedWeightsAreEqualWhenTheValuesAre() {
        let values: [Float] = [0.5, -1, .nan, 3e10]
        let lent = LentFloats(values)
        let borrowed = Weights(borrowing: UnsafeBufferPointer(lent.buffer), owner: lent)
        XCTAssertEqual(borrowed, Weights(values))
        XCTAssertEqual(Weights(values), borrowed)
        XCTAssertTrue(borrowed.isLoaded)
        XCTAssertEqual(borrowed.count, 4)
        XCTAssertEqual(borrowed.unsafeBuffer.baseAddress, UnsafePointer(lent.buffer.baseAddress), "borrowing does not copy")
        XCTAssertEqual(borrowed[3], 3e10)

        let other = LentFloats([0.5, -1, .nan, 3])
        XCTAssertNotEqual(Weights(borrowing: UnsafeBufferPointer(other.buffer), owner: other), borrowed)
    }

    func testBorrowedWeightsKeepTheirOwnerAlive() {
        weak var weakOwner: LentFloats?
        let weights: Weights = {
            let lent = LentFloats([4, 5, 6])
            weakOwner = lent
            return Weights(borrowing: UnsafeBufferPointer(lent.buffer), owner: lent)
        }()
        XCTAssertNotNil(weakOwner)
        XCTAssertEqual(weights.values, [4, 5, 6])
    }

    func testUnloadedWeightsKeepTheirCount() {
        let unloaded = Weights(unloadedCount: 1176)
        XCTAssertEqual(unloaded.count, 1176)
        XCTAssertFalse(unloaded.isLoaded)
        XCTAssertEqual(unloaded.values, [])
        XCTAssertEqual(unloaded.unsafeBuffer.count, 0)
        XCTAssertEqual(unloaded.withUnsafeBufferPointer { $0.count }, 0)
        XCTAssertEqual(unloaded, Weights(unloadedCount: 1176))
        XCTAssertNotEqual(unloaded, Weights(unloadedCount: 1175))
        XCTAssertNotEqual(Weights(unloadedCount: 3), Weights([1, 2, 3]))
        XCTAssertNotEqual(Weights(unloadedCount: 0), Weights([]))
        XCTAssertEqual(unloaded.description, "Weights(1176 values, not loaded)")
        XCTAssertEqual(Weights([1, 2]).description, "Weights(2 values)")
    }

    func testValuesIsACopy() {
        let source: [Float] = [1, 2, 3]
        var input = source
        let weights = Weights(input)
        input[0] = 99
        XCTAssertEqual(weights.values, source, "the initializer copies")
        var values = weights.values
        values[1] = -7
        XCTAssertEqual(weights.values, source, "changing the returned array does not change the weights")
        XCTAssertEqual(weights[1], 2)
        XCTAssertEqual(weights.count, 3)
        XCTAssertTrue(weights.isLoaded)
        XCTAssertEqual(weights.withUnsafeBufferPointer { Array($0) }, source)
    }

    func testWeightsInOperationsCompareByValue() {
        let a = Op.innerProduct(InnerProduct(inputChannels: 2, outputChannels: 1, weights: Weights([1, .nan])))
        let b = Op.innerProduct(InnerProduct(inputChannels: 2, outputChannels: 1, weights: Weights([1, .nan])))
        let c = Op.innerProduct(InnerProduct(inputChannels: 2, outputChannels: 1, weights: Weights(unloadedCount: 2)))
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
    }
}

/// `Weights.update(chunkwise:)`: copy-on-write.
final class WeightsUpdateTests: XCTestCase {
    func testUniquelyOwnedWeightsAreUpdatedInPlace() {
        for count in [3, 1 << 20] { // heap and mapped storage
            var weights = Weights(count: count) { for i in $0.indices { $0[i] = Float(i) } }
            let address = weights.unsafeBuffer.baseAddress
            weights.update(chunkwise: { _, values in for i in values.indices { values[i] *= 2 } })
            XCTAssertEqual(weights.unsafeBuffer.baseAddress, address, "no copy for a sole owner")
            XCTAssertEqual(weights[count - 1], Float(2 * (count - 1)))
        }
    }

    func testSharedWeightsAreCopiedFirst() {
        var weights = Weights([1, 2, 3])
        let copy = weights
        weights.update(chunkwise: { start, values in if start == 0 { values[0] = 9 } })
        XCTAssertEqual(weights.values, [9, 2, 3])
        XCTAssertEqual(copy.values, [1, 2, 3], "the other copy keeps its values")
        XCTAssertNotEqual(weights.unsafeBuffer.baseAddress, copy.unsafeBuffer.baseAddress)
    }

    func testBorrowedWeightsAreNeverWritten() {
        let lent = LentFloats([4, 5])
        var weights = Weights(borrowing: UnsafeBufferPointer(lent.buffer), owner: lent)
        weights.update(chunkwise: { start, values in if start <= 1, start + values.count > 1 { values[1 - start] = -1 } })
        XCTAssertEqual(weights.values, [4, -1])
        XCTAssertEqual(Array(lent.buffer), [4, 5], "the lender's memory is untouched")
    }

    func testLargeWeightsStartAtZero() {
        let weights = Weights(count: 1 << 20) { _ in }
        XCTAssertTrue(weights.values.allSatisfy { $0 == 0 })
    }

    /// Weights in memory come in pieces of the size asked, the last one
    /// short, each with its first value's index (the writers spread them
    /// over the cores so).
    func testWeightsInMemoryComeInPiecesOfTheSizeAsked() {
        let weights = Weights([1, 2, 3, 4, 5])
        XCTAssertEqual(weights.pieceCount(size: 2), 3)
        let pieces = (0..<3).map { index in weights.withPiece(index, size: 2) { start, values in (start, Array(values)) } }
        XCTAssertEqual(pieces.map(\.0), [0, 2, 4])
        XCTAssertEqual(pieces.map(\.1), [[1, 2], [3, 4], [5]])
        XCTAssertEqual(Weights([Float]()).pieceCount(size: 2), 0)
    }
}

import HDF5
import XCTest

/// Storage variants libhdf5 itself decodes: built-in filters, byte orders,
/// integer types, scalars, empty datasets and soft links.
final class EdgeDatasetTests: XCTestCase {
    func read(_ dataset: String) throws -> (shape: [Int], values: [Float]) {
        try HDF5File(path: fixture("edge.h5")).readFloats(dataset)
    }

    func testGzipCompressedDataset() throws {
        let gzip = try read("gzip")
        XCTAssertEqual(gzip.shape, [10, 10])
        XCTAssertEqual(gzip.values, expectedValues(100))
    }

    func testShuffleAndChecksummedFloat64() throws {
        let shuffled = try read("shuffle")
        XCTAssertEqual(shuffled.shape, [6, 4])
        XCTAssertEqual(shuffled.values, expectedValues(24))
    }

    func testBigEndianFloat32() throws {
        let values = try read("big_endian")
        XCTAssertEqual(values.shape, [2, 3])
        XCTAssertEqual(values.values, expectedValues(6))
    }

    func testIntegersAreConverted() throws {
        let values = try read("int16")
        XCTAssertEqual(values.shape, [5])
        XCTAssertEqual(values.values, [-3, -2, -2, -2, -2])
    }

    func testScalarAndEmptyDatasets() throws {
        let scalar = try read("scalar")
        XCTAssertEqual(scalar.shape, [])
        XCTAssertEqual(scalar.values, [1.5])
        let empty = try read("empty")
        XCTAssertEqual(empty.shape, [0])
        XCTAssertEqual(empty.values, [])
    }

    func testSoftLinksAreFollowed() throws {
        let file = try HDF5File(path: fixture("edge.h5"))
        XCTAssertEqual(try file.kind(of: "soft"), .dataset)
        XCTAssertEqual(try file.readFloats("soft").values, expectedValues(100))
    }
}

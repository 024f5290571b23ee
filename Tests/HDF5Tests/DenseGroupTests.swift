import Foundation
import HDF5
import XCTest

/// Groups whose links live in dense storage (a fractal heap) are listed in a
/// child process: libhdf5 1.10.8 frees garbage on some corrupt ones (fuzz
/// finding 3, Fuzzing/RESULTS.md).
final class DenseGroupTests: XCTestCase {
    func testDenseGroupIsListedInFull() throws {
        let file = try HDF5File(path: fixture("dense.h5"))
        XCTAssertEqual(try file.children(of: "layers"), (0..<20).map { String(format: "layer_%02d", $0) })
        XCTAssertEqual(try file.children(of: "/"), ["layers"], "a compact group, listed in this process")
        XCTAssertEqual(try file.readFloats("layers/layer_13").values, expectedValues(2))
    }

    /// The fuzzer's file: whatever libhdf5 does with it in the child, the
    /// caller gets names or one HDF5Error, never a crash.
    func testCorruptDenseGroupGivesNamesOrAnError() throws {
        let path = hdf5Fixtures.deletingLastPathComponent()
            .appendingPathComponent("malformed/regressions/fuzz-hdf5/dense-group-link-name-frees-garbage.h5").path
        let file = try HDF5File(path: path)
        do {
            _ = try file.children(of: "/")
        } catch let error as HDF5Error {
            XCTAssertEqual(error.path, path)
            XCTAssertFalse(error.description.contains("\n"), "\(error)")
        }
    }
}

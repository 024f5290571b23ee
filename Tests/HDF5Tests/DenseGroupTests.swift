import Foundation
import HDF5
import XCTest

/// Groups are listed in a child process: libhdf5 1.10.8 frees garbage on
/// some corrupt dense groups (links in a fractal heap) and reads through a
/// null pointer counting the links of some corrupt symbol-table groups (fuzz
/// findings 3 and 7, Fuzzing/RESULTS.md).
final class DenseGroupTests: XCTestCase {
    func testDenseGroupIsListedInFull() throws {
        let file = try HDF5File(path: fixture("dense.h5"))
        XCTAssertEqual(try file.children(of: "layers"), (0..<20).map { String(format: "layer_%02d", $0) })
        XCTAssertEqual(try file.children(of: "/"), ["layers"], "a compact group")
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

    /// Finding 7: every group of the fuzzer's file walked as fuzz-hdf5 walks
    /// it (before, listing one of them crashed this process); each listing
    /// gives names or one HDF5Error.
    func testCorruptSymbolTableGroupGivesNamesOrAnError() throws {
        let path = hdf5Fixtures.deletingLastPathComponent()
            .appendingPathComponent("malformed/regressions/fuzz-hdf5/symbol-table-group-count-reads-null.h5").path
        let file = try HDF5File(path: path)
        var pending = [("/", 0)], listings = 0, errors = 0
        while let (group, depth) = pending.popLast(), listings < 64 {
            // The attribute reads first, as the fuzzer did: they leave libhdf5's
            // metadata cache in the state in which the listing crashed.
            for name in ["layer_names", "weight_names", "keras_version", "backend", "model_config", "training_config"]
            where listings < 4 {
                _ = try? file.stringAttribute(name, of: group)
                _ = try? file.stringArrayAttribute(name, of: group)
            }
            guard group == "/" || (try? file.kind(of: group)) == .group else { continue }
            listings += 1
            do {
                for child in try file.children(of: group).prefix(16) where depth < 8 {
                    pending.append((group == "/" ? child : "\(group)/\(child)", depth + 1))
                }
            } catch let error as HDF5Error {
                errors += 1
                XCTAssertEqual(error.path, path)
                XCTAssertFalse(error.description.contains("\n"), "\(error)")
            }
        }
        XCTAssertGreaterThan(errors, 0, "the corrupt group is an error")
    }
}

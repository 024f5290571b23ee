import Foundation
import HDF5
import XCTest

/// A Caffe HDF5 snapshot layout: data/<layer>/<blob index>.
final class CaffeStyleTests: XCTestCase {
    func testChildrenAreSortedLinkNames() throws {
        let file = try HDF5File(path: fixture("caffe.h5"))
        XCTAssertEqual(file.path, fixture("caffe.h5"))
        XCTAssertEqual(try file.children(of: "/"), ["data"])
        XCTAssertEqual(try file.children(of: "data"), ["conv1", "fc"])
        XCTAssertEqual(try file.children(of: "/data/conv1"), ["0", "1"])
        XCTAssertEqual(try file.children(of: "data/fc/"), ["0"])
    }

    /// Several groups listed in one child process: the same lists as one
    /// by one; a bad group anywhere in the batch is an error naming it.
    func testSeveralGroupsAtOnce() throws {
        let file = try HDF5File(path: fixture("caffe.h5"))
        XCTAssertEqual(try file.children(ofEach: ["data/conv1", "/", "data/fc", "data"]),
                       [["0", "1"], ["data"], ["0"], ["conv1", "fc"]])
        XCTAssertEqual(try file.children(ofEach: []), [])
        XCTAssertThrowsError(try file.children(ofEach: ["data", "data/conv2"])) { error in
            XCTAssertTrue("\(error)".contains("data/conv2"), "\(error)")
        }
        XCTAssertThrowsError(try file.children(ofEach: ["data", "data/fc/0"])) { error in
            XCTAssertTrue("\(error)".contains("data/fc/0"), "\(error)")
        }
    }

    func testKinds() throws {
        let file = try HDF5File(path: fixture("caffe.h5"))
        XCTAssertEqual(try file.kind(of: "/"), .group)
        XCTAssertEqual(try file.kind(of: "data"), .group)
        XCTAssertEqual(try file.kind(of: "data/conv1/0"), .dataset)
        XCTAssertEqual(try file.kind(of: "/data/fc/0"), .dataset)
        XCTAssertNil(try file.kind(of: "data/conv2"))
        XCTAssertNil(try file.kind(of: "missing/deeper/still"))
        XCTAssertNil(try file.kind(of: "data/conv1/0/inside"))
    }

    func testShapesAndFloat32Values() throws {
        let file = try HDF5File(path: fixture("caffe.h5"))
        XCTAssertEqual(try file.shape(of: "data/conv1/0"), [4, 3, 3, 3])
        XCTAssertEqual(try file.shape(of: "data/conv1/1"), [4])
        let weights = try file.readFloats("data/conv1/0")
        XCTAssertEqual(weights.shape, [4, 3, 3, 3])
        XCTAssertEqual(weights.values, expectedValues(108))
        let bias = try file.readFloats("/data/conv1/1")
        XCTAssertEqual(bias.shape, [4])
        XCTAssertEqual(bias.values, expectedValues(4))
    }

    func testFloat64IsConvertedByHDF5() throws {
        let file = try HDF5File(path: fixture("caffe.h5"))
        XCTAssertEqual(try file.shape(of: "data/fc/0"), [2, 8])
        let fc = try file.readFloats("data/fc/0")
        XCTAssertEqual(fc.shape, [2, 8])
        XCTAssertEqual(fc.values, expectedValues(16))
    }

    func testMissingObjectsAndWrongKinds() throws {
        let path = fixture("caffe.h5")
        let file = try HDF5File(path: path)
        assertMessage(hdf5Error(path, object: "data/conv1/2") { try file.readFloats("data/conv1/2") },
                      contains: "no such dataset")
        assertMessage(hdf5Error(path, object: "nope/0") { try file.shape(of: "nope/0") }, contains: "no such dataset")
        assertMessage(hdf5Error(path, object: "data/conv1") { try file.readFloats("data/conv1") },
                      contains: "is a group, not a dataset")
        assertMessage(hdf5Error(path, object: "data/fc/0") { try file.children(of: "data/fc/0") },
                      contains: "is a dataset, not a group")
    }

    func testLimitsAreConfigurable() throws {
        var limits = HDF5Limits()
        limits.maximumElements = 100
        let path = fixture("caffe.h5")
        let file = try HDF5File(path: path, limits: limits)
        XCTAssertEqual(try file.readFloats("data/fc/0").values.count, 16)
        assertMessage(hdf5Error(path, object: "data/conv1/0") { try file.readFloats("data/conv1/0") },
                      contains: "more elements than the limit of 100")
    }

    func testConcurrentReadersOfSeveralFiles() throws {
        let files = try ["caffe.h5", "keras_vlen.h5"].map { try HDF5File(path: fixture($0)) }
        let failures = ManagedAtomicCounter()
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            let file = files[index % 2]
            let dataset = index % 2 == 0 ? "data/conv1/0" : "model_weights/dense/dense/kernel:0"
            if (try? file.readFloats(dataset).values) != expectedValues(index % 2 == 0 ? 108 : 6) {
                failures.increment()
            }
        }
        XCTAssertEqual(failures.value, 0)
    }
}

/// A counter for `concurrentPerform` bodies.
final class ManagedAtomicCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

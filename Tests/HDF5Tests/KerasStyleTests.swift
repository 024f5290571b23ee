import Foundation
import HDF5
import XCTest

/// Keras `.h5` models: a JSON `model_config` root attribute, `model_weights`
/// groups with `weight_names`, with variable-length UTF-8 strings as h5py
/// writes `str` and fixed-length ASCII strings as Keras 2 wrote `bytes`.
final class KerasStyleTests: XCTestCase {
    let files = ["keras_vlen.h5", "keras_fixed.h5"]

    func testModelConfigIsJSON() throws {
        for name in files {
            let file = try HDF5File(path: fixture(name))
            let config = try XCTUnwrap(try file.stringAttribute("model_config", of: "/"), name)
            XCTAssertTrue(config.hasPrefix("{\"class_name\": \"Sequential\""), name)
            XCTAssertTrue(config.hasSuffix("}"), "\(name): no padding left")
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(config.utf8)) as? [String: Any], name)
            let inner = try XCTUnwrap(json["config"] as? [String: Any], name)
            XCTAssertEqual(inner["name"] as? String, "séquentiel", name)
            XCTAssertEqual(try file.stringAttribute("backend", of: "/"), "tensorflow", name)
        }
    }

    func testVariableLengthConfigKeepsUTF8() throws {
        let file = try HDF5File(path: fixture("keras_vlen.h5"))
        XCTAssertTrue(try XCTUnwrap(try file.stringAttribute("model_config", of: "/")).contains("séquentiel"))
        let ascii = try HDF5File(path: fixture("keras_fixed.h5"))
        XCTAssertTrue(try XCTUnwrap(try ascii.stringAttribute("model_config", of: "/")).contains("s\\u00e9quentiel"))
    }

    func testWeightNamesAndLayerNames() throws {
        for name in files {
            let file = try HDF5File(path: fixture(name))
            XCTAssertEqual(try file.stringArrayAttribute("weight_names", of: "model_weights/dense"),
                           ["dense/kernel:0", "dense/bias:0"], name)
            XCTAssertEqual(try file.stringArrayAttribute("layer_names", of: "/model_weights"), ["dense"], name)
            // Keras 2 wrote an empty float64 array for a layer without weights.
            XCTAssertEqual(try file.stringArrayAttribute("weight_names", of: "model_weights/flatten"), [], name)
            // A scalar string is a list of one.
            XCTAssertEqual(try file.stringArrayAttribute("backend", of: "/"), ["tensorflow"], name)
        }
    }

    /// Several objects at once (variable-length ones in one child process):
    /// what one read each gives, in order, absent ones nil.
    func testStringArraysOfSeveralObjectsAtOnce() throws {
        for name in files {
            let file = try HDF5File(path: fixture(name))
            let objects = ["model_weights/dense", "model_weights/flatten", "/", "model_weights/dense"]
            let batch = try file.stringArrayAttributes("weight_names", of: objects)
            XCTAssertEqual(batch, [["dense/kernel:0", "dense/bias:0"], [], nil, ["dense/kernel:0", "dense/bias:0"]], name)
            XCTAssertEqual(try file.stringArrayAttributes("backend", of: ["/"]), [["tensorflow"]], name)
            XCTAssertEqual(try file.stringArrayAttributes("weight_names", of: []), [], name)
            XCTAssertThrowsError(try file.stringArrayAttributes("weight_names", of: ["model_weights/dense", "nowhere"]), name)
        }
    }

    func testNestedWeightDatasets() throws {
        for name in files {
            let file = try HDF5File(path: fixture(name))
            XCTAssertEqual(try file.children(of: "/"), ["model_weights"], name)
            XCTAssertEqual(try file.children(of: "model_weights"), ["dense", "flatten"], name)
            XCTAssertEqual(try file.children(of: "model_weights/dense/dense"), ["bias:0", "kernel:0"], name)
            let kernel = try file.readFloats("model_weights/dense/dense/kernel:0")
            XCTAssertEqual(kernel.shape, [3, 2], name)
            XCTAssertEqual(kernel.values, expectedValues(6), name)
            XCTAssertEqual(try file.readFloats("model_weights/dense/dense/bias:0").values, expectedValues(2), name)
        }
    }

    func testSpacePaddedStringsLoseTheirPadding() throws {
        let file = try HDF5File(path: fixture("keras_fixed.h5"))
        XCTAssertEqual(try file.stringArrayAttribute("padded", of: "model_weights/dense"), ["ab", "c"])
    }

    func testMissingAttributesAreNil() throws {
        let file = try HDF5File(path: fixture("keras_vlen.h5"))
        XCTAssertNil(try file.stringAttribute("training_config", of: "/"))
        XCTAssertNil(try file.stringArrayAttribute("weight_names", of: "model_weights"))
        let path = fixture("keras_vlen.h5")
        assertMessage(hdf5Error(path, object: "model_weights/conv") {
            try file.stringAttribute("weight_names", of: "model_weights/conv")
        }, contains: "no such object")
    }

    func testAttributesOfTheWrongType() throws {
        for name in files {
            let path = fixture(name)
            let file = try HDF5File(path: path)
            assertMessage(hdf5Error(path, object: "/") { try file.stringAttribute("format_version", of: "/") },
                          contains: "attribute format_version holds integer values, not strings")
            assertMessage(hdf5Error(path, object: "model_weights/dense") {
                try file.stringAttribute("weight_names", of: "model_weights/dense")
            }, contains: "attribute weight_names holds 2 values of rank 1, not one string")
        }
    }
}

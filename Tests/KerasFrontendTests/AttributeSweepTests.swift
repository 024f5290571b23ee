import Conversion
import Foundation
@testable import KerasFrontend
import SweepSupport
import XCTest

/// The Keras attribute sweep (Tests/Fixtures/sweep/keras, written by
/// scripts/fixtures/make_keras_sweep.py): each mapped layer class, each
/// config key at the edges of its domain, a tiny model made and run by
/// Keras itself; converted and right, or refused naming the key.
final class AttributeSweepTests: XCTestCase {
    func testKerasSweep() throws {
        try runAttributeSweep("keras") { folder, testCase in
            try KerasConverter.convert(model: folder.appendingPathComponent(testCase.files[0]).path)
        }
    }
}

/// The ledgers (KerasLayerLedgers.swift): every mapped layer class has one,
/// and a config key none lists is refused by name before the mapping runs.
final class KerasLayerLedgerTests: XCTestCase {
    /// Every honoured config key of every layer class has a case in the sweep.
    func testEveryHonouredKeyHasASweepCase() throws {
        // The input's shape: every case's model starts with an InputLayer, batch_shape in Keras 3's
        // files, batch_input_shape in the keras2_* cases' (tf_keras); the sweep compares every one.
        let exempt: Set<String> = ["InputLayer.batch_shape", "InputLayer.batch_input_shape"]
        XCTAssertEqual(try unsweptHonouredAttributes("keras", ledgers: KerasLayerLedgers.ledgers,
                                                     types: KerasLayerLedgers.ledgers.ledgers.keys, exempt: exempt), [])
    }

    func testEveryMappedLayerClassHasALedger() {
        XCTAssertEqual(KerasLayerLedgers.ledgers.missing(for: KerasLayerTable.mappings.keys), [])
        XCTAssertEqual(Set(KerasLayerLedgers.ledgers.ledgers.keys).subtracting(KerasLayerTable.mappings.keys), ["InputLayer"],
                       "a ledger for a class nothing maps")
        // Every layer with a data_format reads it or takes channels_last only.
        for (name, ledger) in KerasLayerLedgers.ledgers.ledgers {
            guard let rule = ledger.rules["data_format"] else { continue }
            XCTAssertTrue(rule == .honoured || rule == .only("channels_last") || name.hasPrefix("Random") || name == "SpatialDropout2D", name)
        }
    }

    func testValuesRenderAsTheLedgerComparesThem() {
        XCTAssertEqual(KerasLayerLedgers.render(NSNull()), "null")
        XCTAssertEqual(KerasLayerLedgers.render(true), "true")
        XCTAssertEqual(KerasLayerLedgers.render(1.0), "1")
        XCTAssertEqual(KerasLayerLedgers.render([1, 1]), "[1, 1]")
        XCTAssertEqual(KerasLayerLedgers.render(0.5), "0.5")
        let policy: [String: Any] = ["module": "keras", "class_name": "DTypePolicy", "config": ["name": "mixed_float16"]]
        XCTAssertEqual(KerasLayerLedgers.render(policy, key: "dtype"), "mixed_float16")
        XCTAssertEqual(KerasLayerLedgers.render("float32", key: "dtype"), "float32")
    }

    func refusal(_ className: String, _ config: [String: Any]) -> String? {
        KerasLayerLedgers.refusal(KerasLayer(name: "l", className: className, config: config, inputs: ["x"]))
    }

    func testKeysOutsideTheLedgerAreRefusedByName() {
        XCTAssertNil(refusal("Conv2D", ["name": "c", "dtype": "float32", "kernel_regularizer": ["class_name": "L2"], "groups": 2]))
        XCTAssertEqual(refusal("Dense", ["lora_rank": 4]), "lora_rank '4' is not supported")
        XCTAssertEqual(refusal("Conv2D", ["dtype": ["class_name": "DTypePolicy", "config": ["name": "float16"]]]),
                       "dtype 'float16' is not supported")
        XCTAssertEqual(refusal("Conv2DTranspose", ["dilation_rate": [2, 2]]), "dilation_rate '[2, 2]' is not supported")
        XCTAssertNil(refusal("Conv2DTranspose", ["dilation_rate": [1, 1], "output_padding": [1, 1], "groups": 1]))
        XCTAssertEqual(refusal("ZeroPadding2D", ["data_format": "channels_first"]), "data_format 'channels_first' is not supported")
        // Keras 2's spellings.
        XCTAssertNil(refusal("LeakyReLU", ["alpha": 0.1, "dtype": "float32"]))
        XCTAssertNil(refusal("Dense", ["activity_regularizer": NSNull(), "units": 3]))
        XCTAssertNil(refusal("DepthwiseConv2D", ["groups": 1, "depth_multiplier": 1]))
    }
}

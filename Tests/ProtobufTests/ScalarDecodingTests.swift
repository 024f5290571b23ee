import CProtobufC
import CoreMLSchema
import Protobuf
import XCTest

/// Singular scalars of every kind the schema uses, nested messages, oneofs,
/// repeated strings and messages.
final class ScalarDecodingTests: XCTestCase {
    /// The test encoder writes the canonical varints the wire format defines.
    func testEncoderWritesCanonicalVarints() {
        let cases: [(UInt64, [UInt8])] = [
            (0, [0x00]), (1, [0x01]), (127, [0x7F]), (128, [0x80, 0x01]), (300, [0xAC, 0x02]),
            (UInt64(bitPattern: -1), [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
        ]
        for (value, bytes) in cases {
            XCTAssertEqual(Wire.varintBytes(value), bytes, "\(value)")
        }
    }

    func testUInt64Fields() throws {
        let cases: [(wire: [UInt8], value: UInt64)] = [
            ([0x00], 0), ([0x7F], 127), ([0x80, 0x01], 128), ([0xAC, 0x02], 300),
            ([0xFF, 0xFF, 0xFF, 0xFF, 0x0F], 0xFFFF_FFFF),
            ([0x80, 0x80, 0x80, 0x80, 0x10], 1 << 32),
            ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], .max),
            // A non-canonical (zero-padded) encoding still means the same number.
            ([0x85, 0x80, 0x80, 0x00], 5),
        ]
        for (wire, value) in cases {
            // outputChannels = 1, kernelChannels = 2 (same value), nGroups = 10.
            let bytes = [0x08] + wire + [0x10] + wire + [0x50] + wire
            let conv = try decode(ConvParams.self, Descriptors.convolution, bytes).root
            XCTAssertEqual(conv.outputchannels, value, "\(wire)")
            XCTAssertEqual(conv.kernelchannels, value, "\(wire)")
            XCTAssertEqual(conv.ngroups, value, "\(wire)")
        }
    }

    func testInt64FieldsIncludingNegativeTenByteVarints() throws {
        let cases: [(wire: [UInt8], value: Int64)] = [
            ([0x00], 0), ([0x01], 1), ([0xAC, 0x02], 300),
            ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], -1),
            ([0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], -2),
            ([0x80, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], -256),
            ([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], .min),
            ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], .max),
        ]
        for (wire, value) in cases {
            XCTAssertEqual(Wire.varintBytes(UInt64(bitPattern: value)), wire, "encoder, \(value)")
            // ImageFeatureType: width = 1, height = 2 (int64).
            let image = try decode(ImageType.self, Descriptors.imageType, [0x08] + wire + [0x10] + wire).root
            XCTAssertEqual(image.width, value, "\(wire)")
            XCTAssertEqual(image.height, value, "\(wire)")
        }
    }

    func testInt32FieldTruncatesLikeProtobuf() throws {
        let cases: [(Int64, Int32)] = [(4, 4), (-1, -1), (Int64(Int32.max), .max), (Int64(Int32.min), .min), ((1 << 32) + 5, 5)]
        for (encoded, expected) in cases {
            let model = try decode(MLModel.self, Descriptors.model, Wire { $0.int(1, encoded) }.bytes).root
            XCTAssertEqual(model.specificationversion, expected, "\(encoded)")
        }
    }

    func testFloatFieldsKeepBitPatterns() throws {
        let values: [Float] = [0, -0.0, 1.5, -3.25, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
                               Float(bitPattern: 0x7FC0_1234), Float(bitPattern: 0xFF80_0001)]
        for value in values {
            // ClipLayerParams: minVal = 1, maxVal = 2 (float).
            let bytes = Wire { $0.float(1, value); $0.float(2, -value) }.bytes
            let clip = try decode(ClipParams.self, Descriptors.clip, bytes).root
            XCTAssertEqual(clip.minval.bitPattern, value.bitPattern, "\(value)")
            XCTAssertEqual(clip.maxval.bitPattern, (-value).bitPattern, "\(value)")
        }
    }

    func testBoolFieldsNormalizeToOne() throws {
        let cases: [(UInt64, Int32)] = [(0, 0), (1, 1), (2, 1), (0x80, 1), (1 << 40, 1), (.max, 1)]
        for (encoded, expected) in cases {
            // isDeconvolution = 60, hasBias = 70.
            let conv = try decode(ConvParams.self, Descriptors.convolution, Wire { $0.uint(60, encoded); $0.uint(70, encoded) }.bytes).root
            XCTAssertEqual(conv.isdeconvolution, expected, "\(encoded)")
            XCTAssertEqual(conv.hasbias, expected, "\(encoded)")
        }
    }

    func testEnumFieldsIncludingUnknownValues() throws {
        for value: UInt32 in [0, 10, 20, 30, 99, 65568] {
            let image = try decode(ImageType.self, Descriptors.imageType, Wire { $0.uint(3, UInt64(value)) }.bytes).root
            XCTAssertEqual(image.colorspace.rawValue, value)
        }
        let pooling = try decode(CoreML__Specification__PoolingLayerParams.self, Descriptors.pooling,
                                 Wire { $0.uint(1, 2) }.bytes).root
        XCTAssertEqual(pooling.type, CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_TYPE__L2)
    }

    func testLastValueOfASingularFieldWins() throws {
        let conv = try decode(ConvParams.self, Descriptors.convolution, Wire { $0.uint(1, 3); $0.uint(1, 7) }.bytes).root
        XCTAssertEqual(conv.outputchannels, 7)
    }

    func testAbsentFieldsKeepGeneratedDefaults() throws {
        let layer = try decode(Layer.self, Descriptors.layer, []).root
        XCTAssertEqual(CArrays.string(layer.name), "")
        XCTAssertEqual(layer.n_input, 0)
        XCTAssertNil(layer.input)
        XCTAssertEqual(layer.layer_case.rawValue, 0)
        let model = try decode(MLModel.self, Descriptors.model, []).root
        XCTAssertNil(model.description)
        XCTAssertEqual(model.type_case.rawValue, 0)
    }

    func testStringsAreCopiedAndNulTerminated() throws {
        let cases = ["", "conv1", "naïve ✓ 层", String(repeating: "x", count: 300)]
        for name in cases {
            let result = try decode(Layer.self, Descriptors.layer, Wire { $0.string(1, name) }.bytes)
            XCTAssertEqual(CArrays.string(result.root.name), name)
            XCTAssertFalse(result.input.contains(result.root.name), "strings are copied, not borrowed")
        }
    }

    func testBytesPointIntoTheInput() throws {
        let payload: [UInt8] = [0x00, 0x3C, 0xFF, 0x7B, 0x01]
        let result = try decode(WeightParams.self, Descriptors.weightParams, Wire { $0.lengthDelimited(2, payload) }.bytes)
        let data = result.root.float16value
        XCTAssertEqual(data.len, payload.count)
        XCTAssertEqual(Array(UnsafeBufferPointer(start: data.data, count: data.len)), payload)
        XCTAssertEqual(UnsafeRawPointer(data.data), result.input.address(2))

        let empty = try decode(WeightParams.self, Descriptors.weightParams, Wire { $0.lengthDelimited(2, []) }.bytes).root
        XCTAssertEqual(empty.float16value.len, 0)
        XCTAssertNil(empty.float16value.data)
    }

    func testNestedMessagesAndRepeatedMessagesAndStrings() throws {
        let descriptionBytes = Wire { description in
                description.message(1) { input in
                    input.string(1, "data")
                    input.string(2, "an image")
                    input.message(3) { type in
                        type.message(4) { image in
                            image.int(1, 227)
                            image.int(2, 200)
                            image.uint(3, 30)
                        }
                    }
                }
                description.message(1) { input in
                    input.string(1, "extra")
                    input.message(3) { type in
                        type.message(5) { array in
                            array.packedVarints(1, [3, 224, 224])
                            array.uint(2, 65568)
                        }
                        type.bool(1000, true)
                    }
                }
                description.message(10) { output in output.string(1, "prob") }
                description.string(11, "classLabel")
                description.string(12, "classLabelProbs")
                description.message(100) { metadata in
                    metadata.string(1, "short")
                    metadata.string(3, "author")
                    metadata.message(100) { $0.string(1, "k1"); $0.string(2, "v1") }
                    metadata.message(100) { $0.string(1, "k2"); $0.string(2, "v2") }
                }
        }.bytes
        let bytes = Wire { $0.int(1, 4); $0.lengthDelimited(2, descriptionBytes) }.bytes
        let result = try decode(MLModel.self, Descriptors.model, bytes)
        let model = result.root
        XCTAssertEqual(model.specificationversion, 4)
        let description = try XCTUnwrap(model.description).pointee
        XCTAssertEqual(description.n_input, 2)
        let inputs = CArrays.array(description.input, description.n_input).map { $0!.pointee }
        XCTAssertEqual(inputs.map { CArrays.string($0.name) }, ["data", "extra"])
        XCTAssertEqual(CArrays.string(inputs[0].shortdescription), "an image")

        let first = try XCTUnwrap(inputs[0].type).pointee
        XCTAssertEqual(first.type_case.rawValue, 4)
        let image = try XCTUnwrap(first.imagetype).pointee
        XCTAssertEqual([image.width, image.height], [227, 200])
        XCTAssertEqual(image.colorspace, CORE_ML__SPECIFICATION__IMAGE_FEATURE_TYPE__COLOR_SPACE__BGR)

        let second = try XCTUnwrap(inputs[1].type).pointee
        XCTAssertEqual(second.type_case.rawValue, 5)
        XCTAssertEqual(second.isoptional, 1)
        let array = try XCTUnwrap(second.multiarraytype).pointee
        XCTAssertEqual(CArrays.array(array.shape, array.n_shape), [3, 224, 224])
        XCTAssertEqual(array.datatype, CORE_ML__SPECIFICATION__ARRAY_FEATURE_TYPE__ARRAY_DATA_TYPE__FLOAT32)

        XCTAssertEqual(description.n_output, 1)
        XCTAssertEqual(CArrays.string(description.output[0]!.pointee.name), "prob")
        XCTAssertEqual(CArrays.string(description.predictedfeaturename), "classLabel")
        XCTAssertEqual(CArrays.string(description.predictedprobabilitiesname), "classLabelProbs")

        let metadata = try XCTUnwrap(description.metadata).pointee
        XCTAssertEqual(CArrays.string(metadata.shortdescription), "short")
        XCTAssertEqual(CArrays.string(metadata.author), "author")
        XCTAssertEqual(CArrays.string(metadata.license), "")
        let pairs = CArrays.array(metadata.userdefined, metadata.n_userdefined).map {
            (CArrays.string($0!.pointee.key), CArrays.string($0!.pointee.value))
        }
        XCTAssertEqual(pairs.map(\.0), ["k1", "k2"])
        XCTAssertEqual(pairs.map(\.1), ["v1", "v2"])

        // Each message records where its encoding starts: the description's
        // payload begins after the specificationVersion field (2 bytes) and
        // its own tag and length.
        let descriptionPointer = UnsafeRawPointer(model.description!)
        XCTAssertEqual(result.decoded.offset(of: descriptionPointer), 2 + 1 + Wire.varintBytes(UInt64(descriptionBytes.count)).count)
        XCTAssertEqual(result.decoded.offset(of: UnsafeRawPointer(result.decoded.root)), 0)
    }

    func testLayerOneofCaseIsTheFieldNumber() throws {
        let bytes = Wire { layer in
            layer.string(1, "conv1")
            layer.string(2, "data")
            layer.string(2, "")
            layer.string(2, "other input")
            layer.string(3, "conv1")
            layer.message(100) { conv in
                conv.uint(1, 8)
                conv.uint(2, 3)
                conv.packedVarints(20, [7, 7])
                conv.message(51) { $0.uint(1, 1) }
            }
        }.bytes
        let layer = try decode(Layer.self, Descriptors.layer, bytes).root
        XCTAssertEqual(CArrays.string(layer.name), "conv1")
        XCTAssertEqual(CArrays.strings(layer.input, layer.n_input), ["data", "", "other input"])
        XCTAssertEqual(CArrays.strings(layer.output, layer.n_output), ["conv1"])
        XCTAssertEqual(layer.layer_case, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CONVOLUTION)
        XCTAssertEqual(layer.layer_case.rawValue, 100)
        let conv = try XCTUnwrap(layer.convolution).pointee
        XCTAssertEqual(conv.outputchannels, 8)
        XCTAssertEqual(conv.kernelchannels, 3)
        XCTAssertEqual(CArrays.array(conv.kernelsize, conv.n_kernelsize), [7, 7])
        XCTAssertEqual(conv.convolution_padding_type_case.rawValue, 51)
        XCTAssertEqual(try XCTUnwrap(conv.same).pointee.asymmetrymode,
                       CORE_ML__SPECIFICATION__SAME_PADDING__SAME_PADDING_MODE__TOP_LEFT_HEAVY)
    }

    func testOneofCasesTableDriven() throws {
        // (field number in NeuralNetworkLayer, payload) -> layer_case == field number, member non-nil.
        let cases: [(UInt64, [UInt8])] = [
            (100, []), (120, Wire { $0.uint(1, 1) }.bytes), (130, Wire { $0.message(10) { _ in } }.bytes),
            (140, Wire { $0.uint(1, 4) }.bytes), (175, []), (230, Wire { $0.float(1, 2) }.bytes), (660, Wire { $0.float(2, 6) }.bytes),
        ]
        for (field, payload) in cases {
            let layer = try decode(Layer.self, Descriptors.layer, Wire { $0.lengthDelimited(field, payload) }.bytes).root
            XCTAssertEqual(UInt64(layer.layer_case.rawValue), field)
            XCTAssertNotNil(layer.convolution, "union member for \(field)")  // every member shares the union's storage
        }
    }

    func testLaterOneofMemberReplacesEarlierOne() throws {
        let bytes = Wire { layer in
            layer.message(100) { $0.uint(1, 8) }
            layer.message(120) { $0.uint(1, 1) }
        }.bytes
        let layer = try decode(Layer.self, Descriptors.layer, bytes).root
        XCTAssertEqual(layer.layer_case, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_POOLING)
        XCTAssertEqual(try XCTUnwrap(layer.pooling).pointee.type, CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_TYPE__AVERAGE)
    }

    func testModelOneofAndEmptyMessages() throws {
        let bytes = Wire { model in
            model.message(500) { network in
                network.message(1) { layer in
                    layer.string(1, "relu")
                    layer.message(130) { activation in activation.message(10) { _ in } }
                }
                network.message(1) { layer in
                    layer.string(1, "soft")
                    layer.message(175) { _ in }
                }
            }
        }.bytes
        let model = try decode(MLModel.self, Descriptors.model, bytes).root
        XCTAssertEqual(model.type_case, CORE_ML__SPECIFICATION__MODEL__TYPE_NEURAL_NETWORK)
        let network = try XCTUnwrap(model.neuralnetwork).pointee
        XCTAssertEqual(network.n_layers, 2)
        let relu = network.layers[0]!.pointee
        XCTAssertEqual(CArrays.string(relu.name), "relu")
        let activation = try XCTUnwrap(relu.activation).pointee
        XCTAssertEqual(activation.nonlinearity_type_case, CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_RE_LU)
        XCTAssertNotNil(activation.relu)
        let soft = network.layers[1]!.pointee
        XCTAssertEqual(soft.layer_case, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SOFTMAX)
        XCTAssertNotNil(soft.softmax)
    }

    func testUnknownFieldsOfEveryWireTypeAreSkipped() throws {
        let bytes = Wire { weights in
            weights.uint(3, 150)                                  // varint
            weights.tag(4, WT.fixed64); weights.fixed64(.max)     // fixed64
            weights.packedFloats(1, [1, 2])
            weights.lengthDelimited(5, [0x0A, 0xFF, 0x01])        // length-delimited (bytes that are not a valid message)
            weights.tag(6, WT.fixed32); weights.fixed32(0xDEAD_BEEF)  // fixed32
            weights.uint(1000, 1)                                 // multi-byte tag
            weights.uint(0x1FFF_FFFF, UInt64.max)                 // largest field number, 10-byte value
            weights.lengthDelimited(2, [9, 8])
        }.bytes
        let decoded = try decode(WeightParams.self, Descriptors.weightParams, bytes).root
        XCTAssertEqual(CArrays.array(decoded.floatvalue, decoded.n_floatvalue), [1, 2])
        XCTAssertEqual(Array(UnsafeBufferPointer(start: decoded.float16value.data, count: decoded.float16value.len)), [9, 8])
    }

    func testUnknownFieldsInsideAnEmptyMessageAreSkipped() throws {
        // ActivationReLU has no fields at all.
        let relu = Wire {
            $0.uint(1, 5)
            $0.tag(2, WT.fixed64); $0.fixed64(1)
            $0.lengthDelimited(3, [1, 2, 3])
            $0.tag(4, WT.fixed32); $0.fixed32(1)
        }.bytes
        let activation = try decode(CoreML__Specification__ActivationParams.self, Descriptors.activation,
                                    Wire { $0.lengthDelimited(10, relu) }.bytes).root
        XCTAssertEqual(activation.nonlinearity_type_case.rawValue, 10)
        XCTAssertNotNil(activation.relu)
    }

    func testDecodeErrorDescription() {
        let error = DecodeError("bad thing", offset: 12, fieldPath: ["description", "input[0]", "name"])
        XCTAssertEqual(error.description, "byte 12: bad thing (in description.input[0].name)")
        XCTAssertEqual(DecodeError("bad", offset: 0).description, "byte 0: bad")
    }
}

/// Protobuf's rule for a non-repeated message field that appears more than
/// once: the occurrences merge (protobuf-c's own unpacker does this too).
final class MessageMergeTests: XCTestCase {
    func testRepeatedOccurrencesOfASingularMessageFieldMerge() throws {
        let bytes = Wire { model in
            model.message(2) { $0.message(1) { $0.string(1, "a") }; $0.string(11, "first") }
            model.message(2) { $0.string(12, "probs") }
        }.bytes
        // protobuf-c's reading of the same bytes.
        let unpacked = try XCTUnwrap(bytes.withUnsafeBufferPointer {
            protobuf_c_message_unpack(Descriptors.model, nil, $0.count, $0.baseAddress)
        })
        defer { protobuf_c_message_free_unpacked(unpacked, nil) }
        let reference = UnsafeRawPointer(unpacked).load(as: MLModel.self).description!.pointee
        XCTAssertEqual(reference.n_input, 1)
        XCTAssertEqual(CArrays.string(reference.predictedprobabilitiesname), "probs")

        let description = try XCTUnwrap(decode(MLModel.self, Descriptors.model, bytes).root.description).pointee
        XCTAssertEqual(CArrays.string(description.predictedprobabilitiesname), "probs")
        XCTAssertEqual(description.n_input, 1, "the first part's repeated field survives the merge")
        XCTAssertEqual(CArrays.string(description.predictedfeaturename), "first")
    }
}

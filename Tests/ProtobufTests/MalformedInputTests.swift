import CProtobufC
import CoreMLSchema
import Protobuf
import XCTest

/// Malformed inputs: each must be a `DecodeError` at the exact byte, with a
/// message that says what is wrong and the path of fields leading there.
final class MalformedInputTests: XCTestCase {
    struct Case {
        let name: String
        let descriptor: UnsafePointer<ProtobufCMessageDescriptor>
        let bytes: [UInt8]
        var options = DecodeOptions()
        let offset: Int
        let message: String
        let path: [String]
    }

    /// Decodes every case as the message its descriptor names (the struct
    /// type only matters for the result, so a raw byte type is enough).
    func check(_ cases: [Case], file: StaticString = #filePath, line: UInt = #line) {
        for item in cases {
            guard let error = decodeError(UInt8.self, item.descriptor, item.bytes, options: item.options, file: file, line: line) else {
                XCTFail("\(item.name): no error", file: file, line: line)
                continue
            }
            XCTAssertEqual(error.offset, item.offset, "\(item.name): \(error)", file: file, line: line)
            XCTAssertTrue(error.message.contains(item.message), "\(item.name): '\(error.message)' lacks '\(item.message)'",
                          file: file, line: line)
            XCTAssertEqual(error.fieldPath, item.path, "\(item.name): \(error)", file: file, line: line)
        }
    }

    func testMalformedVarintsAndTags() {
        let weights = Descriptors.weightParams, conv = Descriptors.convolution
        check([
            Case(name: "truncated tag", descriptor: weights, bytes: [0x80], offset: 0, message: "truncated varint", path: []),
            Case(name: "truncated tag after a field", descriptor: conv, bytes: [0x08, 0x01, 0xA2, 0x81], offset: 2,
                 message: "truncated varint", path: []),
            Case(name: "truncated value", descriptor: conv, bytes: [0x08, 0xFF, 0xFF], offset: 1,
                 message: "truncated varint", path: ["outputChannels"]),
            Case(name: "value missing entirely", descriptor: conv, bytes: [0x08], offset: 1,
                 message: "truncated varint", path: ["outputChannels"]),
            Case(name: "11-byte value", descriptor: conv, bytes: [0x08] + Array(repeating: 0x80, count: 10) + [0x00], offset: 1,
                 message: "varint longer than", path: ["outputChannels"]),
            Case(name: "10-byte value over 64 bits", descriptor: conv, bytes: [0x08] + Array(repeating: 0xFF, count: 9) + [0x02],
                 offset: 1, message: "varint longer than 64 bits", path: ["outputChannels"]),
            Case(name: "11-byte tag", descriptor: conv, bytes: [0x08, 0x01] + Array(repeating: 0x88, count: 10) + [0x00], offset: 2,
                 message: "varint longer than", path: []),
            Case(name: "unknown field with 11-byte value", descriptor: conv, bytes: [0x18] + Array(repeating: 0x80, count: 10) + [0x01],
                 offset: 1, message: "varint longer than", path: []),
            Case(name: "field number 0", descriptor: weights, bytes: [0x00, 0x01], offset: 0,
                 message: "invalid field number 0", path: []),
            Case(name: "field number 0, length-delimited, after a field", descriptor: conv, bytes: [0x08, 0x05, 0x02, 0x00], offset: 2,
                 message: "invalid field number 0", path: []),
            Case(name: "field number above 2^29 - 1", descriptor: conv, bytes: Wire.varintBytes(UInt64(1) << 32), offset: 0,
                 message: "invalid field number 536870912", path: []),
            Case(name: "wire type 6", descriptor: weights, bytes: [0x0E, 0x00], offset: 0,
                 message: "invalid wire type 6 for field 1", path: []),
            Case(name: "wire type 7 after a field", descriptor: conv, bytes: [0x08, 0x01, 0x17], offset: 2,
                 message: "invalid wire type 7 for field 2", path: []),
            Case(name: "wire type 7 on an unknown field", descriptor: conv, bytes: [0xFF, 0x07], offset: 0,
                 message: "invalid wire type 7 for field 127", path: []),
        ])
    }

    func testGroupsAreRejected() {
        // Groups are rejected at their tag, whether or not the field is known.
        let weights = Descriptors.weightParams, conv = Descriptors.convolution
        check([
            Case(name: "start group, unknown field", descriptor: weights, bytes: [0x7B, 0x08, 0x01, 0x7C], offset: 0,
                 message: "groups are not supported (field 15)", path: []),
            Case(name: "end group, unknown field", descriptor: weights, bytes: [0x7C], offset: 0,
                 message: "groups are not supported (field 15)", path: []),
            Case(name: "start group, field with 2-byte tag", descriptor: conv, bytes: [0x08, 0x01, 0xFB, 0x7C], offset: 2,
                 message: "groups are not supported (field 1999)", path: []),
            Case(name: "start group, known field", descriptor: conv, bytes: [0x0B, 0x0C], offset: 0,
                 message: "groups are not supported (field 1)", path: []),
            Case(name: "end group, known field", descriptor: weights, bytes: [0x0D, 0, 0, 0, 0, 0x0C], offset: 5,
                 message: "groups are not supported (field 1)", path: []),
            Case(name: "group inside an empty message", descriptor: Descriptors.activation, bytes: [0x52, 0x02, 0x0B, 0x0C], offset: 2,
                 message: "groups are not supported (field 1)", path: ["ReLU"]),
        ])
    }

    func testLengthsPastTheEnd() {
        let weights = Descriptors.weightParams
        check([
            Case(name: "bytes field", descriptor: weights, bytes: [0x12, 0x05, 0x01, 0x02], offset: 1,
                 message: "length 5 runs past the end of its message (2 bytes remain)", path: ["float16Value"]),
            Case(name: "packed floats", descriptor: weights, bytes: [0x0A, 0x08, 0, 0, 0x80, 0x3F], offset: 1,
                 message: "runs past the end", path: ["floatValue"]),
            Case(name: "unknown field", descriptor: weights, bytes: [0x2A, 0x09, 0x00], offset: 1,
                 message: "length 9 runs past the end of its message (1 bytes remain)", path: []),
            Case(name: "missing length", descriptor: weights, bytes: [0x12], offset: 1, message: "truncated varint", path: ["float16Value"]),
            Case(name: "huge length", descriptor: weights, bytes: [0x12] + Wire.varintBytes(.max), offset: 1,
                 message: "length 18446744073709551615 runs past the end", path: ["float16Value"]),
            Case(name: "string", descriptor: Descriptors.layer, bytes: [0x0A, 0x01, 0x61, 0x12, 0x04, 0x61], offset: 4,
                 message: "length 4 runs past the end of its message (1 bytes remain)", path: ["input"]),
            // Model { description { input: length 5, but the description ends after 0 more bytes } } + trailing bytes:
            // a nested length is checked against its own message's end, not the input's.
            Case(name: "nested, bounded by the enclosing message", descriptor: Descriptors.model,
                 bytes: [0x12, 0x02, 0x0A, 0x05, 0x08, 0x01, 0x08, 0x01, 0x08, 0x01], offset: 3,
                 message: "length 5 runs past the end of its message (0 bytes remain)", path: ["description", "input"]),
        ])
    }

    func testWireTypesThatDoNotFitTheField() {
        check([
            Case(name: "float field as varint", descriptor: Descriptors.weightParams, bytes: [0x08, 0x00], offset: 0,
                 message: "wire type 0 does not fit float field floatValue (1), which needs wire type 5", path: ["floatValue"]),
            Case(name: "float field as fixed64", descriptor: Descriptors.weightParams, bytes: [0x09, 0, 0, 0, 0, 0, 0, 0, 0], offset: 0,
                 message: "wire type 1 does not fit float field floatValue (1)", path: ["floatValue"]),
            Case(name: "singular float as length-delimited", descriptor: Descriptors.clip, bytes: [0x0D, 0, 0, 0, 0, 0x12, 0x00], offset: 5,
                 message: "wire type 2 does not fit float field maxVal (2), which needs wire type 5", path: ["maxVal"]),
            Case(name: "singular uint64 as length-delimited", descriptor: Descriptors.convolution, bytes: [0x0A, 0x01, 0x05], offset: 0,
                 message: "wire type 2 does not fit uint64 field outputChannels (1), which needs wire type 0", path: ["outputChannels"]),
            Case(name: "repeated uint64 as fixed32", descriptor: Descriptors.convolution, bytes: [0xA5, 0x01, 1, 0, 0, 0], offset: 0,
                 message: "wire type 5 does not fit uint64 field kernelSize (20), which needs wire type 0", path: ["kernelSize"]),
            Case(name: "string as varint", descriptor: Descriptors.layer, bytes: [0x08, 0x01], offset: 0,
                 message: "wire type 0 does not fit string field name (1), which needs wire type 2", path: ["name"]),
            Case(name: "repeated string as fixed32", descriptor: Descriptors.layer, bytes: [0x15, 1, 2, 3, 4], offset: 0,
                 message: "does not fit string field input (2)", path: ["input"]),
            Case(name: "message as fixed32", descriptor: Descriptors.model, bytes: [0x08, 0x01, 0x15, 0, 0, 0, 0], offset: 2,
                 message: "wire type 5 does not fit message field description (2), which needs wire type 2", path: ["description"]),
            Case(name: "bytes as varint", descriptor: Descriptors.weightParams, bytes: [0x10, 0x01], offset: 0,
                 message: "does not fit bytes field float16Value (2)", path: ["float16Value"]),
            Case(name: "enum as fixed64", descriptor: Descriptors.imageType, bytes: [0x19, 0, 0, 0, 0, 0, 0, 0, 0], offset: 0,
                 message: "wire type 1 does not fit enum field colorSpace (3)", path: ["colorSpace"]),
            Case(name: "bool as length-delimited", descriptor: Descriptors.featureType, bytes: [0xC2, 0x3E, 0x00], offset: 0,
                 message: "does not fit bool field isOptional (1000)", path: ["isOptional"]),
        ])
    }

    func testMalformedFixedWidthValues() {
        check([
            Case(name: "packed floats of 6 bytes", descriptor: Descriptors.weightParams, bytes: [0x0A, 0x06, 0, 0, 0x80, 0x3F, 0, 0], offset: 2,
                 message: "packed float payload of 6 bytes is not a multiple of 4", path: ["floatValue"]),
            Case(name: "second chunk of 3 bytes", descriptor: Descriptors.weightParams, bytes: [0x0A, 0x04, 0, 0, 0, 0, 0x0A, 0x03, 1, 2, 3],
                 offset: 8, message: "packed float payload of 3 bytes is not a multiple of 4", path: ["floatValue"]),
            Case(name: "truncated singular float", descriptor: Descriptors.clip, bytes: [0x0D, 0x00, 0x00, 0x80], offset: 1,
                 message: "truncated 4-byte value", path: ["minVal"]),
            Case(name: "truncated unpacked float", descriptor: Descriptors.weightParams, bytes: [0x0D, 0, 0, 0, 0, 0x0D, 0x00], offset: 6,
                 message: "truncated 4-byte value", path: ["floatValue"]),
            Case(name: "truncated unknown fixed32", descriptor: Descriptors.weightParams, bytes: [0x1D, 0x01], offset: 1,
                 message: "truncated 4-byte value", path: []),
            Case(name: "truncated unknown fixed64", descriptor: Descriptors.weightParams, bytes: [0x21, 1, 2, 3, 4, 5, 6, 7], offset: 1,
                 message: "truncated 8-byte value", path: []),
            Case(name: "packed varints ending mid-varint", descriptor: Descriptors.convolution, bytes: [0xA2, 0x01, 0x02, 0x03, 0x80],
                 offset: 4, message: "truncated varint at the end of a packed field", path: ["kernelSize"]),
            Case(name: "packed varint over 64 bits", descriptor: Descriptors.convolution,
                 bytes: [0xA2, 0x01, 0x0B] + Array(repeating: 0xFF, count: 10) + [0x01], offset: 3,
                 message: "varint longer than 64 bits", path: ["kernelSize[0]"]),
        ])
    }

    func testDecodeOptionDefaults() {
        let options = DecodeOptions()
        XCTAssertFalse(options.structureOnly)
        XCTAssertEqual(options.maxDepth, 64)
        XCTAssertNil(options.memoryBudget)
        XCTAssertTrue(DecodeOptions(structureOnly: true).structureOnly)
    }

    func testNestingDeeperThanMaxDepth() {
        // Model { description { input[0] { name: "x" } } }: FeatureDescription's payload starts at byte 4.
        let bytes: [UInt8] = [0x12, 0x05, 0x0A, 0x03, 0x0A, 0x01, 0x78]
        var depth2 = DecodeOptions()
        depth2.maxDepth = 2
        var depth1 = DecodeOptions()
        depth1.maxDepth = 1
        var depth0 = DecodeOptions()
        depth0.maxDepth = 0
        check([
            Case(name: "maxDepth 2", descriptor: Descriptors.model, bytes: bytes, options: depth2, offset: 4,
                 message: "messages nested deeper than 2 levels", path: ["description", "input[0]"]),
            Case(name: "maxDepth 1", descriptor: Descriptors.model, bytes: bytes, options: depth1, offset: 2,
                 message: "messages nested deeper than 1 levels", path: ["description"]),
            Case(name: "maxDepth 0", descriptor: Descriptors.model, bytes: bytes, options: depth0, offset: 0,
                 message: "messages nested deeper than 0 levels", path: []),
        ])
        var depth3 = DecodeOptions()
        depth3.maxDepth = 3
        XCTAssertNoThrow(try decode(MLModel.self, Descriptors.model, bytes, options: depth3))
    }

    func testDeepestRealChainDecodesWithTheDefaultDepthAndFailsOneLevelShort() throws {
        // Model > NeuralNetwork > Layer > Convolution > ValidPadding > BorderAmounts > EdgeSizes: depth 6.
        let bytes = Wire { model in
            model.message(500) { network in
                network.message(1) { layer in
                    layer.message(100) { conv in
                        conv.message(50) { valid in
                            valid.message(1) { amounts in
                                amounts.message(10) { $0.uint(1, 1) }
                            }
                        }
                    }
                }
            }
        }.bytes
        let model = try decode(MLModel.self, Descriptors.model, bytes).root
        let edges = model.neuralnetwork.pointee.layers[0]!.pointee.convolution.pointee.valid.pointee.paddingamounts.pointee.borderamounts[0]!
        XCTAssertEqual(edges.pointee.startedgesize, 1)

        var options = DecodeOptions()
        options.maxDepth = 6
        let error = decodeError(MLModel.self, Descriptors.model, bytes, options: options)
        XCTAssertEqual(error?.fieldPath, ["neuralNetwork", "layers[0]", "convolution", "valid", "paddingAmounts", "borderAmounts[0]"])
        XCTAssertEqual(error?.offset, bytes.count - 2)
        options.maxDepth = 7
        XCTAssertNoThrow(try decode(MLModel.self, Descriptors.model, bytes, options: options))
    }

    func testMemoryBudget() {
        let layerSize = (MemoryLayout<Layer>.size + 7) & ~7
        var rootOnly = DecodeOptions()
        rootOnly.memoryBudget = layerSize + 64
        var nothing = DecodeOptions()
        nothing.memoryBudget = 8
        // 100-byte name: tag at 0, length at 1, payload from 2; needs 101 bytes.
        let longName = Wire { $0.string(1, String(repeating: "n", count: 100)) }.bytes
        var weightsOnly = DecodeOptions()
        weightsOnly.memoryBudget = (MemoryLayout<WeightParams>.size + 7) & ~7
        // Two chunks always need an arena copy; one aligned chunk (tag, 2-byte length, payload at 3) needs none.
        let floats = Wire { $0.packedFloats(1, Array(repeating: 1, count: 64)) }.bytes
        check([
            Case(name: "string over budget", descriptor: Descriptors.layer, bytes: longName, options: rootOnly, offset: 2,
                 message: "decoding needs more than", path: ["name"]),
            Case(name: "root over budget", descriptor: Descriptors.layer, bytes: longName, options: nothing, offset: 0,
                 message: "decoding needs more than", path: []),
            Case(name: "split float copy over budget", descriptor: Descriptors.weightParams,
                 bytes: floats + Wire { $0.packedFloats(1, [2]) }.bytes, options: weightsOnly, offset: 0,
                 message: "decoding needs more than", path: []),
        ])
        // The same inputs fit a budget that allows them.
        var enough = DecodeOptions()
        enough.memoryBudget = layerSize + 104
        XCTAssertNoThrow(try decode(Layer.self, Descriptors.layer, longName, options: enough))
        // Zero-copy floats cost nothing beyond the struct.
        XCTAssertNoThrow(try decode(WeightParams.self, Descriptors.weightParams, floats, shift: 1, options: weightsOnly))
    }

    func testFieldPathOfAnErrorDeepInsideRepeatedMessages() {
        // Model { description { input[0] ok, input[1] { type { imageType { width: truncated varint } } } } }
        let bytes = Wire { model in
            model.int(1, 1)
            model.message(2) { description in
                description.message(1) { $0.string(1, "ok") }
                description.message(1) { input in
                    input.string(1, "broken")
                    input.message(3) { type in
                        type.message(4) { image in
                            image.uint(3, 20)
                            image.raw([0x08, 0x80])
                        }
                    }
                }
            }
        }.bytes
        guard let error = decodeError(MLModel.self, Descriptors.model, bytes) else { return }
        XCTAssertEqual(error.fieldPath, ["description", "input[1]", "type", "imageType", "width"])
        XCTAssertEqual(error.offset, bytes.count - 1, "the truncated varint is the last byte")
        XCTAssertEqual(error.message, "truncated varint")
        XCTAssertEqual(error.description, "byte \(bytes.count - 1): truncated varint (in description.input[1].type.imageType.width)")
    }

    func testFieldPathIndexesRepeatedStringsAndMessagesInLayers() {
        // NeuralNetwork { layers[0] ok, layers[1] { convolution { weights { floatValue: 5 bytes } } } }
        let bytes = Wire { network in
            network.message(1) { $0.string(1, "a") }
            network.message(1) { layer in
                layer.string(1, "b")
                layer.message(100) { conv in
                    conv.message(90) { $0.lengthDelimited(1, [1, 2, 3, 4, 5]) }
                }
            }
        }.bytes
        let descriptor = descriptor(CoreML__Specification__NeuralNetwork.self, core_ml__specification__neural_network__init)
        guard let error = decodeError(CoreML__Specification__NeuralNetwork.self, descriptor, bytes) else { return }
        XCTAssertEqual(error.fieldPath, ["layers[1]", "convolution", "weights", "floatValue"])
        XCTAssertEqual(error.offset, bytes.count - 5)
        XCTAssertTrue(error.message.contains("not a multiple of 4"))
    }
}

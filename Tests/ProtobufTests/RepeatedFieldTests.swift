import CProtobufC
import CoreMLSchema
import Protobuf
import XCTest

/// Packed and unpacked repeated numbers, zero-copy float arrays, and
/// structure-only decoding.
final class RepeatedFieldTests: XCTestCase {
    let values: [Float] = [1, -2.5, .pi, 0, -0.0, .infinity, 1e-30, 65504]

    /// WeightParams { floatValue: packed [values] }: tag 0x0A, a 1-byte
    /// length, so the payload starts at byte 2 of the input.
    var packedBytes: [UInt8] { Wire { $0.packedFloats(1, values) }.bytes }

    func testAlignedPackedFloatsPointIntoTheInput() throws {
        // The buffer is 16-aligned; with shift 2 the payload (byte 2) sits at a multiple of 4.
        for shift in [2, 6, 14] {
            let result = try decode(WeightParams.self, Descriptors.weightParams, packedBytes, shift: shift)
            XCTAssertEqual(Int(bitPattern: result.input.address(2)) % 4, 0)
            XCTAssertEqual(result.root.n_floatvalue, values.count)
            XCTAssertEqual(UnsafeRawPointer(result.root.floatvalue), result.input.address(2), "shift \(shift): no copy")
            XCTAssertEqual(floatBits(result.root.floatvalue, result.root.n_floatvalue), values.map(\.bitPattern))
        }
    }

    func testUnalignedPackedFloatsAreCopied() throws {
        for shift in [0, 1, 3, 5, 7] {
            let result = try decode(WeightParams.self, Descriptors.weightParams, packedBytes, shift: shift)
            XCTAssertNotEqual(Int(bitPattern: result.input.address(2)) % 4, 0)
            XCTAssertEqual(result.root.n_floatvalue, values.count)
            let pointer = try XCTUnwrap(result.root.floatvalue)
            XCTAssertFalse(result.input.contains(pointer), "shift \(shift): an unaligned payload must be copied")
            XCTAssertEqual(Int(bitPattern: pointer) % MemoryLayout<Float>.alignment, 0)
            XCTAssertEqual(floatBits(pointer, result.root.n_floatvalue), values.map(\.bitPattern))
        }
    }

    func testZeroCopyPayloadOutlivesTheCallersReferenceToTheInput() throws {
        // The decoded result owns the input through its arena.
        let decoded: Decoded<WeightParams> = try {
            let input = InputBuffer(packedBytes, shift: 2)
            return try BinaryDecoder.decode(WeightParams.self, descriptor: Descriptors.weightParams, bytes: input.bytes, owner: input)
        }()
        XCTAssertEqual(floatBits(decoded.root.pointee.floatvalue, decoded.root.pointee.n_floatvalue), values.map(\.bitPattern))
    }

    func testPackedFloatsInSeveralChunksConcatenateInOrder() throws {
        let chunkings: [[[Float]]] = [
            [[1, 2], [3, 4, 5]],
            [[1], [2], [3], [4], [5]],
            [[], [1, 2, 3], [], [4, 5]],
        ]
        for chunks in chunkings {
            for shift in 0..<4 {
                let bytes = Wire { wire in for chunk in chunks { wire.packedFloats(1, chunk) } }.bytes
                let result = try decode(WeightParams.self, Descriptors.weightParams, bytes, shift: shift)
                XCTAssertEqual(CArrays.array(result.root.floatvalue, result.root.n_floatvalue), [1, 2, 3, 4, 5], "\(chunks)")
                XCTAssertFalse(result.input.contains(result.root.floatvalue), "split payloads are copied")
            }
        }
    }

    func testUnpackedFloatsAndMixedEncodings() throws {
        let unpacked = Wire { wire in for value in values { wire.float(1, value) } }.bytes
        let result = try decode(WeightParams.self, Descriptors.weightParams, unpacked, shift: 2)
        XCTAssertEqual(floatBits(result.root.floatvalue, result.root.n_floatvalue), values.map(\.bitPattern))
        XCTAssertFalse(result.input.contains(result.root.floatvalue))

        // Packed, then unpacked, then packed again: all in wire order.
        let mixed = Wire {
            $0.packedFloats(1, [1, 2])
            $0.float(1, 3)
            $0.lengthDelimited(2, [7])
            $0.packedFloats(1, [4])
            $0.float(1, 5)
        }.bytes
        let decoded = try decode(WeightParams.self, Descriptors.weightParams, mixed).root
        XCTAssertEqual(CArrays.array(decoded.floatvalue, decoded.n_floatvalue), [1, 2, 3, 4, 5])
    }

    func testEmptyPackedPayloadGivesNoValues() throws {
        let result = try decode(WeightParams.self, Descriptors.weightParams, Wire { $0.packedFloats(1, []) }.bytes)
        XCTAssertEqual(result.root.n_floatvalue, 0)
        XCTAssertNil(result.root.floatvalue)
        let conv = try decode(ConvParams.self, Descriptors.convolution, Wire { $0.packedVarints(20, []) }.bytes).root
        XCTAssertEqual(conv.n_kernelsize, 0)
        XCTAssertNil(conv.kernelsize)
    }

    func testPackedVarintsInSeveralChunksAndUnpacked() throws {
        let bytes = Wire {
            $0.packedVarints(20, [3, 300])
            $0.uint(20, 5)                       // one unpacked value in between
            $0.packedVarints(20, [.max, 0, 128])
            $0.packedVarints(30, [2, 2])         // stride
            $0.uint(40, 1)                       // dilationFactor, unpacked only
            $0.uint(40, 2)
            $0.packedVarints(100, [10, 20])      // outputShape
        }.bytes
        let conv = try decode(ConvParams.self, Descriptors.convolution, bytes).root
        XCTAssertEqual(CArrays.array(conv.kernelsize, conv.n_kernelsize), [3, 300, 5, .max, 0, 128])
        XCTAssertEqual(CArrays.array(conv.stride, conv.n_stride), [2, 2])
        XCTAssertEqual(CArrays.array(conv.dilationfactor, conv.n_dilationfactor), [1, 2])
        XCTAssertEqual(CArrays.array(conv.outputshape, conv.n_outputshape), [10, 20])
    }

    func testPackedSignedInt64s() throws {
        // ArrayFeatureType.shape is repeated int64; ReshapeLayerParams-style negatives are 10 bytes each.
        let shape: [Int64] = [-1, 3, Int64.min, Int64.max]
        let bytes = Wire { $0.packedVarints(1, shape.map { UInt64(bitPattern: $0) }) }.bytes
        let descriptor = descriptor(CoreML__Specification__ArrayFeatureType.self, core_ml__specification__array_feature_type__init)
        let array = try decode(CoreML__Specification__ArrayFeatureType.self, descriptor, bytes).root
        XCTAssertEqual(CArrays.array(array.shape, array.n_shape), shape)
    }

    func testRepeatedMessagesKeepOrder() throws {
        // BorderAmounts { borderAmounts: [EdgeSizes] } with one empty entry.
        let bytes = Wire {
            $0.message(10) { $0.uint(1, 1); $0.uint(2, 2) }
            $0.message(10) { _ in }
            $0.message(10) { $0.uint(2, 9) }
        }.bytes
        let descriptor = descriptor(CoreML__Specification__BorderAmounts.self, core_ml__specification__border_amounts__init)
        let border = try decode(CoreML__Specification__BorderAmounts.self, descriptor, bytes).root
        let edges = CArrays.array(border.borderamounts, border.n_borderamounts).map { ($0!.pointee.startedgesize, $0!.pointee.endedgesize) }
        XCTAssertEqual(edges.map(\.0), [1, 0, 0])
        XCTAssertEqual(edges.map(\.1), [2, 0, 9])
    }

    // MARK: structure-only

    func testStructureOnlyLeavesFloatPayloadsUnreadButKeepsCounts() throws {
        let options = DecodeOptions(structureOnly: true)
        let inputs: [(String, [UInt8])] = [
            ("one chunk", packedBytes),
            ("two chunks", Wire { $0.packedFloats(1, [1, 2, 3]); $0.packedFloats(1, [4, 5]) }.bytes),
        ]
        for (name, bytes) in inputs {
            for shift in 0..<4 {
                let weights = try decode(WeightParams.self, Descriptors.weightParams, bytes, shift: shift, options: options).root
                XCTAssertNil(weights.floatvalue, name)
                XCTAssertEqual(weights.n_floatvalue, name == "one chunk" ? values.count : 5, name)
            }
        }
    }

    func testStructureOnlyLeavesBytesUnreadButKeepsLength() throws {
        let bytes = Wire { $0.lengthDelimited(2, [1, 2, 3, 4, 5, 6]) }.bytes
        let weights = try decode(WeightParams.self, Descriptors.weightParams, bytes, options: DecodeOptions(structureOnly: true)).root
        XCTAssertNil(weights.float16value.data)
        XCTAssertEqual(weights.float16value.len, 6)
    }

    func testStructureOnlyStillDecodesStructure() throws {
        let bytes = Wire { layer in
            layer.string(1, "conv")
            layer.string(2, "in")
            layer.message(100) { conv in
                conv.uint(1, 2)
                conv.packedVarints(20, [3, 3])
                conv.message(90) { $0.packedFloats(1, Array(repeating: 0.5, count: 18)) }
                conv.message(91) { $0.lengthDelimited(2, [0, 0x3C, 0, 0x3C]) }
            }
        }.bytes
        let layer = try decode(Layer.self, Descriptors.layer, bytes, options: DecodeOptions(structureOnly: true)).root
        XCTAssertEqual(CArrays.string(layer.name), "conv")
        XCTAssertEqual(CArrays.strings(layer.input, layer.n_input), ["in"])
        let conv = try XCTUnwrap(layer.convolution).pointee
        XCTAssertEqual(conv.outputchannels, 2)
        XCTAssertEqual(CArrays.array(conv.kernelsize, conv.n_kernelsize), [3, 3], "varints are structure, not payload")
        let weights = try XCTUnwrap(conv.weights).pointee
        XCTAssertEqual(weights.n_floatvalue, 18)
        XCTAssertNil(weights.floatvalue)
        let bias = try XCTUnwrap(conv.bias).pointee
        XCTAssertEqual(bias.float16value.len, 4)
        XCTAssertNil(bias.float16value.data)
    }
}

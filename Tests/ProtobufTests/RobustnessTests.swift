import CProtobufC
import CoreMLSchema
import Protobuf
import XCTest

/// Every prefix and hundreds of seeded random mutations of a real encoded
/// model: decoding must succeed or throw `DecodeError`, never crash.
final class RobustnessTests: XCTestCase {
    /// A small seeded generator (SplitMix64), so failures reproduce.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    enum Outcome: Equatable { case decoded, failed(DecodeError) }

    /// Decodes `bytes` (as a model) and, on success, has protobuf-c walk the
    /// whole result, which touches every pointer and count the decoder wrote.
    func outcome(_ bytes: [UInt8], structureOnly: Bool = false) -> Outcome {
        let input = InputBuffer(bytes, shift: bytes.count % 4)
        do {
            let decoded = try BinaryDecoder.decode(MLModel.self, descriptor: Descriptors.model, bytes: input.bytes, owner: input,
                                                   options: DecodeOptions(structureOnly: structureOnly))
            if !structureOnly {
                let message = UnsafeRawPointer(decoded.root).assumingMemoryBound(to: ProtobufCMessage.self)
                _ = protobuf_c_message_get_packed_size(message)
            }
            return .decoded
        } catch {
            XCTAssertTrue((0...bytes.count).contains(error.offset), "offset \(error.offset) outside the input: \(error)")
            XCTAssertFalse(error.message.isEmpty)
            return .failed(error)
        }
    }

    /// Packs what the decoder made of `bytes`.
    func decodedAndRepacked(_ bytes: [UInt8]) -> [UInt8]? {
        let input = InputBuffer(bytes)
        guard let decoded = try? BinaryDecoder.decode(MLModel.self, descriptor: Descriptors.model, bytes: input.bytes, owner: input) else {
            return nil
        }
        return TestSpec.pack(UnsafeRawPointer(decoded.root).assumingMemoryBound(to: ProtobufCMessage.self))
    }

    /// Whether protobuf-c's own unpacker also accepts `bytes` and means the
    /// same by them. protobuf-c keeps unknown fields, which this decoder
    /// drops, so its result is repacked and decoded once more before comparing.
    func agreesWithProtobufC(_ bytes: [UInt8]) -> Bool {
        guard let ours = decodedAndRepacked(bytes) else { return false }
        let unpacked = bytes.withUnsafeBufferPointer { protobuf_c_message_unpack(Descriptors.model, nil, $0.count, $0.baseAddress) }
        guard let unpacked else { return false }
        defer { protobuf_c_message_free_unpacked(unpacked, nil) }
        return decodedAndRepacked(TestSpec.pack(unpacked)) == ours
    }

    func testTheValidModelDecodesAndRepacksToTheSameBytes() throws {
        let spec = TestSpec()
        let bytes = spec.packed()
        XCTAssertGreaterThan(bytes.count, 500)
        let result = try decode(MLModel.self, Descriptors.model, bytes)
        XCTAssertEqual(mismatches(result.root), [])
        let message = UnsafeRawPointer(result.decoded.root).assumingMemoryBound(to: ProtobufCMessage.self)
        XCTAssertEqual(TestSpec.pack(message), bytes, "protobuf-c packs the decoded structs back to the same bytes")
        XCTAssertEqual(mismatches(try decode(MLModel.self, Descriptors.model, bytes, options: DecodeOptions(structureOnly: true)).root,
                                  structureOnly: true), [])
    }

    func testEveryTruncationDecodesOrFailsCleanly() {
        let bytes = TestSpec().packed()
        var failures = 0
        for length in 0...bytes.count {
            let prefix = Array(bytes[..<length])
            if case .failed = outcome(prefix) { failures += 1 }
            _ = outcome(prefix, structureOnly: true)
        }
        XCTAssertEqual(outcome(bytes), .decoded)
        XCTAssertEqual(outcome([]), .decoded, "an empty input is an empty message")
        // Cutting inside a top-level field's payload is always an error; only
        // cuts at top-level field boundaries decode.
        XCTAssertGreaterThan(failures, bytes.count / 2)
    }

    func testSeededRandomMutationsDecodeOrFailCleanly() {
        let original = TestSpec().packed()
        var random = Random(state: 0x5EED)
        var decoded = 0, failed = 0
        for round in 0..<600 {
            var bytes = original
            // Mostly single-byte changes; every fifth round changes a few bytes.
            let changes = round % 5 == 4 ? 1 + random.below(4) : 1
            for _ in 0..<changes {
                let index = random.below(bytes.count)
                var value = UInt8(truncatingIfNeeded: random.next())
                if value == bytes[index] { value ^= 0x80 }
                bytes[index] = value
            }
            switch outcome(bytes) {
            case .decoded:
                decoded += 1
                XCTAssertEqual(agreesWithProtobufC(bytes), true, "round \(round)")
            case .failed:
                failed += 1
            }
            _ = outcome(bytes, structureOnly: true)
        }
        // Both outcomes occur: weight bytes can change freely, tags and lengths cannot.
        XCTAssertGreaterThan(decoded, 0)
        XCTAssertGreaterThan(failed, 0)
    }

    func testMutationsOfEveryByteToEachSpecialValue() {
        // Bytes that matter most to a parser: continuation bits, the largest
        // length byte, group and invalid wire types, zero.
        let original = TestSpec().packed()
        let specials: [UInt8] = [0x00, 0x7F, 0x80, 0xFF, 0x0B, 0x0E, 0x0F]
        for index in stride(from: 0, to: original.count, by: 3) {
            for value in specials where value != original[index] {
                var bytes = original
                bytes[index] = value
                _ = outcome(bytes)
            }
        }
    }
}

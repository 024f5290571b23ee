import CProtobufC
import CoreMLSchema
import Protobuf
import XCTest

// Test-only helpers: a tiny protobuf wire encoder, an input buffer whose
// alignment the test controls, descriptor look-ups, and decode/assert helpers.

/// Protobuf wire type numbers, as the tests write them.
enum WT {
    static let varint: UInt8 = 0
    static let fixed64: UInt8 = 1
    static let lengthDelimited: UInt8 = 2
    static let startGroup: UInt8 = 3
    static let endGroup: UInt8 = 4
    static let fixed32: UInt8 = 5
}

/// A minimal protobuf encoder: enough to write any message of the schema by hand.
struct Wire {
    var bytes: [UInt8] = []

    init() {}

    init(_ build: (inout Wire) -> Void) {
        build(&self)
    }

    static func varintBytes(_ value: UInt64) -> [UInt8] {
        var value = value
        var out: [UInt8] = []
        while value >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
        return out
    }

    mutating func raw(_ more: [UInt8]) { bytes += more }
    mutating func varint(_ value: UInt64) { bytes += Wire.varintBytes(value) }
    mutating func tag(_ field: UInt64, _ wireType: UInt8) { varint(field << 3 | UInt64(wireType)) }
    mutating func fixed32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func fixed64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }

    /// A varint field (uint, enum, bool).
    mutating func uint(_ field: UInt64, _ value: UInt64) {
        tag(field, WT.varint)
        varint(value)
    }

    /// An int32/int64 field: negative values are 10-byte two's complement varints.
    mutating func int(_ field: UInt64, _ value: Int64) { uint(field, UInt64(bitPattern: value)) }

    mutating func bool(_ field: UInt64, _ value: Bool) { uint(field, value ? 1 : 0) }

    /// A float field (wire type 5).
    mutating func float(_ field: UInt64, _ value: Float) {
        tag(field, WT.fixed32)
        fixed32(value.bitPattern)
    }

    mutating func lengthDelimited(_ field: UInt64, _ payload: [UInt8]) {
        tag(field, WT.lengthDelimited)
        varint(UInt64(payload.count))
        bytes += payload
    }

    mutating func string(_ field: UInt64, _ value: String) { lengthDelimited(field, Array(value.utf8)) }

    mutating func message(_ field: UInt64, _ build: (inout Wire) -> Void) {
        lengthDelimited(field, Wire(build).bytes)
    }

    mutating func packedFloats(_ field: UInt64, _ values: [Float]) { lengthDelimited(field, floatBytes(values)) }

    mutating func packedVarints(_ field: UInt64, _ values: [UInt64]) {
        lengthDelimited(field, values.flatMap(Wire.varintBytes))
    }
}

/// Little-endian bytes of `values`.
func floatBytes(_ values: [Float]) -> [UInt8] {
    values.flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } }
}

/// Input bytes at a chosen distance from a 16-byte boundary, so a test knows
/// whether a payload inside is 4-byte aligned. Owns its memory.
final class InputBuffer: @unchecked Sendable {
    private let storage: UnsafeMutableRawPointer
    let bytes: UnsafeRawBufferPointer

    init(_ content: [UInt8], shift: Int = 0) {
        // Exactly as long as needed, so a sanitizer would catch any read past the end.
        let length = max(content.count + shift, 1)
        let storage = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0xEE, count: length)
        content.withUnsafeBytes { source in
            if let base = source.baseAddress { (storage + shift).copyMemory(from: base, byteCount: content.count) }
        }
        self.storage = storage
        bytes = UnsafeRawBufferPointer(start: storage + shift, count: content.count)
    }

    deinit { storage.deallocate() }

    /// The address of byte `offset` of the input.
    func address(_ offset: Int) -> UnsafeRawPointer { bytes.baseAddress! + offset }

    /// Whether `pointer` lies inside the input.
    func contains(_ pointer: UnsafeRawPointer?) -> Bool {
        guard let pointer, let base = bytes.baseAddress else { return false }
        return pointer >= base && pointer < base + bytes.count
    }
}

/// The descriptor a generated `__init` function installs: the C global's real address.
func descriptor<M>(_ type: M.Type, _ initialize: (UnsafeMutablePointer<M>) -> Void) -> UnsafePointer<ProtobufCMessageDescriptor> {
    let message = UnsafeMutablePointer<M>.allocate(capacity: 1)
    defer { message.deallocate() }
    initialize(message)
    return UnsafeRawPointer(message).load(as: ProtobufCMessage.self).descriptor
}

typealias WeightParams = CoreML__Specification__WeightParams
typealias ConvParams = CoreML__Specification__ConvolutionLayerParams
typealias Layer = CoreML__Specification__NeuralNetworkLayer
typealias MLModel = CoreML__Specification__Model
typealias ImageType = CoreML__Specification__ImageFeatureType
typealias ClipParams = CoreML__Specification__ClipLayerParams

/// Descriptors of the messages the tests decode.
enum Descriptors {
    static var weightParams: UnsafePointer<ProtobufCMessageDescriptor> {
        descriptor(WeightParams.self, core_ml__specification__weight_params__init)
    }
    static var convolution: UnsafePointer<ProtobufCMessageDescriptor> {
        descriptor(ConvParams.self, core_ml__specification__convolution_layer_params__init)
    }
    static var layer: UnsafePointer<ProtobufCMessageDescriptor> {
        descriptor(Layer.self, core_ml__specification__neural_network_layer__init)
    }
    static var model: UnsafePointer<ProtobufCMessageDescriptor> {
        descriptor(MLModel.self, core_ml__specification__model__init)
    }
    static var imageType: UnsafePointer<ProtobufCMessageDescriptor> {
        descriptor(ImageType.self, core_ml__specification__image_feature_type__init)
    }
    static var clip: UnsafePointer<ProtobufCMessageDescriptor> {
        descriptor(ClipParams.self, core_ml__specification__clip_layer_params__init)
    }
    static var activation: UnsafePointer<ProtobufCMessageDescriptor> {
        descriptor(CoreML__Specification__ActivationParams.self, core_ml__specification__activation_params__init)
    }
    static var featureType: UnsafePointer<ProtobufCMessageDescriptor> {
        descriptor(CoreML__Specification__FeatureType.self, core_ml__specification__feature_type__init)
    }
    static var modelDescription: UnsafePointer<ProtobufCMessageDescriptor> {
        descriptor(CoreML__Specification__ModelDescription.self, core_ml__specification__model_description__init)
    }
    static var pooling: UnsafePointer<ProtobufCMessageDescriptor> {
        descriptor(CoreML__Specification__PoolingLayerParams.self, core_ml__specification__pooling_layer_params__init)
    }
}

/// A decode whose input lives as long as the result (the input buffer is the owner).
struct DecodedInput<M>: @unchecked Sendable {
    let decoded: Decoded<M>
    let input: InputBuffer
    /// A copy of the root struct; its pointers stay valid while the test runs.
    var root: M { decoded.root.pointee }
}

extension XCTestCase {
    /// Decodes `bytes` placed `shift` bytes past a 16-byte boundary. The
    /// result (its arena and input) is kept alive until the test ends, so
    /// copies of the root struct can be read safely.
    func decode<M>(_ type: M.Type, _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, _ bytes: [UInt8],
                   shift: Int = 0, options: DecodeOptions = DecodeOptions()) throws(DecodeError) -> DecodedInput<M> {
        let input = InputBuffer(bytes, shift: shift)
        let decoded = try BinaryDecoder.decode(type, descriptor: descriptor, bytes: input.bytes, owner: input, options: options)
        let result = DecodedInput(decoded: decoded, input: input)
        addTeardownBlock { withExtendedLifetime(result) {} }
        return result
    }

    /// Decodes `bytes` expecting a `DecodeError`; returns it (nil, with a failure, if decoding succeeded).
    @discardableResult
    func decodeError<M>(_ type: M.Type, _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, _ bytes: [UInt8],
                        options: DecodeOptions = DecodeOptions(),
                        file: StaticString = #filePath, line: UInt = #line) -> DecodeError? {
        do {
            _ = try decode(type, descriptor, bytes, options: options)
            XCTFail("decoding \(bytes) succeeded; expected a DecodeError", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }
}

/// The bit patterns of `count` floats at `pointer` (empty for nil).
func floatBits(_ pointer: UnsafeMutablePointer<Float>?, _ count: Int) -> [UInt32] {
    CArrays.array(pointer, count).map(\.bitPattern)
}

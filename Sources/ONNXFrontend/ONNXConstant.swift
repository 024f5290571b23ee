#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Conversion
import FileIO
import ModelFormat
import ONNXSchema
import Protobuf

/// A constant tensor during an ONNX model's conversion.
typealias ONNXConstant = GraphConstant

extension ONNXNode: GraphNode {}

extension GraphConstant {
    /// Decodes a TensorProto: `raw_data`, the typed value lists, or an
    /// external data file (`location`, `offset`, `length`, named relative
    /// to `folder` and never outside it).
    init(_ proto: UnsafeMutablePointer<OnnxTensor>, owner: AnyObject, folder: String, what: String) throws {
        let p = proto.pointee
        let shape = CArrays.array(p.dims, p.n_dims).map { Int(clamping: $0) }
        guard shape.allSatisfy({ $0 >= 0 && $0 <= 1 << 31 }), let count = shape.checkedProduct, count <= 1 << 31 else {
            throw ONNXError("\(what): shape \(shape) is invalid or too large")
        }
        let width: Int
        switch p.data_type {
        case 1, 6: width = 4      // FLOAT, INT32
        case 7, 11: width = 8     // INT64, DOUBLE
        case 2, 3, 9: width = 1   // UINT8, INT8, BOOL
        case 10: width = 2        // FLOAT16
        default: throw ONNXError("\(what): tensors of data type \(p.data_type) are not supported")
        }
        var bytes: UnsafeRawBufferPointer?
        var keeper: AnyObject = owner
        if p.data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL {
            let (mapped, range) = try Self.external(p, folder: folder, what: what)
            guard range.count == count * width else {
                throw ONNXError("\(what): shape \(shape) needs \(count * width) bytes, the external data holds \(range.count)")
            }
            bytes = UnsafeRawBufferPointer(rebasing: mapped.bytes[range])
            keeper = mapped
        } else if p.raw_data.len > 0 || (count == 0 && p.raw_data.data != nil) {
            guard let data = p.raw_data.data else { throw ONNXError("\(what): the payload was not loaded") }
            guard p.raw_data.len == count * width else {
                throw ONNXError("\(what): shape \(shape) needs \(count * width) bytes, raw_data holds \(p.raw_data.len)")
            }
            bytes = UnsafeRawBufferPointer(start: data, count: p.raw_data.len)
        }
        if let bytes {
            if p.data_type == 1, count > 0 {
                self.init(shape: shape, float32Payload: bytes.baseAddress!, owner: keeper, inMappedFile: true)
                return
            }
            let base = bytes.baseAddress
            self.init(shape: shape, values: (0..<count).map { index in
                switch p.data_type {
                case 6: Double(base!.loadUnaligned(fromByteOffset: 4 * index, as: Int32.self))
                case 7: Double(base!.loadUnaligned(fromByteOffset: 8 * index, as: Int64.self))
                case 11: base!.loadUnaligned(fromByteOffset: 8 * index, as: Double.self)
                case 3: Double(base!.loadUnaligned(fromByteOffset: index, as: Int8.self))
                case 10: Double(Float(halfBits: base!.loadUnaligned(fromByteOffset: 2 * index, as: UInt16.self)))
                default: Double(base!.load(fromByteOffset: index, as: UInt8.self))
                }
            })
            isInteger = Self.integerTypes.contains(p.data_type)
            return
        }
        let listed: [Double] = switch p.data_type {
        case 1: CArrays.array(p.float_data, p.n_float_data).map(Double.init)
        case 7: CArrays.array(p.int64_data, p.n_int64_data).map(Double.init)
        case 11: CArrays.array(p.double_data, p.n_double_data)
        // INT32, INT8, UINT8, BOOL and FLOAT16 (as bits) are listed in int32_data.
        case 10: CArrays.array(p.int32_data, p.n_int32_data).map { Double(Float(halfBits: UInt16(truncatingIfNeeded: $0))) }
        default: CArrays.array(p.int32_data, p.n_int32_data).map(Double.init)
        }
        guard listed.count == count else { throw ONNXError("\(what): shape \(shape) has \(count) values, the tensor lists \(listed.count)") }
        self.init(shape: shape, values: listed)
        isInteger = Self.integerTypes.contains(p.data_type)
    }

    /// UINT8, INT8, INT32, INT64 and BOOL: the types whose division truncates.
    static let integerTypes: Set<Int32> = [2, 3, 6, 7, 9]

    /// The mapped external data file of a tensor and the byte range its
    /// payload takes there.
    private static func external(_ p: OnnxTensor, folder: String, what: String) throws -> (MappedFile, Range<Int>) {
        var entries: [String: String] = [:]
        for case let entry? in CArrays.buffer(p.external_data, p.n_external_data) {
            entries[CArrays.string(entry.pointee.key)] = CArrays.string(entry.pointee.value)
        }
        guard let location = entries["location"], !location.isEmpty else { throw ONNXError("\(what): external data without a location") }
        let components = location.split(separator: "/", omittingEmptySubsequences: false)
        guard !location.hasPrefix("/"), !location.contains("\\"), !components.contains(".."), !components.contains("") else {
            throw ONNXError("\(what): external data location '\(location)' is not a file in the model's folder")
        }
        let path = folder + "/" + location
        // Symbolic links may not lead out of the folder either.
        guard let resolved = FileSystem.resolved(path), let base = FileSystem.resolved(folder) else {
            throw ONNXError("\(what): external data file \(path): \(String(cString: strerror(errno)))")
        }
        guard resolved.hasPrefix(base.hasSuffix("/") ? base : base + "/") else {
            throw ONNXError("\(what): external data location '\(location)' leads outside the model's folder")
        }
        let file = try MappedFile(path: path)
        let offset = try Self.number(entries["offset"] ?? "0", "offset", what)
        let length = try entries["length"].map { try Self.number($0, "length", what) } ?? max(0, file.bytes.count - offset)
        guard offset <= file.bytes.count, length <= file.bytes.count - offset else {
            throw ONNXError("\(what): external data at offset \(offset), \(length) bytes, runs past the end of \(location) (\(file.bytes.count) bytes)")
        }
        return (file, offset..<offset + length)
    }

    private static func number(_ text: String, _ key: String, _ what: String) throws -> Int {
        guard let value = Int(text), value >= 0 else { throw ONNXError("\(what): external data \(key) '\(text)' is not a byte count") }
        return value
    }
}

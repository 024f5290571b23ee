import FileIO
import Conversion
import ModelFormat
import TensorFlowSchema
import Protobuf

/// A constant tensor during a TensorFlow graph's conversion.
typealias TFConstant = GraphConstant

extension TFNode: GraphNode {}

extension GraphConstant {
    /// Decodes a TensorProto: `tensor_content` (raw little-endian) or the
    /// typed value lists, where a single value fills the whole shape.
    init(_ proto: UnsafeMutablePointer<Tensorflow__TensorProto>, node: TFNode, owner: AnyObject, inMappedFile: Bool) throws {
        let p = proto.pointee
        let shape = p.tensor_shape.map { CArrays.buffer($0.pointee.dim, $0.pointee.n_dim).map { Int($0?.pointee.size ?? 0) } } ?? []
        guard shape.allSatisfy({ $0 >= 0 && $0 <= 1 << 31 }) else { throw node.fail("constant shape \(shape) is invalid") }
        guard let count = shape.checkedProduct, count <= 1 << 31 else { throw node.fail("constant shape \(shape) is too large") }
        var values: [Double]
        let content = p.tensor_content
        let width: Int
        switch p.dtype {
        case TENSORFLOW__DATA_TYPE__DT_FLOAT, TENSORFLOW__DATA_TYPE__DT_INT32: width = 4
        case TENSORFLOW__DATA_TYPE__DT_DOUBLE, TENSORFLOW__DATA_TYPE__DT_INT64: width = 8
        case TENSORFLOW__DATA_TYPE__DT_BOOL, TENSORFLOW__DATA_TYPE__DT_UINT8, TENSORFLOW__DATA_TYPE__DT_INT8: width = 1
        case TENSORFLOW__DATA_TYPE__DT_HALF: width = 2
        default: throw node.fail("constants of dtype \(p.dtype.rawValue) are not supported")
        }
        if content.len > 0 {
            guard let data = content.data else { throw node.fail("constant payload was not loaded") }
            guard content.len == count * width else {
                throw node.fail("constant of shape \(shape) needs \(count * width) bytes, tensor_content has \(content.len)")
            }
            let raw = UnsafeRawPointer(data)
            if p.dtype == TENSORFLOW__DATA_TYPE__DT_FLOAT {
                self.init(shape: shape, float32Payload: raw, owner: owner, inMappedFile: inMappedFile)
                return
            }
            values = (0..<count).map { index in
                switch p.dtype {
                case TENSORFLOW__DATA_TYPE__DT_FLOAT: Double(raw.loadUnaligned(fromByteOffset: 4 * index, as: Float.self))
                case TENSORFLOW__DATA_TYPE__DT_INT32: Double(raw.loadUnaligned(fromByteOffset: 4 * index, as: Int32.self))
                case TENSORFLOW__DATA_TYPE__DT_DOUBLE: raw.loadUnaligned(fromByteOffset: 8 * index, as: Double.self)
                case TENSORFLOW__DATA_TYPE__DT_INT64: Double(raw.loadUnaligned(fromByteOffset: 8 * index, as: Int64.self))
                case TENSORFLOW__DATA_TYPE__DT_INT8: Double(raw.loadUnaligned(fromByteOffset: index, as: Int8.self))
                case TENSORFLOW__DATA_TYPE__DT_HALF: Double(Float(halfBits: raw.loadUnaligned(fromByteOffset: 2 * index, as: UInt16.self)))
                default: Double(raw.load(fromByteOffset: index, as: UInt8.self))
                }
            }
        } else {
            let listed: [Double]
            switch p.dtype {
            case TENSORFLOW__DATA_TYPE__DT_FLOAT: listed = CArrays.array(p.float_val, p.n_float_val).map(Double.init)
            case TENSORFLOW__DATA_TYPE__DT_DOUBLE: listed = CArrays.array(p.double_val, p.n_double_val)
            case TENSORFLOW__DATA_TYPE__DT_INT64: listed = CArrays.array(p.int64_val, p.n_int64_val).map(Double.init)
            case TENSORFLOW__DATA_TYPE__DT_BOOL: listed = CArrays.array(p.bool_val, p.n_bool_val).map { $0 != 0 ? 1 : 0 }
            case TENSORFLOW__DATA_TYPE__DT_HALF: listed = CArrays.array(p.half_val, p.n_half_val).map { Double(Float(halfBits: UInt16(truncatingIfNeeded: $0))) }
            default: listed = CArrays.array(p.int_val, p.n_int_val).map(Double.init)
            }
            // TensorFlow compacts value lists: trailing repeats of the last value
            // are dropped, and a tensor of zeros may list nothing at all.
            guard listed.count <= count else { throw node.fail("constant of shape \(shape) has \(listed.count) values") }
            guard count <= Self.maximumMadeCount || listed.count == count else {
                throw node.fail("constant of shape \(shape) lists \(listed.count) of its \(count) values; "
                                + "more than \(Self.maximumMadeCount) values must be stored in tensor_content")
            }
            values = listed + [Double](repeating: listed.last ?? 0, count: count - listed.count)
        }
        self.init(shape: shape, values: values)
    }
}

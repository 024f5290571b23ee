import FileIO
import Conversion
import ModelFormat
import ProtoSchemas
import Protobuf

/// A constant tensor during conversion: shape and values, row-major.
///
/// Float32 payloads stay where they are (a slice of the mapped graph file):
/// a layout change reads them from there, when the writer streams the
/// weights out, so a 200 MB graph's weights are never copied into memory.
/// Everything else (small int and shape tensors, folded results) is held
/// as doubles, which keeps int32/int64 shape arithmetic exact.
struct TFConstant {
    var shape: [Int]
    private var stored: [Double]
    /// Unaligned little-endian float32 values, what keeps them alive, and
    /// whether they lie in a mapped file.
    private var raw: (pointer: UnsafeRawPointer, owner: AnyObject, inMappedFile: Bool)?

    /// A raw payload's shape was checked when it was decoded.
    var count: Int { raw == nil ? stored.count : shape.checkedProduct ?? 0 }

    /// Values held in memory (a raw payload lies in the file).
    var madeCount: Int { raw == nil ? stored.count : 0 }

    /// The most values the converter makes for a constant that the file does
    /// not store value by value: a value list that TensorFlow compacted (a
    /// few values repeated to fill the shape), or a folded result. 2^24 is a
    /// 4096 x 4096 matrix; a 600-byte file cannot ask for 16 GB.
    static let maximumMadeCount = 1 << 24

    /// The most values all the constants one conversion makes may hold
    /// together (256 MB as doubles): many made constants, each under the
    /// cap, must not add up to gigabytes either.
    static let maximumMadeTotal = 1 << 25

    var isScalar: Bool { count == 1 }

    /// Value `index` in row-major order.
    subscript(index: Int) -> Double {
        if let raw { return Double(raw.pointer.loadUnaligned(fromByteOffset: 4 * index, as: Float.self)) }
        return stored[index]
    }

    var values: [Double] { raw == nil ? stored : (0..<count).map { self[$0] } }
    var floats: [Float] { (0..<count).map { Float(self[$0]) } }

    /// The values as weights, through `layout` (a layout change; by default
    /// none), which reads the file's own little-endian float32 bytes when
    /// the payload lies there and keeps the file alive until the weights
    /// are written.
    func weights(_ layout: (FloatBytes) -> Weights = NHWCLayout.unchanged) -> Weights {
        layout(floatBytes)
    }

    private var floatBytes: FloatBytes {
        if let raw { return FloatBytes(borrowing: UnsafeRawBufferPointer(start: raw.pointer, count: 4 * count), owner: raw.owner, isMappedFile: raw.inMappedFile) }
        return FloatBytes(stored.map { Float($0) })
    }

    /// The values as integers (shapes, axes, paddings): each must be a
    /// whole number of at most 2^53 in size (beyond, a double is not exact).
    /// - Throws: naming the node and `what`, for NaN, infinities, fractions
    ///   and larger numbers, instead of trapping on the conversion.
    func ints(_ node: TFNode, _ what: String) throws -> [Int] {
        try (0..<count).map { index in
            let value = self[index]
            guard let int = Int(exactly: value), int.magnitude <= 1 << 53 else {
                throw node.fail("\(what) holds \(value), not an integer of a usable size")
            }
            return int
        }
    }

    init(shape: [Int], values: [Double]) {
        self.shape = shape
        self.stored = values
    }

    init(vector: [Int]) {
        self.init(shape: [vector.count], values: vector.map(Double.init))
    }

    /// The same values under another shape (no copy).
    func reshaped(_ shape: [Int]) -> TFConstant {
        var copy = self
        copy.shape = shape
        return copy
    }

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
                self.init(shape: shape, values: [])
                self.raw = (raw, owner, inMappedFile)
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

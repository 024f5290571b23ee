import ModelFormat

/// A constant tensor during a graph's conversion (TensorFlow, ONNX): shape
/// and values, row-major.
///
/// Float32 payloads stay where they are (a slice of the mapped model file,
/// or of a mapped external data file): a layout change reads them from
/// there, when the writer streams the weights out, so a 200 MB graph's
/// weights are never copied into memory. Everything else (small int and
/// shape tensors, folded results) is held as doubles, which keeps int32 and
/// int64 shape arithmetic exact.
public struct GraphConstant {
    public var shape: [Int]
    private var stored: [Double]
    /// Unaligned little-endian float32 values, what keeps them alive, and
    /// whether they lie in a mapped file.
    private var raw: (pointer: UnsafeRawPointer, owner: AnyObject, inMappedFile: Bool)?

    /// A raw payload's shape was checked when it was decoded.
    public var count: Int { raw == nil ? stored.count : shape.checkedProduct ?? 0 }

    /// Values held in memory (a raw payload lies in the file).
    public var madeCount: Int { raw == nil ? stored.count : 0 }

    /// The most values the converter makes for a constant that the file does
    /// not store value by value: a value list that TensorFlow compacted (a
    /// few values repeated to fill the shape), or a folded result. 2^24 is a
    /// 4096 x 4096 matrix; a 600-byte file cannot ask for 16 GB.
    public static let maximumMadeCount = 1 << 24

    /// The most values all the constants one conversion makes may hold
    /// together (256 MB as doubles): many made constants, each under the
    /// cap, must not add up to gigabytes either.
    public static let maximumMadeTotal = 1 << 25

    public var isScalar: Bool { count == 1 }

    /// Whether the values are of an integer type (ONNX's int64 shape
    /// arithmetic), where a division truncates; false where not known.
    public var isInteger = false

    /// A copy marked as of an integer type or not.
    public func integer(_ flag: Bool) -> GraphConstant {
        var copy = self
        copy.isInteger = flag
        return copy
    }

    /// Value `index` in row-major order.
    public subscript(index: Int) -> Double {
        if let raw { return Double(raw.pointer.loadUnaligned(fromByteOffset: 4 * index, as: Float.self)) }
        return stored[index]
    }

    public var values: [Double] { raw == nil ? stored : (0..<count).map { self[$0] } }
    public var floats: [Float] { (0..<count).map { Float(self[$0]) } }

    public init(shape: [Int], values: [Double]) {
        self.shape = shape
        self.stored = values
    }

    public init(vector: [Int]) {
        self.init(shape: [vector.count], values: vector.map(Double.init))
        isInteger = true
    }

    /// Float32 values left where they lie: `payload` holds the shape's
    /// count of little-endian floats, and `owner` keeps it alive.
    public init(shape: [Int], float32Payload payload: UnsafeRawPointer, owner: AnyObject, inMappedFile: Bool) {
        self.init(shape: shape, values: [])
        raw = (payload, owner, inMappedFile)
    }

    /// The values as weights, through `layout` (a layout change; by default
    /// none), which reads the file's own little-endian float32 bytes when
    /// the payload lies there and keeps the file alive until the weights
    /// are written.
    public func weights(_ layout: (FloatBytes) -> Weights = NHWCLayout.unchanged) -> Weights {
        layout(floatBytes)
    }

    private var floatBytes: FloatBytes {
        if let raw { return FloatBytes(borrowing: UnsafeRawBufferPointer(start: raw.pointer, count: 4 * count), owner: raw.owner, isMappedFile: raw.inMappedFile) }
        return FloatBytes(stored.map { Float($0) })
    }

    /// The same values under another shape (no copy).
    public func reshaped(_ shape: [Int]) -> GraphConstant {
        var copy = self
        copy.shape = shape
        return copy
    }

    /// The values as integers (shapes, axes, paddings): each must be a
    /// whole number of at most 2^53 in size (beyond, a double is not exact).
    /// - Throws: `node`'s error naming `what`, for NaN, infinities,
    ///   fractions and larger numbers, instead of trapping on the conversion.
    public func ints<Node: GraphNode>(_ node: Node, _ what: String) throws(Node.Failure) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            let value = self[index]
            guard let int = Int(exactly: value), int.magnitude <= 1 << 53 else {
                throw node.fail("\(what) holds \(value), not an integer of a usable size")
            }
            result.append(int)
        }
        return result
    }
}

/// A graph input and its shape, as `--input-shape name=1,299,299,3` gives it: for
/// inputs whose sizes the file leaves open.
public struct InputShape: Sendable {
    public var name: String
    public var shape: [Int]

    public init(name: String, shape: [Int]) {
        self.name = name
        self.shape = shape
    }
}

/// A node of a source graph, which names itself in the errors about it.
public protocol GraphNode {
    associatedtype Failure: Error
    func fail(_ message: String) -> Failure
}

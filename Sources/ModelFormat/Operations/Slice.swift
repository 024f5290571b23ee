/// `begin[i]..<end[i]` in steps of `strides[i]` along each of `axes`
/// (negative counts from the end; the other axes whole), or along every
/// axis `i` when `axes` is nil, as Python slices:
/// a negative bound counts from the axis' end (`end: -1` stops before the
/// last element, Core ML's "-1 denotes N-1"). Where Core ML computes
/// otherwise the model is refused (`outputShapes`): a positive end past
/// the axis (Core ML does not clamp it), a negative start before a
/// positive end (its classic layer computes that length differently).
///
/// Along one of a map's C, H, W (axis -3, -2 or -1 of a [C, H, W] map or
/// [1, C, H, W] tensor: `Slice(axis:start:end:stride:)`) it is what Core
/// ML's classic slice layer does, which the backend writes then; over
/// every axis in order (`Slice(begin:end:strides:)`), sliceStatic
/// (specification 4).
public struct Slice: OpDefinition, Equatable {
    /// A map's axes by name, counted from the end.
    public enum Axis: Int, Equatable, Sendable, CaseIterable {
        case channel = -3, height = -2, width = -1
    }

    /// The axes sliced, in the order of the bounds; nil: every axis, in order.
    public var axes: [Int]?
    public var begin: [Int]
    public var end: [Int]
    public var strides: [Int]

    public init(axes: [Int]?, begin: [Int], end: [Int], strides: [Int]? = nil) {
        self.axes = axes
        self.begin = begin
        self.end = end
        self.strides = strides ?? Array(repeating: 1, count: begin.count)
    }

    /// Every axis, in order.
    public init(begin: [Int], end: [Int], strides: [Int]? = nil) {
        self.init(axes: nil, begin: begin, end: end, strides: strides)
    }

    /// One axis of a map.
    public init(axis: Axis, start: Int, end: Int, stride: Int = 1) {
        self.init(axes: [axis.rawValue], begin: [start], end: [end], strides: [stride])
    }

    /// The map axis sliced, when it is one of C, H, W alone (what Core ML's
    /// classic slice layer takes).
    public var mapAxis: Axis? { axes?.count == 1 ? Axis(rawValue: axes![0]) : nil }

    /// The axes of an input of `rank` sliced, in the order of the bounds
    /// (negative ones counted from the end; nil when one is outside).
    public func axisIndices(rank: Int) -> [Int?] {
        (axes ?? Array(0..<rank)).map { $0 < 0 ? ($0 >= -rank ? $0 + rank : nil) : ($0 < rank ? $0 : nil) }
    }

    public var kindName: String { "slice" }

    public func checkAttributes() throws(ModelError) {
        guard begin.count == end.count, begin.count == strides.count, axes.map({ $0.count == begin.count }) ?? true, !begin.isEmpty else {
            throw ModelError("slice bounds \(begin), \(end) and strides \(strides)\(axes.map { " of axes \($0)" } ?? "") do not have one entry per axis")
        }
        try AttributeBounds.sizes(strides, "slice stride")
        for value in begin + end where value.magnitude > UInt(ShapeInference.maximumSize) {
            throw ModelError("slice bound \(value) is out of range")
        }
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let input = inputs[0]
        guard axes != nil || begin.count == input.rank else { throw ModelError("slices \(begin.count) axes, the input \(input) has \(input.rank)") }
        var output = input
        var sliced: Set<Int> = []
        for (listed, index) in axisIndices(rank: input.rank).enumerated() {
            guard let index, sliced.insert(index).inserted else {
                throw ModelError("slice axes \(axes ?? []) are not distinct axes of the input \(input)")
            }
            let size = input.dimensions[index]
            if end[listed] > size { throw ModelError("slice end \(end[listed]) is past the axis' \(size) elements") }
            if begin[listed] < 0 && end[listed] > 0 {
                throw ModelError("slice \(begin[listed])..<\(end[listed]) mixes a negative start with a positive end")
            }
            output = output.replacing(axis: index, with: range(listed, of: size).count)
        }
        return [output]
    }

    /// The first element taken along `axes[listed]` of `size` elements, and
    /// how many (0 when the range is empty).
    public func range(_ listed: Int, of size: Int) -> (first: Int, count: Int) {
        let (start, stop, stride) = (begin[listed], end[listed], strides[listed])
        let first = max(start < 0 ? size + start : start, 0)
        let last = stop < 0 ? size + stop : min(stop, size)
        guard stride > 0, last > first else { return (first, 0) }
        return (first, (last - first + stride - 1) / stride)
    }

    /// Along one map axis as its name and start, end and stride; over
    /// other axes as lists (every axis: no axes).
    public var attributes: [OpAttribute] {
        if let axis = mapAxis {
            return [OpAttribute("axes", .ints([axis.rawValue]), text: "axis \(axis)"),
                    OpAttribute("begin", .ints(begin), text: "start \(begin[0])"),
                    OpAttribute("end", .ints(end), text: "end \(end[0])"),
                    OpAttribute("strides", .ints(strides), text: strides[0] == 1 ? nil : "stride \(strides[0])")]
        }
        return (axes.map { [OpAttribute("axes", .ints($0), text: "axes \(OpAttribute.dims($0))")] } ?? []) + [
                OpAttribute("begin", .ints(begin), text: "from \(OpAttribute.dims(begin))"),
                OpAttribute("end", .ints(end), text: "to \(OpAttribute.dims(end))"),
                OpAttribute("strides", .ints(strides), text: strides.allSatisfy { $0 == 1 } ? nil : "strides \(OpAttribute.dims(strides))")]
    }
}

extension Op {
    /// A slice (`Slice`): the one constructor frontends build it with.
    public static func slice(_ slice: Slice) -> Op { .defined(slice) }
}

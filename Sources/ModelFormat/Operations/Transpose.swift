/// Reorders the axes of a tensor of any rank: output axis `i` is input
/// axis `axes[i]` (numpy's `transpose`). On a [C, H, W] map it is what
/// Core ML's classic permute layer does (`Op.permute`); the backend writes
/// that layer in a model of maps, and the transpose layer otherwise.
public struct Transpose: OpDefinition, Equatable {
    public var axes: [Int]

    public init(axes: [Int]) {
        self.axes = axes
    }

    public var kindName: String { "transpose" }

    public func checkAttributes() throws(ModelError) {
        guard axes.sorted() == Array(0..<axes.count) else { throw ModelError("axes \(axes) are not a permutation") }
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        guard axes.count == inputs[0].rank else {
            throw ModelError("permutes \(axes.count) axes, the input \(inputs[0]) has \(inputs[0].rank)")
        }
        return [TensorShape(axes.map { inputs[0].dimensions[$0] })]
    }

    public var attributes: [OpAttribute] {
        [OpAttribute("axes", .ints(axes), text: "axes [\(axes.map(String.init).joined(separator: ","))]")]
    }
}

extension Op {
    /// Core ML's permute of a map: `axes` reorders [Seq, C, H, W], Seq
    /// staying first ([0, 2, 3, 1] is [C, H, W] to [H, W, C]), which is
    /// `Transpose` of [C, H, W] with the other three. A list that is not
    /// such a permutation is kept as `Transpose`'s axes (which shape
    /// inference then refuses unless they permute the input's axes).
    public static func permute(axes: [Int]) -> Op {
        guard axes.count == 4, axes[0] == 0, axes.sorted() == [0, 1, 2, 3] else { return .defined(Transpose(axes: axes)) }
        return .defined(Transpose(axes: axes.dropFirst().map { $0 - 1 }))
    }
}

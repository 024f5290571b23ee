/// Reorders the axes of a tensor of any rank: output axis `i` is input
/// axis `axes[i]` (numpy's `transpose`).
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

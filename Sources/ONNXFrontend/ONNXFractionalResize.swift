import Conversion
import ModelFormat

/// Resize to sizes that are not whole multiples of H and W, onto the one
/// Core ML layer that samples between whole factors: specification 5's
/// upsample with fractionalScalingFactor, bilinear only, whose grids
/// (NeuralNetwork.proto's LinearUpsampleMode) are
/// - ALIGN_CORNERS_TRUE: `i * (in - 1) / (out - 1)`, ONNX's align_corners;
/// - ALIGN_CORNERS_FALSE: `(i + 0.5) * in / out - 0.5` clamped, ONNX's
///   half_pixel (and pytorch_half_pixel, which differs only on an output
///   of length 1) where ONNX's scale is out / in: always for `sizes`, and
///   for `scales` only where in * scale is whole (3 * 1.5 = 4.5 floors to
///   4 and onnxruntime samples at steps of 1 / 1.5, Core ML at 3 / 4).
/// Other coordinate modes and shrinking have no bilinear Core ML layer and
/// are refused by name.
///
/// Nearest resizing by out / in = p / q (in lowest terms) is each pixel
/// repeated p times (the upsample's whole factor) and then every q-th of
/// those taken from an offset o (a strided slice): output i reads input
/// (i q + o) / p. Each node's own picks (its coordinate mode and rounding,
/// as onnxruntime computes them) are worked out index by index and an o
/// that reproduces them all is looked for; without one, the attributes
/// are named. The repeated map is at most 16 times the larger of the input
/// and output along each axis.
extension ONNXOpTable {
    static func fractionalResize(_ b: ONNXBuilder, _ x: ONNXTensor, mode: String, transform: String, sizes: [Int],
                                 scales: [Double]?) throws -> (nodes: [Node], value: GraphValue) {
        let dims = x.dims
        let given = scales.map { "scales \(Array($0.suffix(2)))" } ?? "sizes \(Array(sizes.suffix(2)))"
        let resizing = "resizing \(dims[2])x\(dims[3]) to \(sizes[2])x\(sizes[3]) (\(given), not whole factors)"
        // Before opset 11 (and in Upsample) there is no coordinate_transformation_mode: the sampling is asymmetric.
        let sampling = b.node.op == "Resize" && b.opset >= 11 ? "coordinate_transformation_mode \(transform)" : "\(b.node.op)'s asymmetric sampling (opset \(b.opset))"
        if mode == "nearest" { return try nearestByRatio(b, x, transform: transform, sizes: sizes, scales: scales, resizing: resizing) }
        guard mode == "linear" || mode == "bilinear" else {
            throw b.node.fail("mode \(mode) (with \(sampling)) is not supported \(resizing); Core ML's upsample takes fractional factors in bilinear mode only")
        }
        guard sizes[2] >= dims[2], sizes[3] >= dims[3] else {
            throw b.node.fail("mode \(mode) \(resizing) shrinks the map; Core ML's fractional upsample only enlarges it")
        }
        let alignment: Upsample.Alignment
        switch transform {
        case "align_corners": alignment = .alignCorners
        case "half_pixel", "pytorch_half_pixel": alignment = .halfPixel
        default:
            throw b.node.fail("mode \(mode) with \(sampling) is not supported \(resizing); Core ML's fractional upsample aligns corners or centres half pixels")
        }
        var factors: [Float] = []
        for axis in [2, 3] {
            if alignment == .halfPixel, let scales {
                // onnxruntime's float32 arithmetic: the output floor(in * scale), the grid steps 1 / scale.
                let product = Float(dims[axis]) * Float(scales[axis])
                guard product == product.rounded(.down) else {
                    throw b.node.fail("scales \(Array(scales.suffix(2))) do not give whole sizes (\(dims[axis]) x \(Float(scales[axis])) = \(product)); onnxruntime samples at steps of 1 / scale, Core ML's fractional upsample at in / out")
                }
            }
            guard let factor = Upsample.fractionalFactor(input: dims[axis], output: sizes[axis]) else {
                throw b.node.fail("no float32 factor enlarges \(dims[axis]) to exactly \(sizes[axis]) on axis \(axis)")
            }
            factors.append(factor)
        }
        let upsample = Upsample(scale: Size2(square: 1), mode: .bilinear, alignment: alignment, fractionalScale: factors)
        return b.single(.upsample(upsample), x)
    }

    private static func nearestByRatio(_ b: ONNXBuilder, _ x: ONNXTensor, transform: String, sizes: [Int], scales: [Double]?,
                                       resizing: String) throws -> (nodes: [Node], value: GraphValue) {
        let modern = b.node.op == "Resize" && b.opset >= 11
        let rounding = modern ? b.node.string("nearest_mode") ?? "round_prefer_floor" : "floor"
        let named = modern ? "coordinate_transformation_mode \(transform) with nearest_mode \(rounding)" : "\(b.node.op)'s asymmetric floor sampling (opset \(b.opset))"
        var repeats: [Int] = [], slices: [Slice] = []
        for (axis, sliced) in [(2, Slice.Axis.height), (3, Slice.Axis.width)] {
            let (input, output) = (x.dims[axis], sizes[axis])
            let common = greatestCommonDivisor(input, output)
            let (p, q) = (output / common, input / common)
            guard input * p <= 16 * max(input, output) else {
                throw b.node.fail("mode nearest \(resizing) would repeat each pixel \(p) times (\(input * p) long, over 16 times the larger size)")
            }
            let scale = Float(scales?[axis] ?? Double(output) / Double(input))
            let picks = try (0..<output).map { index in
                try nearestSource(b, transform: transform, rounding: rounding, index: index, input: input, output: output, scale: scale) ?? -1
            }
            let offsets = (0..<p).map { picks[0] * p + $0 }.filter { offset in
                offset + (output - 1) * q < input * p && picks.indices.allSatisfy { (picks[$0] >= 0) && ($0 * q + offset) / p == picks[$0] }
            }
            guard let offset = offsets.first else {
                throw b.node.fail("mode nearest with \(named) picks other pixels than repeating each one \(p) times and taking one in \(q), \(resizing)")
            }
            repeats.append(p)
            if offset != 0 || q != 1 { slices.append(Slice(axis: sliced, start: offset, end: offset + (output - 1) * q + 1, stride: q)) }
        }
        var nodes: [Node] = [], last = x.name
        let steps: [Op] = (repeats == [1, 1] ? [] : [.upsample(Upsample(scale: Size2(repeats[0], repeats[1])))]) + slices.map { .slice($0) }
        for (index, step) in steps.enumerated() {
            nodes.append(b.emit(step, [last], suffix: index == steps.count - 1 ? nil : "step\(index)"))
            last = nodes[index].outputs[0]
        }
        return (nodes, .tensor(name: b.name, rank: x.rank))
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int { b == 0 ? a : greatestCommonDivisor(b, a % b) }
}

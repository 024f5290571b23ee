#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Conversion
import ModelFormat

/// Resize (and opset 9's Upsample) of [1, C, H, W] maps by whole factors
/// of H and W, onto Core ML's upsample layer: nearest repeats each pixel
/// `factor` times; bilinear samples on the grid the coordinate mode names.
/// Other sizes go to `fractionalResize` (bilinear only).
///
/// ONNX's nearest picks, for output index `x` of an axis, input index
/// `nearest(transform(x))` clamped to the axis: `transform` is the
/// coordinate_transformation_mode (half_pixel `(x + 0.5) / scale - 0.5`,
/// asymmetric `x / scale`, align_corners `x * (in - 1) / (out - 1)`, ...),
/// `nearest` the nearest_mode (round_prefer_floor, round_prefer_ceil,
/// floor, ceil). Many pairs do not repeat pixels even at whole factors
/// (asymmetric with round_prefer_ceil picks x / 2 rounded up; align_corners
/// at factor 3 spreads the corners). So each node's own mapping is worked
/// out, index by index on both axes, and converted only when it is pixel
/// repetition; otherwise the attribute that makes it differ is named.
/// Before opset 11 (and in Upsample) the mapping is asymmetric and floor.
/// The arithmetic is float32, as onnxruntime's.
extension ONNXOpTable {
    static func resize(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        guard x.takesMapLayers else { throw b.node.fail("only resizing [1, C, H, W] values is supported, not \(x.dims)") }
        let dims = x.dims
        let modern = b.node.op == "Resize" && b.opset >= 11
        // Upsample and opset 10's Resize: (X, scales); from 11: (X, roi, scales, sizes); from 18 the axes attribute names which.
        let axes = try resizeAxes(b)
        let scalesIndex = modern ? 2 : 1
        var scales: [Double], sizes: [Int], fromScales = false
        if b.has(scalesIndex), case let given = try b.constant(scalesIndex, "the scales"), given.count > 0 {
            fromScales = true
            guard given.count == axes.count else { throw b.node.fail("scales \(given.values) do not have one value per axis \(axes)") }
            scales = [1, 1, 1, 1]
            for (axis, value) in zip(axes, given.values) { scales[axis] = value }
            guard scales.allSatisfy({ $0.isFinite && $0 > 0 && $0 <= 65536 }) else { throw b.node.fail("scales \(given.values) are not positive finite factors") }
            sizes = zip(dims, scales).map { Int((Double($0) * $1).rounded(.down)) }
        } else if modern, b.has(3) {
            let given = try b.constant(3, "the sizes").ints(b.node, "the sizes")
            guard given.count == axes.count else { throw b.node.fail("sizes \(given) do not have one value per axis \(axes)") }
            sizes = dims
            for (axis, value) in zip(axes, given) { sizes[axis] = value }
            guard sizes.allSatisfy({ $0 > 0 && $0 <= 1 << 20 }) else { throw b.node.fail("sizes \(given) are not positive sizes") }
            scales = zip(sizes, dims).map { Double($0) / Double($1) }
        } else {  // (Upsample's scales attribute predates opset 9, the oldest taken: its ledger refuses it.)
            throw b.node.fail("has neither scales nor sizes")
        }
        guard sizes[0] == dims[0], sizes[1] == dims[1], sizes[2] > 0, sizes[3] > 0 else {
            throw b.node.fail("only resizing H and W to sizes of at least 1 is supported, not \(dims) to \(sizes) (scales \(scales))")
        }
        let mode = b.node.string("mode") ?? "nearest"
        let transform = modern ? b.node.string("coordinate_transformation_mode") ?? "half_pixel" : "asymmetric"
        guard sizes[2] % dims[2] == 0, sizes[3] % dims[3] == 0 else {
            return try fractionalResize(b, x, mode: mode, transform: transform, sizes: sizes, scales: fromScales ? scales : nil)
        }
        let (h, w) = (sizes[2] / dims[2], sizes[3] / dims[3])
        switch mode {
        case "nearest":
            let rounding = modern ? b.node.string("nearest_mode") ?? "round_prefer_floor" : "floor"
            for axis in [2, 3] {
                if let refusal = try nearestRefusal(b, transform: transform, rounding: rounding, input: dims[axis], output: sizes[axis], scale: scales[axis]) {
                    throw b.node.fail(refusal)
                }
            }
            return b.single(.upsample(Upsample(scale: Size2(h, w))), x)
        case "linear", "bilinear":
            guard scales[2] == Double(h), scales[3] == Double(w) else {
                throw b.node.fail("scales \(scales) differ from the whole factors \([h, w]) of the sizes; linear resizing samples at the scale")
            }
            let alignment: Upsample.Alignment
            switch transform {
            case "align_corners": alignment = .alignCorners
            // pytorch_half_pixel differs from half_pixel only on an output axis of length 1 (never at a whole factor).
            case "half_pixel", "pytorch_half_pixel": alignment = .halfPixel
            case "asymmetric": alignment = .legacy
            case let other: throw b.node.fail("coordinate_transformation_mode \(other) is not supported with linear resizing")
            }
            return b.single(.upsample(Upsample(scale: Size2(h, w), mode: .bilinear, alignment: alignment)), x)
        default:
            throw b.node.fail("mode \(mode) is not supported (nearest and linear are)")
        }
    }

    /// The axes scales or sizes list (opset 18's `axes`, else all four).
    private static func resizeAxes(_ b: ONNXBuilder) throws -> [Int] {
        guard let listed = b.node.ints("axes") else { return [0, 1, 2, 3] }
        let axes = listed.map { $0 < 0 ? $0 + 4 : $0 }
        guard axes.allSatisfy({ (0..<4).contains($0) }), Set(axes).count == axes.count else { throw b.node.fail("axes \(listed) are not distinct axes of a rank-4 map") }
        return axes
    }

    /// nil when ONNX's nearest on this axis repeats each input pixel
    /// `output / input` times; else the clause naming the attribute that
    /// makes it pick other pixels.
    private static func nearestRefusal(_ b: ONNXBuilder, transform: String, rounding: String, input: Int, output: Int, scale: Double) throws -> String? {
        func repeats(_ rounding: String) throws -> Bool {
            let factor = output / input
            for index in 0..<output {
                guard let source = try nearestSource(b, transform: transform, rounding: rounding, index: index, input: input, output: output, scale: Float(scale)),
                      source == index / factor else { return false }
            }
            return true
        }
        if try repeats(rounding) { return nil }
        let axis = "an axis of \(input) resized to \(output)"
        if scale != Double(output / input) {
            return "scales \(scale) pick other pixels than repeating each pixel \(output / input) times on \(axis)"
        }
        if rounding != "round_prefer_floor", try repeats("round_prefer_floor") {
            return "nearest_mode '\(rounding)' with coordinate_transformation_mode '\(transform)' picks other pixels than repeating each pixel on \(axis)"
        }
        return "coordinate_transformation_mode '\(transform)' with nearest_mode '\(rounding)' picks other pixels than repeating each pixel on \(axis)"
    }

    /// The input index ONNX's nearest reads for output `index` (clamped), as onnxruntime computes it in float32.
    static func nearestSource(_ b: ONNXBuilder, transform: String, rounding: String, index: Int, input: Int, output: Int, scale: Float) throws -> Int? {
        let (x, inLength, outLength) = (Float(index), Float(input), Float(output))
        let original: Float
        switch transform {
        case "half_pixel": original = (x + 0.5) / scale - 0.5
        case "pytorch_half_pixel": original = outLength > 1 ? (x + 0.5) / scale - 0.5 : 0
        case "align_corners": original = outLength == 1 ? 0 : x * (inLength - 1) / (outLength - 1)
        case "asymmetric": original = x / scale
        case "tf_half_pixel_for_nn": original = (x + 0.5) / scale
        case "half_pixel_symmetric" where b.opset >= 19:
            let adjustment = outLength / (scale * inLength)
            original = inLength / 2 * (1 - adjustment) + (x + 0.5) / scale - 0.5
        default: throw b.node.fail("coordinate_transformation_mode \(transform) is not supported with nearest resizing")
        }
        guard original.isFinite else { return nil }
        let picked: Float
        switch rounding {
        case "round_prefer_floor": picked = original == original.rounded(.towardZero) + 0.5 ? original.rounded(.down) : original.rounded(.toNearestOrAwayFromZero)
        case "round_prefer_ceil": picked = original.rounded(.toNearestOrAwayFromZero)
        case "floor": picked = original.rounded(.down)
        case "ceil": picked = original.rounded(.up)
        default: throw b.node.fail("nearest_mode \(rounding) is not supported")
        }
        return min(max(Int(picked), 0), input - 1)
    }
}

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
/// Nearest resizing, other coordinate modes and shrinking have no Core ML
/// layer and are refused by name.
extension ONNXOpTable {
    static func fractionalResize(_ b: ONNXBuilder, _ x: ONNXTensor, mode: String, transform: String, sizes: [Int],
                                 scales: [Double]?) throws -> (nodes: [Node], value: ONNXValue) {
        let dims = x.dims
        let given = scales.map { "scales \(Array($0.suffix(2)))" } ?? "sizes \(Array(sizes.suffix(2)))"
        let resizing = "resizing \(dims[2])x\(dims[3]) to \(sizes[2])x\(sizes[3]) (\(given), not whole factors)"
        // Before opset 11 (and in Upsample) there is no coordinate_transformation_mode: the sampling is asymmetric.
        let sampling = b.node.op == "Resize" && b.opset >= 11 ? "coordinate_transformation_mode \(transform)" : "\(b.node.op)'s asymmetric sampling (opset \(b.opset))"
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
            guard let factor = upsampleFactor(input: dims[axis], output: sizes[axis]) else {
                throw b.node.fail("no float32 factor enlarges \(dims[axis]) to exactly \(sizes[axis]) on axis \(axis)")
            }
            factors.append(factor)
        }
        let upsample = Upsample(scale: Size2(square: 1), mode: .bilinear, alignment: alignment, fractionalScale: factors)
        return b.single(.upsample(upsample), x)
    }

    /// A float32 factor whose product with `input` floors to `output` in
    /// float32 and in double (however Core ML multiplies), at most 65536.
    private static func upsampleFactor(input: Int, output: Int) -> Float? {
        var factor = Float(output) / Float(input)
        for _ in 0..<4 {
            if factor <= 65536, Int((Float(input) * factor).rounded(.down)) == output, Int((Double(input) * Double(factor)).rounded(.down)) == output {
                return factor
            }
            factor = factor.nextUp
        }
        return nil
    }
}

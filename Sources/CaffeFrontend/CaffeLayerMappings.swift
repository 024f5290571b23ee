import Foundation
import ModelFormat
import CaffeSchema
import Protobuf

/// Activations, normalizations and element-wise layers.
extension CaffeLayerTable {
    static func relu(_ b: LayerBuilder) throws -> [Node] {
        let slope = b.layer.params.relu?.pointee.negative_slope ?? 0
        return [b.node(.activation(slope == 0 ? .relu : .leakyRelu(alpha: slope)), inputs: [b.input], output: b.output)]
    }

    static func prelu(_ b: LayerBuilder) throws -> [Node] {
        let shared = (b.layer.params.prelu?.pointee.channel_shared ?? 0) != 0
        let alpha = try b.blob(0, shape: [shared ? 1 : b.inputShape.channels], "slopes")
        return [b.node(.activation(.prelu(alpha: alpha)), inputs: [b.input], output: b.output)]
    }

    static func elu(_ b: LayerBuilder) throws -> [Node] {
        [b.node(.activation(.elu(alpha: b.layer.params.elu?.pointee.alpha ?? 1)), inputs: [b.input], output: b.output)]
    }

    /// y = (shift + scale * x) ^ power. Caffe's special case: when power *
    /// scale is 0 the output is the constant (power 0 ? 1 : shift^power),
    /// written as linear(0, constant): Core ML reads a unary layer's scale
    /// 0 as 1 (proto3's unset), which would give (shift + x)^power.
    static func power(_ b: LayerBuilder) throws -> [Node] {
        let p = b.layer.params.power?.pointee
        let (power, scale, shift) = (p?.power ?? 1, p?.scale ?? 1, p?.shift ?? 0)
        let op: Op
        if power * scale == 0 {
            let constant: Float = power == 0 ? 1 : Float(pow(Double(shift), Double(power)))
            guard constant.isFinite else { throw b.fail("scale \(scale) makes the constant shift^power = \(constant), not a finite number") }
            op = .activation(.linear(alpha: 0, beta: constant))
        } else {
            op = power == 1 ? .activation(.linear(alpha: scale, beta: shift))
                            : .unary(Unary(kind: .power, alpha: power, shift: shift, scale: scale))
        }
        return [b.node(op, inputs: [b.input], output: b.output)]
    }

    /// ACROSS_CHANNELS is Core ML's LRN. WITHIN_CHANNEL is Caffe's
    /// x * (1 + alpha * avgpool_nxn(x²))^-beta, built from five layers.
    static func lrn(_ b: LayerBuilder) throws -> [Node] {
        guard let p = b.layer.params.lrn?.pointee else { throw b.fail("has no lrn_param") }
        let size = Int(p.local_size)
        guard size > 0, size % 2 == 1 else { throw b.fail("local_size \(size) must be odd") }
        if p.norm_region == CAFFE__LRNPARAMETER__NORM_REGION__ACROSS_CHANNELS {
            return [b.node(.lrn(LRN(alpha: p.alpha, beta: p.beta, localSize: size, k: p.k)), inputs: [b.input], output: b.output)]
        }
        let half = (size - 1) / 2
        let squared = b.temporary("square"), pooled = b.temporary("pool"), scaled = b.temporary("scale"), factor = b.temporary("power")
        let pool = Pooling(kind: .average, kernel: Size2(square: size), stride: Size2(square: 1), padding: .explicit(Edges(all: half)))
        return [
            b.node(.multiply(constant: 1), inputs: [b.input, b.input], output: squared, suffix: "square"),
            b.node(.pooling(pool), inputs: [squared], output: pooled, suffix: "pool"),
            b.node(.activation(.linear(alpha: p.alpha, beta: 1)), inputs: [pooled], output: scaled, suffix: "scale"),
            b.node(.unary(Unary(kind: .power, alpha: -p.beta)), inputs: [scaled], output: factor, suffix: "power"),
            b.node(.multiply(constant: 1), inputs: [b.input, factor], output: b.output),
        ]
    }

    /// PROD and MAX map directly; SUM with coefficients scales each bottom first.
    static func eltwise(_ b: LayerBuilder) throws -> [Node] {
        try b.expectBottoms(2...Int.max)
        let p = b.layer.params.eltwise?.pointee
        let operation = p?.operation ?? CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__SUM
        if operation != CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__SUM, let p, p.n_coeff > 0 {
            throw b.fail("coeff is given for a product or maximum (Caffe takes coefficients for SUM only)")
        }
        switch operation {
        case CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__PROD:
            return [b.node(.multiply(constant: 1), inputs: b.inputs, output: b.output)]
        case CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__MAX:
            return [b.node(.maximum, inputs: b.inputs, output: b.output)]
        default:
            let coefficients = p.map { CArrays.array($0.coeff, $0.n_coeff) } ?? []
            guard coefficients.isEmpty || coefficients.count == b.inputs.count else {
                throw b.fail("\(coefficients.count) coefficients for \(b.inputs.count) bottoms")
            }
            var nodes: [Node] = []
            var terms = b.inputs
            for (index, coefficient) in coefficients.enumerated() where coefficient != 1 {
                let scaled = b.temporary("coeff\(index)")
                nodes.append(b.node(.multiply(constant: coefficient), inputs: [b.inputs[index]], output: scaled, suffix: "coeff\(index)"))
                terms[index] = scaled
            }
            return nodes + [b.node(.add(constant: 0), inputs: terms, output: b.output)]
        }
    }

    /// SSD's Normalize: L2 over channels at each pixel (or over everything
    /// with across_spatial), then a learned scale per channel (or shared).
    static func normalize(_ b: LayerBuilder) throws -> [Node] {
        let p = b.layer.params.normalize?.pointee
        let acrossSpatial = (p?.across_spatial ?? 1) != 0
        let shared = (p?.channel_shared ?? 1) != 0
        let eps = p?.eps ?? 1e-10
        let channels = b.inputShape.channels
        let scale = try b.blob(0, shape: [shared ? 1 : channels], "scale")
        let normalized = b.temporary("normalized")
        var nodes: [Node]
        if acrossSpatial {
            nodes = [b.node(.l2Normalize(epsilon: eps), inputs: [b.input], output: normalized, suffix: "l2")]
        } else {
            let squared = b.temporary("square"), sum = b.temporary("sum"), inverse = b.temporary("rsqrt")
            nodes = [
                b.node(.multiply(constant: 1), inputs: [b.input, b.input], output: squared, suffix: "square"),
                b.node(.reduce(Reduce(mode: .sum, axes: [-3])), inputs: [squared], output: sum, suffix: "sum"),
                b.node(.unary(Unary(kind: .rsqrt, epsilon: eps)), inputs: [sum], output: inverse, suffix: "rsqrt"),
                b.node(.multiply(constant: 1), inputs: [b.input, inverse], output: normalized, suffix: "normalize"),
            ]
        }
        nodes.append(b.node(.scale(Scale(shape: [scale.count], scale: scale)), inputs: [normalized], output: b.output))
        return nodes
    }
}

/// Layers that move values: flatten, reshape, slice, crop, permute.
extension CaffeLayerTable {
    static func flatten(_ b: LayerBuilder) throws -> [Node] {
        let p = b.layer.params.flatten?.pointee
        guard (p?.axis ?? 1) == 1 else { throw b.fail("axis \(p?.axis ?? 1) is not supported (only flattening C, H and W, axis 1 to the end, is)") }
        guard (p?.end_axis ?? -1) == -1 || (p?.end_axis ?? -1) == b.inputRanks[0] - 1 else {
            throw b.fail("end_axis \(p?.end_axis ?? -1) is not supported (only flattening C, H and W, axis 1 to the end, is)")
        }
        return [b.node(.flatten(.channelFirst), inputs: [b.input], output: b.output)]
    }

    /// `shape { dim: 0 dim: -1 ... }`: 0 copies the input's size, -1 takes
    /// what is left; the batch axis must stay 1.
    static func reshape(_ b: LayerBuilder) throws -> [Node] {
        guard let p = b.layer.params.reshape?.pointee, let shape = p.shape else { throw b.fail("has no reshape_param shape") }
        guard p.axis == 0, p.num_axes == -1 else { throw b.fail("partial reshapes (axis, num_axes) are not supported") }
        let input = [1, b.inputShape.channels, b.inputShape.height, b.inputShape.width]
        var dims = CArrays.array(shape.pointee.dim, shape.pointee.n_dim).map { Int($0) }
        for index in dims.indices where dims[index] == 0 {
            guard index < input.count else { throw b.fail("dim 0 at position \(index) copies nothing") }
            dims[index] = input[index]
        }
        do { dims = try TensorShape.reshapeTarget(dims, count: b.inputShape.count) } catch { throw b.fail(error.message) }
        guard dims.first == 1, dims.count >= 2, dims.count <= 4, dims.checkedProduct == b.inputShape.count else {
            throw b.fail("cannot reshape \(b.inputShape) (batch 1) to \(dims)")
        }
        let target = Array(dims.dropFirst()) + Array(repeating: 1, count: 4 - dims.count)
        return [b.node(.reshape(targetShape: target, order: .channelFirst), inputs: [b.input], output: b.output)]
    }

    /// Slices along channels, rows or columns at `slice_point`s, one Core
    /// ML slice per top.
    static func slice(_ b: LayerBuilder) throws -> [Node] {
        let p = b.layer.params.slice?.pointee
        if let p, p.has_axis != 0, p.has_slice_dim != 0 { throw b.fail("axis and slice_dim are both given (Caffe takes one)") }
        let axis = try b.axis(p.map { $0.has_axis != 0 ? Int($0.axis) : Int($0.slice_dim) } ?? 1)
        guard axis >= 1 else { throw b.fail("slicing along the batch axis is not supported") }
        let size = b.inputShape.dimensions[axis - 1]
        var points = p.map { CArrays.array($0.slice_point, $0.n_slice_point).map { Int($0) } } ?? []
        if points.isEmpty {
            guard size % b.outputs.count == 0 else { throw b.fail("axis \(axis) (\(size)) does not split into \(b.outputs.count) equal parts") }
            points = (1..<b.outputs.count).map { $0 * size / b.outputs.count }
        }
        let bounds = [0] + points + [size]
        guard points.count == b.outputs.count - 1, zip(bounds, bounds.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw b.fail("slice points \(points) do not split axis \(axis) (\(size)) into \(b.outputs.count) tops")
        }
        return b.outputs.enumerated().map { index, output in
            Node(name: b.outputs.count == 1 ? b.layer.name : "\(b.layer.name)__\(index)",
                 operation: .slice(Slice(axis: [.channel, .height, .width][axis - 1], start: bounds[index], end: bounds[index + 1])),
                 inputs: [b.input], outputs: [output])
        }
    }

    /// Crops the first bottom to the second's H and W (axis 2), at offsets.
    static func crop(_ b: LayerBuilder) throws -> [Node] {
        try b.expectBottoms(2...2)
        let p = b.layer.params.crop?.pointee
        guard (p?.axis ?? 2) == 2 else { throw b.fail("only spatial crops (axis 2) are supported") }
        let offsets = p.map { CArrays.array($0.offset, $0.n_offset).map { Int($0) } } ?? []
        guard offsets.count <= 2 else { throw b.fail("offset has \(offsets.count) values; a crop from axis 2 takes 1 or 2 (Caffe refuses more)") }
        let (top, left) = offsets.isEmpty ? (0, 0) : offsets.count == 1 ? (offsets[0], offsets[0]) : (offsets[0], offsets[1])
        let reference = b.inputShapes[1]
        guard top + reference.height <= b.inputShape.height, left + reference.width <= b.inputShape.width else {
            throw b.fail("cropping \(reference.height)x\(reference.width) at (\(top), \(left)) runs past the \(b.inputShape) input")
        }
        return [b.node(.crop(.like(offset: [top, left])), inputs: b.inputs, output: b.output)]
    }

    static func permute(_ b: LayerBuilder) throws -> [Node] {
        let order = b.layer.params.permute.map { CArrays.array($0.pointee.order, $0.pointee.n_order).map { Int($0) } } ?? []
        guard order.count == 4, order[0] == 0, order.sorted() == [0, 1, 2, 3] else {
            throw b.fail("permutation \(order) is not supported (the batch axis must stay first)")
        }
        return [b.node(.permute(axes: order), inputs: [b.input], output: b.output)]
    }
}

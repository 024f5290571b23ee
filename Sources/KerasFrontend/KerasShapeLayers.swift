import Foundation
import ModelFormat

/// Pooling, reshaping and merging layers.
extension KerasLayerTable {
    /// Keras's average pooling with `same` padding divides by the pixels inside the input.
    static func pooling(_ b: KerasBuilder, _ kind: Pooling.Kind) throws -> (nodes: [Node], rank: Int) {
        try b.requireChannelsLast()
        let size = try b.pair("pool_size", default: 2)
        // strides null (or absent) means the pool size.
        let stride = try b.optionalPair("strides") ?? size
        let pool = Pooling(kind: kind, kernel: size, stride: stride, padding: try b.padding(), excludePaddingFromAverage: kind == .average)
        return ([b.node(.pooling(pool), [b.input])], 4)
    }

    static func globalPooling(_ b: KerasBuilder, _ kind: Pooling.Kind) throws -> (nodes: [Node], rank: Int) {
        try b.requireChannelsLast()
        let pool = Pooling(kind: kind, kernel: Size2(square: 1), stride: Size2(square: 1), global: true)
        return ([b.node(.pooling(pool), [b.input])], (try b.bool("keepdims") ?? false) ? 4 : 2)
    }

    /// Flattens in H, W, C order, as Keras does on channels-last maps.
    /// With data_format channels_first Keras first moves axis 1 last: a
    /// map [A, B, C] (ours [C, A, B]) flattens in B, C, A order.
    static func flatten(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        switch try b.string("data_format") ?? "channels_last" {
        case "channels_last": return ([b.node(.flatten(.channelLast), [b.input])], 2)
        case "channels_first" where b.rank == 4:
            let moved = b.node(.permute(axes: [0, 3, 1, 2]), [b.input], suffix: "channels_last")
            return ([moved, b.node(.flatten(.channelFirst), moved.outputs)], 2)
        case "channels_first": return ([b.node(.flatten(.channelLast), [b.input])], 2)
        case let other: throw b.fail("data_format '\(other)' is not supported")
        }
    }

    static func reshape(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        let target: [Int]
        let given = b.config["target_shape"]
        guard let list = given as? [Any], let sizes = Optional(list.compactMap(KerasBuilder.integer)), sizes.count == list.count,
              sizes.allSatisfy({ $0 == -1 || $0 >= 1 }) else {
            throw b.fail("cannot reshape to target_shape \(given.map { KerasLayerLedgers.render($0) } ?? "null"), not a list of sizes (or one -1)")
        }
        do {
            target = try TensorShape.reshapeTarget(sizes, count: b.shape.count)
        } catch {
            throw b.fail("target_shape \(KerasLayerLedgers.render(list)) does not fit \(b.shape.count) values (\(error.message))")
        }
        switch target.count {
        case 1: return ([b.node(.flatten(.channelLast), [b.input])], 2)
        // (W, C) is kept as a map of height 1: the values stay in Keras's order.
        case 2: return ([b.node(.reshape(targetShape: [target[1], 1, target[0]], order: .channelLast), [b.input])], 4)
        case 3: return ([b.node(.reshape(targetShape: [target[2], target[0], target[1]], order: .channelLast), [b.input])], 4)
        default: throw b.fail("target_shape \(KerasLayerLedgers.render(list)) is rank \(target.count + 1), which is not supported")
        }
    }

    /// `dims` (1-based over H, W, C) as a permutation of Core ML's [Seq, C, H, W].
    static func permute(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        let dims = (b.config["dims"] as? [Int]) ?? []
        guard dims.sorted() == [1, 2, 3] else { throw b.fail("permutation \(dims) is not supported") }
        let coreML = [1: 2, 2: 3, 3: 1]  // H, W, C -> Core ML axes
        return ([b.node(.permute(axes: [0, coreML[dims[2]]!, coreML[dims[0]]!, coreML[dims[1]]!]), [b.input])], 4)
    }

    /// `((top, bottom), (left, right))`, or one int, or (rows, columns).
    static func edges(_ b: KerasBuilder, _ key: String) throws -> Edges {
        let value = b.config[key] ?? NSNull()
        let ints = { (list: Any) in (list as? [Any])?.compactMap(KerasBuilder.integer) }
        let edges: Edges
        if let single = KerasBuilder.integer(value) {
            edges = Edges(all: single)
        } else if let pairs = (value as? [Any])?.compactMap(ints), pairs.count == 2, pairs.allSatisfy({ $0.count == 2 }) {
            edges = Edges(top: pairs[0][0], bottom: pairs[0][1], left: pairs[1][0], right: pairs[1][1])
        } else if let pair = ints(value), pair.count == 2, (value as? [Any])?.count == 2 {
            edges = Edges(top: pair[0], bottom: pair[0], left: pair[1], right: pair[1])
        } else {
            throw b.fail("\(key) \(KerasLayerLedgers.render(value)) is not one integer, two, or two pairs")
        }
        let limit = ShapeInference.maximumSize
        if let bad = [edges.top, edges.bottom, edges.left, edges.right].first(where: { !(0...limit).contains($0) }) {
            throw b.fail("\(key == "cropping" ? "crop amount" : key) \(bad) is out of range (0...\(limit)) in \(key) \(KerasLayerLedgers.render(value))")
        }
        return edges
    }

    static func zeroPadding(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        ([b.node(.padding(Padding(kind: .constant(0), edges: try edges(b, "padding"))), [b.input])], 4)
    }

    static func cropping(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        let edges = try edges(b, "cropping")
        guard [edges.top, edges.bottom, edges.left, edges.right].allSatisfy({ $0 >= 0 }),
              edges.top < b.shape.height - edges.bottom, edges.left < b.shape.width - edges.right else {
            throw b.fail("cropping \(KerasLayerLedgers.render(b.config["cropping"] ?? NSNull())) leaves nothing of the "
                         + "\(b.shape.height)x\(b.shape.width) input, or is negative")
        }
        return ([b.node(.crop(.edges(edges)), [b.input])], 4)
    }

    /// Nearest, or bilinear with half-pixel centers as Keras samples
    /// (Core ML specification 5, iOS 14).
    static func upsampling(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        let scale = try b.pair("size", default: 2)
        switch try b.string("interpolation") ?? "nearest" {
        case "nearest": return ([b.node(.upsample(Upsample(scale: scale)), [b.input])], 4)
        case "bilinear": return ([b.node(.upsample(Upsample(scale: scale, mode: .bilinear, alignment: .halfPixel)), [b.input])], 4)
        case let other: throw b.fail("interpolation '\(other)' is not supported (nearest and bilinear are)")
        }
    }

    /// Along channels, or along H or W of maps: that axis is swapped with
    /// C around Core ML's channel concat (Permute layers, iOS 11).
    static func concatenate(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        let raw = try b.int("axis") ?? -1
        let axis = raw < 0 ? raw + b.rank : raw
        guard Set(b.ranks).count == 1 else { throw b.fail("its inputs have different ranks \(b.ranks.map { $0 - 1 })") }
        if axis == b.rank - 1 { return ([b.node(.concat, b.layer.inputs)], b.rank) }
        guard b.rank == 4, axis == 1 || axis == 2 else { throw b.fail("concatenation along axis \(raw) of rank-\(b.rank) tensors is not supported") }
        // Keras's H and W (axes 1, 2) are Core ML's axes 2 and 3 of [N, C, H, W].
        let swap = Op.permute(axes: axis == 1 ? [0, 2, 1, 3] : [0, 3, 2, 1])
        let swapped = b.layer.inputs.enumerated().map { index, input in b.node(swap, [input], suffix: "swap\(index)") }
        let joined = b.node(.concat, swapped.map { $0.outputs[0] }, suffix: "concat")
        return (swapped + [joined, b.node(swap, joined.outputs)], 4)
    }

    static func merge(_ b: KerasBuilder, _ op: Op) throws -> (nodes: [Node], rank: Int) {
        if let constant = try scalarOperand(b) {
            // Keras 3's `x + 3.0` and `x * (1 / 6)` (MobileNetV3's hard sigmoid).
            switch op {
            case .add: return ([b.node(.add(constant: constant), b.layer.inputs)], b.rank)
            case .multiply: return ([b.node(.multiply(constant: constant), b.layer.inputs)], b.rank)
            default: throw b.fail("a \(b.layer.className) of a tensor and a number is not supported")
            }
        }
        guard b.layer.inputs.count >= 2 else { throw b.fail("needs at least two inputs") }
        return ([b.node(op, b.layer.inputs)], b.ranks.max() ?? 4)
    }

    /// The number of a call with one tensor and one number, as a Float.
    static func scalarOperand(_ b: KerasBuilder) throws -> Float? {
        guard !b.layer.numbers.isEmpty else { return nil }
        guard b.layer.inputs.count == 1, b.layer.numbers.count == 1, let value = b.layer.numbers.first else {
            throw b.fail("takes \(b.layer.inputs.count) tensors and \(b.layer.numbers.count) numbers; one of each is supported")
        }
        guard let number = KerasBuilder.float(value) else { throw b.fail("the number \(value) is not a finite float") }
        return number
    }

    static func subtract(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        if let constant = try scalarOperand(b) {
            // x - c, or c - x.
            guard b.layer.numberFirst else { return ([b.node(.add(constant: -constant), b.layer.inputs)], b.rank) }
            let negated = b.node(.multiply(constant: -1), b.layer.inputs, suffix: "negate")
            return ([negated, b.node(.add(constant: constant), negated.outputs)], b.rank)
        }
        guard b.layer.inputs.count == 2 else { throw b.fail("needs exactly two inputs") }
        let negated = b.node(.multiply(constant: -1), [b.layer.inputs[1]], suffix: "negate")
        return ([negated, b.node(.add(constant: 0), [b.layer.inputs[0], negated.outputs[0]])], b.ranks.max() ?? 4)
    }
}

import Conversion
import ModelFormat

/// Ops on [N, H, W, C] maps that Keras layers freeze to: transposed
/// convolutions, resizing, mirror padding, max over H and W, transposes.
extension TFOpTable {
    /// Conv2DBackpropInput(input_sizes, filter [kH, kW, Cout, Cin], x): a
    /// deconvolution to the stated size (Conv2DTranspose).
    static func transposedConvolution(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let sizes = try b.constant(0, "the output size").ints(b.node, "the output size")
        let filter = try b.constant(1, "the filter")
        let x = try b.tensor(2)
        guard filter.shape.count == 4, filter.shape[3] == x.shape.channels, filter.shape.checkedProduct == filter.count, filter.count > 0 else {
            throw b.node.fail("filter shape \(filter.shape) is not [kH, kW, Cout, \(x.shape.channels)]")
        }
        let (kh, kw, cout, cin) = (filter.shape[0], filter.shape[1], filter.shape[2], filter.shape[3])
        guard sizes.count == 4, sizes[0] == 1, sizes[3] == cout, sizes[1] > 0, sizes[2] > 0 else {
            throw b.node.fail("output size \(sizes) is not [1, H, W, \(cout)]")
        }
        let kernel = Size2(kh, kw), stride = try b.spatial("strides", default: 1)
        let weights = filter.weights { NHWCLayout.deconvolution(kh: kh, kw: kw, cout: cout, cin: cin, from: $0) }
        let conv = Convolution(outputChannels: cout, kernelChannels: cin, kernel: kernel, stride: stride,
                               padding: try b.padding(kernel: kernel), isDeconvolution: true, outputShape: [sizes[1], sizes[2]],
                               weights: weights)
        return ([b.emit(.convolution(conv), [x.name])], .tensor(name: b.name, rank: 4))
    }

    /// SpaceToDepth (YOLOv2's passthrough as TensorFlow graphs hold it):
    /// `SpaceToDepth.steps`, the TF node's name on the last.
    static func spaceToDepth(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let block = b.node.int("block_size") ?? 0
        guard x.rank == 4, let steps = SpaceToDepth.steps(channels: x.shape.channels, height: x.shape.height, width: x.shape.width, block: block) else {
            throw b.node.fail("block_size \(block) does not divide the \(x.shape.height)x\(x.shape.width) map")
        }
        var input = x.name
        let nodes = steps.enumerated().map { index, step in
            let node = b.emit(step, [input], suffix: index == steps.count - 1 ? nil : "step\(index)")
            input = node.outputs[0]
            return node
        }
        return (nodes, .tensor(name: b.name, rank: 4))
    }

    /// ResizeNearestNeighbor to whole multiples of the input (UpSampling2D):
    /// each pixel repeated, with or without half-pixel centers (the same for
    /// whole factors); align_corners samples other pixels and is refused.
    static func resizeNearest(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let (x, scale) = try wholeMultipleResize(b)
        guard b.node.bool("align_corners") != true else { throw b.node.fail("align_corners is not supported") }
        return ([b.emit(.upsample(Upsample(scale: scale)), [x.name])], .tensor(name: b.name, rank: 4))
    }

    /// A resize's map and its size as whole factors of the map's H and W.
    static func wholeMultipleResize(_ b: TFBuilder) throws -> (x: (name: String, rank: Int, shape: TensorShape), scale: Size2) {
        let x = try b.tensor(0)
        let size = try b.constant(1, "the size").ints(b.node, "the size")
        guard x.rank == 4, size.count == 2, size[0] > 0, size[1] > 0, size[0] % x.shape.height == 0, size[1] % x.shape.width == 0 else {
            throw b.node.fail("only resizing to whole multiples of the \(x.shape.height)x\(x.shape.width) input is supported, not \(size)")
        }
        return (x, Size2(size[0] / x.shape.height, size[1] / x.shape.width))
    }

    /// ResizeBilinear to whole multiples of the input: Core ML's bilinear
    /// upsampling on the grid TensorFlow's flags choose (half-pixel centers
    /// or aligned corners: specification 5).
    static func resizeBilinear(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let (x, scale) = try wholeMultipleResize(b)
        let alignCorners = b.node.bool("align_corners") == true, halfPixel = b.node.bool("half_pixel_centers") == true
        guard !(alignCorners && halfPixel) else { throw b.node.fail("align_corners and half_pixel_centers together are not a TensorFlow resize") }
        let upsample = Upsample(scale: scale, mode: .bilinear,
                                alignment: alignCorners ? .alignCorners : halfPixel ? .halfPixel : .legacy)
        return ([b.emit(.upsample(upsample), [x.name])], .tensor(name: b.name, rank: 4))
    }

    /// MirrorPad REFLECT of H and W: Core ML's reflection padding.
    /// SYMMETRIC repeats the edge pixel, which Core ML's reflection does not.
    static func mirrorPad(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let p = try b.constant(1, "the paddings").ints(b.node, "the paddings")
        guard b.node.string("mode") == "REFLECT" else { throw b.node.fail("mode \(b.node.string("mode") ?? "?") is not supported (only REFLECT)") }
        guard x.rank == 4, p.count == 8, p[0] == 0, p[1] == 0, p[6] == 0, p[7] == 0 else {
            throw b.node.fail("only padding of H and W is supported, paddings \(p)")
        }
        guard p[2] < x.shape.height, p[3] < x.shape.height, p[4] < x.shape.width, p[5] < x.shape.width else {
            throw b.node.fail("reflecting \(p) needs more than the \(x.shape.height)x\(x.shape.width) input has")
        }
        let padding = Padding(kind: .reflection, edges: Edges(top: p[2], bottom: p[3], left: p[4], right: p[5]))
        return ([b.emit(.padding(padding), [x.name])], .tensor(name: b.name, rank: 4))
    }

    /// A reduction over H and W (Mean, Max): a global pooling, dimensions kept or not.
    static func globalPool(_ b: TFBuilder, _ input: String, _ kind: Pooling.Kind) -> (nodes: [Node], value: GraphValue) {
        let pool = Pooling(kind: kind, kernel: Size2(square: 1), stride: Size2(square: 1), global: true)
        let keep = b.node.bool("keep_dims") ?? false
        return ([b.emit(.pooling(pool), [input])], .tensor(name: b.name, rank: keep ? 4 : 2))
    }

    /// Transpose of [N, H, W, C] keeping N first: Core ML's permute of
    /// [C, H, W] (Keras's Permute layer).
    static func transpose(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let perm = try b.constant(1, "the permutation").ints(b.node, "the permutation")
        guard x.rank == 4, perm.count == 4, perm[0] == 0, perm.sorted() == [0, 1, 2, 3] else {
            throw b.node.fail("only permutations of H, W and C with the batch axis first are supported, not \(perm)")
        }
        // TensorFlow's axes 1, 2, 3 (H, W, C) are Core ML's 2, 3, 1; output axis i takes input axis perm[i].
        let coreML = [1: 2, 2: 3, 3: 1]
        return ([b.emit(.permute(axes: [0, coreML[perm[3]]!, coreML[perm[1]]!, coreML[perm[2]]!]), [x.name])], .tensor(name: b.name, rank: 4))
    }

    /// `_Repeat` (see `TFGraph.fuseRepeats`): x [1, H, W, C] expanded at
    /// axis 2 or 3, tiled k times there, reshaped to [1, k H, W, C] or
    /// [1, H, k W, C]: each row or column repeated, a nearest upsampling.
    /// Anything else the three ops might do is refused.
    static func repeatAlongAxis(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let axes = try b.constant(1, "the expanded axis").ints(b.node, "the expanded axis")
        let multiples = try b.constant(2, "the multiples").ints(b.node, "the multiples")
        let target = try b.constant(3, "the shape").ints(b.node, "the shape")
        guard x.rank == 4, axes.count == 1, axes[0] == 2 || axes[0] == 3, multiples.count == 5,
              multiples.enumerated().allSatisfy({ $0.offset == axes[0] ? (1...ShapeInference.maximumSize).contains($0.element) : $0.element == 1 }) else {
            throw b.node.fail("ExpandDims at \(axes) and Tile by \(multiples) of a rank-\(x.rank) tensor: only the repeat of rows "
                              + "or columns of a map is supported")
        }
        let count = multiples[axes[0]]
        let scale = axes[0] == 2 ? Size2(count, 1) : Size2(1, count)
        let expected = [1, x.shape.height * scale.height, x.shape.width * scale.width, x.shape.channels]
        guard target == expected || (target.first == -1 && Array(target.dropFirst()) == Array(expected.dropFirst())) else {
            throw b.node.fail("repeats a \(x.shape) map \(count) times, then reshapes it to \(target), not \(expected)")
        }
        return ([b.emit(.upsample(Upsample(scale: scale)), [x.name])], .tensor(name: b.name, rank: 4))
    }

    /// Ops whose later outputs the model uses: each returns the value of
    /// every output.
    typealias MultipleOutputMapping = @Sendable (TFBuilder) throws -> (nodes: [Node], values: [GraphValue])
    static let multipleOutputMappings: [String: MultipleOutputMapping] = [
        "Split": split, "SplitV": split,
        // Each output its input (Keras 3's swish freezes to one; an inlined call of several outputs becomes one).
        "IdentityN": { b in ([], b.inputs) },
    ]

    /// Split (equal parts: split_dim, value, num_split) and SplitV (value,
    /// sizes with at most one -1, split_dim) of a map along H, W or C, or of
    /// a vector: one Core ML slice per part, named `node`, `node__1`, ...
    static func split(_ b: TFBuilder) throws -> (nodes: [Node], values: [GraphValue]) {
        let equal = b.node.op == "Split"
        let x = try b.tensor(equal ? 1 : 0)
        var axis = try b.constant(equal ? 0 : 2, "the axis").ints(b.node, "the axis").first ?? 0
        if axis < 0 { axis += x.rank }
        let kinds: [Int: Slice.Axis] = x.rank == 4 ? [1: .height, 2: .width, 3: .channel] : [1: .channel]
        guard let kind = kinds[axis] else { throw b.node.fail("only splits along H, W or C of a map, or of a vector, are supported, not axis \(axis)") }
        let size = kind == .height ? x.shape.height : kind == .width ? x.shape.width : x.shape.channels
        var sizes: [Int]
        if equal {
            let parts = b.node.int("num_split") ?? 0
            guard parts > 0, size % parts == 0 else { throw b.node.fail("\(size) does not split into \(parts) equal parts") }
            sizes = Array(repeating: size / parts, count: parts)
        } else {
            sizes = try b.constant(1, "the sizes").ints(b.node, "the sizes")
            if let parts = b.node.int("num_split"), parts != sizes.count {
                throw b.node.fail("num_split \(parts) is not the \(sizes.count) sizes given")
            }
            // Each in 1...size (or one -1) before any sum: 1,024 sizes of 2^53 would overflow one.
            guard sizes.count <= size, sizes.allSatisfy({ $0 == -1 || (1...size).contains($0) }) else {
                throw b.node.fail("sizes \(sizes) do not split \(size)")
            }
            let unknown = sizes.indices.filter { sizes[$0] == -1 }
            let known = sizes.filter { $0 != -1 }.reduce(0, +)
            if unknown.count == 1, known < size { sizes[unknown[0]] = size - known }
            guard !sizes.isEmpty, sizes.allSatisfy({ $0 > 0 }), sizes.reduce(0, +) == size else {
                throw b.node.fail("sizes \(sizes) do not split \(size)")
            }
        }
        var nodes: [Node] = [], values: [GraphValue] = [], start = 0
        for (part, length) in sizes.enumerated() {
            let name = part == 0 ? b.name : "\(b.name)__\(part)"
            nodes.append(Node(name: name, operation: .slice(Slice(axis: kind, start: start, end: start + length)), inputs: [x.name], outputs: [name]))
            values.append(.tensor(name: name, rank: x.rank))
            start += length
        }
        return (nodes, values)
    }
}

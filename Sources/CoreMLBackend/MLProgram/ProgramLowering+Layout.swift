import ModelFormat

/// Padding, cropping, permuting and the elementwise maximum, minimum and
/// average, as coremltools' iOS15 op definitions state them: `pad` with
/// `[top, bottom, left, right]` for the last two axes and mode constant,
/// reflect or replicate; `crop` with `crop_height` [top, bottom] and
/// `crop_width` [left, right] (also a crop to another input's size: the edges
/// it leaves); `transpose` by the IR's axes (over the map's
/// `[1, C, H, W]`); `maximum` and `minimum` over pairs; the average as the
/// sum times 1/n.
extension ProgramLowering {
    func padding(_ padding: Padding, _ input: String, node: Node, shape: [Int]) -> String {
        let name = node.name, edges = padding.edges
        var arguments: [(String, [String])] = [
            ("x", [input]),
            ("pad", [program.constant(name + "_pad", .ints([edges.top, edges.bottom, edges.left, edges.right].map { Int32($0) }), shape: [4])]),
        ]
        switch padding.kind {
        case .constant(let value):
            arguments += [("mode", [program.constant(name + "_mode", .strings(["constant"]))]),
                          ("constant_val", [program.constant(name + "_constant_val", .floats([value]))])]
        case .reflection: arguments.append(("mode", [program.constant(name + "_mode", .strings(["reflect"]))]))
        case .replication: arguments.append(("mode", [program.constant(name + "_mode", .strings(["replicate"]))]))
        }
        return program.operation("pad", name, arguments, shape: shape)
    }

    func crop(_ crop: Crop, _ input: String, node: Node, shape: [Int]) throws -> String {
        let edges: Edges
        switch crop {
        case .edges(let given): edges = given
        case .like(let offset):
            // To the second input's H and W (the output's): the same fixed edges, that input not read.
            let source = self.shape(of: node.inputs[0]), (top, left) = offset.count == 2 ? (offset[0], offset[1]) : (0, 0)
            edges = Edges(top: top, bottom: source[2] - shape[2] - top, left: left, right: source[3] - shape[3] - left)
        }
        let name = node.name
        return program.operation("crop", name, [
            "x": input,
            "crop_height": program.constant(name + "_crop_height", .ints([Int32(edges.top), Int32(edges.bottom)]), shape: [2]),
            "crop_width": program.constant(name + "_crop_width", .ints([Int32(edges.left), Int32(edges.right)]), shape: [2]),
        ], shape: shape)
    }

    /// A transpose of a map: of [1, C, H, W] with the batch axis first.
    func permute(_ axes: [Int], _ input: String, node: Node, shape: [Int]) throws -> String {
        guard axes.count == 3 else { throw refusal(node, "a transpose of \(axes.count) axes") }
        let perm = [0] + axes.map { $0 + 1 }
        return program.operation("transpose", node.name, ["x": input, "perm": program.constant(node.name + "_perm", .ints(perm.map { Int32($0) }), shape: [4])],
                                 shape: shape)
    }

    /// `op` ("add", "mul", "maximum", "minimum") over the inputs in turn, the last one named `name`.
    func pairwise(_ op: String, _ inputs: [String], name: String, shape: [Int]) -> String {
        var current = inputs[0]
        for (index, term) in inputs.dropFirst().enumerated() {
            current = program.operation(op, index == inputs.count - 2 ? name : "\(name)_\(index)", ["x": current, "y": term], shape: shape)
        }
        return current
    }

    func average(_ inputs: [String], name: String, shape: [Int]) -> String {
        let sum = pairwise("add", inputs, name: name + "_sum", shape: shape)
        return program.operation("mul", name, ["x": sum, "y": program.constant(name + "_reciprocal", .floats([1 / Float(inputs.count)]))], shape: shape)
    }
}

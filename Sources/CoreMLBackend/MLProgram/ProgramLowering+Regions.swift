import ModelFormat

/// A map model's slices along one axis and its constants (the box decoding
/// of the Darknet and Caffe SSD detectors: grid offsets, anchors, priors),
/// as coremltools' iOS15 `slice_by_index` and `const` state them:
///
///     slice (axis, start, end, stride) of [C, H, W]   ->  slice_by_index of [1, C, H, W]: begin, end, stride on 4 axes
///     constant [C, H, W] (or [C], or a shape with the same values)  ->  const [1, C, H, W]
///
/// The slice's Python-like bounds (`Slice.length(of:)`: a negative index
/// counts from the axis' end, an end past it is clamped) are resolved to
/// the absolute begin and end the program states.
extension ProgramLowering {
    func slice(_ slice: Slice, _ input: String, node: Node, shape: [Int]) throws -> String {
        let source = self.shape(of: node.inputs[0])
        let axis = switch slice.axis {
        case .channel: 1
        case .height: 2
        case .width: 3
        }
        let size = source[axis]
        let first = min(max(slice.start < 0 ? size + slice.start : slice.start, 0), size)
        let count = slice.length(of: size)
        guard count > 0, shape[axis] == count else { throw refusal(node, "a slice taking no element") }
        var begin = [0, 0, 0, 0], end = source, stride = [1, 1, 1, 1]
        begin[axis] = first
        end[axis] = first + (count - 1) * slice.stride + 1
        stride[axis] = slice.stride
        let name = node.name
        return program.operation("slice_by_index", name, [
            "x": input, "begin": program.constant(name + "_begin", .ints(begin.map { Int32($0) }), shape: [4]),
            "end": program.constant(name + "_end", .ints(end.map { Int32($0) }), shape: [4]),
            "stride": program.constant(name + "_stride", .ints(stride.map { Int32($0) }), shape: [4]),
        ], shape: shape)
    }

    /// The constant's values as the map `shape` ([1, C, H, W]) they are in the IR.
    func mapConstant(_ constant: Constant, node: Node, shape: [Int]) throws -> String {
        guard constant.shape.checkedProduct == shape.checkedProduct else { throw refusal(node, "a constant shaped \(constant.shape) in a map model") }
        return program.constant(node.name, constant.data, shape: shape)
    }
}

extension ProgramRaising {
    /// A map program's `slice_by_index` (`ProgramLowering.slice`): along
    /// one axis of [1, C, H, W], as the IR's slice of that axis.
    mutating func mapSlice(_ operation: UnsafeMutablePointer<MILOperation>, name: String) throws -> Op {
        let begin = try ints(operation, "begin"), end = try ints(operation, "end")
        let stride = try constant(operation, "stride")?.ints ?? [1, 1, 1, 1]
        let source = boundName(operation, "x").flatMap { programShapes[$0] } ?? []
        for mask in ["begin_mask", "end_mask", "squeeze_mask"] where try constant(operation, mask)?.bools.contains(true) == true {
            throw fail("slice_by_index '\(name)' has a \(mask), which is not read yet", operation)
        }
        let sliced = (1..<4).filter { begin.count == 4 && end.count == 4 && source.count == 4 && (begin[$0] != 0 || end[$0] != source[$0] || stride[$0] != 1) }
        guard begin.count == 4, end.count == 4, stride.count == 4, source.count == 4, begin[0] == 0, stride.allSatisfy({ $0 > 0 }), sliced.count <= 1 else {
            throw fail("slice_by_index '\(name)' does not slice one axis of a map", operation)
        }
        let axis = sliced.first ?? 1
        let kinds: [Int: Slice.Axis] = [1: .channel, 2: .height, 3: .width]
        return .slice(Slice(axis: kinds[axis]!, start: begin[axis], end: end[axis], stride: stride[axis]))
    }
}

import ModelFormat
import CoreMLSchema
import Protobuf

/// The operations `ProgramLowering+Maps` writes on a map's `[1, C, H, W]`
/// view, back as the IR's: `layer_norm` over axis 1 (read as a tensor
/// program's, `raiseTensor`: a layer norm over the channels, axis -3), a
/// reduction over axes of the map other than a global pooling (axes counted
/// from the end of its `[C, H, W]`), `slice_by_index` along one axis,
/// `split` into equal parts along the channels. (A
/// reshape in H, W, C order reads back as its transpose, reshape and
/// transpose: the same values.)
extension ProgramRaising {
    /// Raises `operation` when it is one of the forms above in a program of maps; false for any other.
    mutating func raiseMap(_ operation: UnsafeMutablePointer<MILOperation>, type: String, name: String, shape: [Int]) throws -> Bool {
        switch type {
        case "layer_norm":
            return try raiseTensor(operation, type: type, name: name, shape: shape)
        case let type where Self.reductionModes[type] != nil:
            let axes = try ints(operation, "axes")
            // A global pooling (`ProgramLowering.pooling`) is read by `raise`.
            guard axes != [2, 3] || (type != "reduce_mean" && type != "reduce_max") else { return false }
            guard try bool(operation, "keep_dims"), !axes.isEmpty, axes.allSatisfy({ (1...3).contains($0) }) else {
                throw fail("\(type) '\(name)' does not reduce a map's axes keeping them", operation)
            }
            append(name, .reduce(Reduce(mode: Self.reductionModes[type]!, axes: axes.map { $0 - 4 })), [try tensor(operation, "x")])
        case "split":
            // Equal parts along the channels, as `ProgramLowering` writes a Split (each output its own value).
            let outputs = CArrays.buffer(operation.pointee.outputs, operation.pointee.n_outputs)
            guard try ints(operation, "axis") == [1], outputs.count >= 2, try constant(operation, "split_sizes") == nil,
                  try ints(operation, "num_splits") == [outputs.count] else {
                throw fail("split '\(name)' is not into equal parts along the channels, one output each", operation)
            }
            var names: [String] = []
            for case let output? in outputs {
                let part = CArrays.string(output.pointee.name)
                if let type = output.pointee.type { programShapes[part] = try self.shape(of: type) }
                values[part] = .tensor(part)
                names.append(part)
            }
            nodes.append(Node(name: name, operation: .split, inputs: [try tensor(operation, "x")], outputs: names))
        case "slice_by_index":
            let begin = try ints(operation, "begin"), end = try ints(operation, "end")
            let stride = try constant(operation, "stride")?.ints ?? [1, 1, 1, 1]
            let x = try tensor(operation, "x")
            let source = sourceShape(operation, tensor: x)
            for mask in ["begin_mask", "end_mask", "squeeze_mask"] where try constant(operation, mask)?.bools.contains(true) == true {
                throw fail("slice_by_index '\(name)' has a \(mask), which is not read yet", operation)
            }
            guard begin.count == 4, end.count == 4, stride.count == 4, source.count == 4 else { throw fail("slice_by_index '\(name)' does not slice a map", operation) }
            let cut = (1...3).filter { begin[$0] != 0 || end[$0] != source[$0] || stride[$0] != 1 }
            guard begin[0] == 0, end[0] == 1, stride[0] == 1, cut.count <= 1 else {
                throw fail("slice_by_index '\(name)' slices more than one axis of a map", operation)
            }
            let axis = cut.first ?? 1
            let axes: [Int: Slice.Axis] = [1: .channel, 2: .height, 3: .width]
            append(name, .slice(Slice(axis: axes[axis]!, start: begin[axis], end: end[axis], stride: stride[axis])), [x])
        default:
            return false
        }
        return true
    }

    /// Each reduction `ProgramLowering` writes, by its MIL type.
    static let reductionModes = Dictionary(uniqueKeysWithValues: ProgramLowering.reductions.map { ($1, $0) })

    /// A node making the value `name`.
    mutating func append(_ name: String, _ op: Op, _ inputs: [String]) {
        nodes.append(Node(name: name, operation: op, inputs: inputs, outputs: [name]))
        values[name] = .tensor(name)
    }
}

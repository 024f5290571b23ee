import ModelFormat
import CoreMLSchema

/// The log-softmax `ProgramLowering.logSoftmax` writes, back as one
/// `LogSoftmax` node: `offset = sub(x, m)` of `m = reduce_max(x)` along one
/// axis (the Reduce node `m` was read as is dropped), `s =
/// reduce_log_sum_exp(offset)` along the same axis, then `sub(offset, s)`;
/// each kept (`keep_dims`) and read by nothing else. MIL's `sub` is read in
/// this form only: the IR has no subtraction of its own.
struct LogSoftmaxParts {
    /// An offset's input `x` and the IR's axis.
    var offsets: [String: (x: String, axis: Int)] = [:]
    /// A log-sum-exp's offset.
    var sums: [String: String] = [:]
}

extension ProgramRaising {
    mutating func raiseLogSoftmaxPart(_ operation: UnsafeMutablePointer<MILOperation>, type: String, name: String) throws {
        let x = try tensor(operation, "x")
        if type == "reduce_log_sum_exp" {
            guard let offset = logSoftmaxParts.offsets[x], try bool(operation, "keep_dims"), try ints(operation, "axes").count == 1, irAxis(try ints(operation, "axes")[0]) == offset.axis,
                  readers[name, default: 0] == 1 else {
                throw fail("reduce_log_sum_exp '\(name)' is not part of a log-softmax (of x less its maximum along the same axis)", operation)
            }
            logSoftmaxParts.sums[name] = x
            values[name] = .tensor(name)  // read only by the last sub
            return
        }
        let y = try tensor(operation, "y")
        if logSoftmaxParts.sums[y] == x, let offset = logSoftmaxParts.offsets[x] {
            append(name, .defined(LogSoftmax(axis: offset.axis)), [offset.x])
            return
        }
        guard let index = nodes.lastIndex(where: { $0.outputs == [y] }), nodes[index].inputs == [x], case .defined(let op) = nodes[index].operation,
              let largest = op.definition as? Reduce, largest.mode == .max, largest.keepDimensions, largest.axes.count == 1,
              readers[y, default: 0] == 1, readers[name, default: 0] == 2 else {
            throw fail("sub '\(name)' is not part of a log-softmax (x less its maximum, less the log-sum-exp of that)", operation)
        }
        nodes.remove(at: index)
        logSoftmaxParts.offsets[name] = (x, largest.axes[0])
        values[name] = .tensor(name)  // read only by the log-sum-exp and the last sub
    }
}

import ModelFormat
import CoreMLSchema
import Protobuf

/// Log-softmax, which Core ML's NeuralNetwork has no layer for, as two
/// specification-4 layers:
///
///     x -> reduceLogSumExp(axes [axis], keepDims) -> <name>__logsumexp
///     [x, <name>__logsumexp] -> subtractBroadcastable -> y
///
/// the second keeping the node's name and output. `x - logsumexp(x)` is
/// finite for a value far below the largest of its line, where
/// softmaxND followed by a unary log underflows to log(0) = -inf (below
/// about -104 from the largest in float32). On a [C, H, W] map, written
/// with a batch axis, the axis counts from the end (`keepsShape`); below
/// version 4, along a map's C, H or W, it is written with the classic
/// layers of version 1 (`lowered`).
extension LogSoftmax: CompositeLayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_REDUCE_LOG_SUM_EXP] }
    static let subtractCase = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SUBTRACT_BROADCASTABLE
    var specificationVersion: Int32 { 4 }
    var lowestSpecificationVersion: Int32 { (-3 ... -1).contains(axis) ? 1 : 4 }
    var keepsShape: Bool { axis < 0 }

    /// Below version 4 (a model of maps), along the map's axis, as
    ///
    ///     x -> reduce max -> __max -> multiply -1 -> __negated_max
    ///     [x, __negated_max] -> add -> __shifted -> exp -> __exp
    ///       -> reduce sum -> __sum -> log -> __log -> multiply -1 -> __negated_log
    ///     [__shifted, __negated_log] -> add -> y
    ///
    /// z - log(sum(exp(z))) with z = x - max(x): the sum is at least 1, so
    /// the log is finite; the reductions are the classic reduce layer's.
    func lowered(_ node: Node, at version: Int32, names: inout FreshNames) -> [Node] {
        guard let x = node.inputs.first, let output = node.outputs.first else { return [node] }
        let max = names.make(node.name + "__max"), negatedMax = names.make(node.name + "__negated_max"),
            shifted = names.make(node.name + "__shifted"), exp = names.make(node.name + "__exp"), sum = names.make(node.name + "__sum"),
            log = names.make(node.name + "__log"), negatedLog = names.make(node.name + "__negated_log")
        func reduce(_ mode: Reduce.Mode, _ input: String, _ name: String) -> Node {
            MapReduce.node(Node(name, .reduce(Reduce(mode: mode, axes: [axis])), input: input), mapModel: true)
        }
        return [reduce(.max, x, max),
                Node(negatedMax, .multiply(constant: -1), input: max),
                Node(name: shifted, operation: .add(constant: 0), inputs: [x, negatedMax], outputs: [shifted]),
                Node(exp, .unary(Unary(kind: .exp)), input: shifted),
                reduce(.sum, exp, sum),
                Node(log, .unary(Unary(kind: .log)), input: sum),
                Node(negatedLog, .multiply(constant: -1), input: log),
                Node(name: node.name, operation: .add(constant: 0), inputs: [shifted, negatedLog], outputs: [output])]
    }

    func layers(of node: Node, _ builder: SpecBuilder) -> [UnsafeMutablePointer<MLLayer>] {
        let logSumExp = builder.names.make(node.name + "__logsumexp")
        let reduce = builder.layer(name: logSumExp, inputs: node.inputs, outputs: [logSumExp])
        builder.set(reduce, Self.layerCases[0], \.reducelogsumexp, core_ml__specification__reduce_log_sum_exp_layer_params__init) { p in
            (p.n_axes, p.axes) = builder.int64s([axis])
            p.keepdims = 1
        }
        let subtract = builder.layer(name: node.name, inputs: node.inputs + [logSumExp], outputs: node.outputs)
        builder.set(subtract, Self.subtractCase, \.subtractbroadcastable, core_ml__specification__subtract_broadcastable_layer_params__init)
        return [reduce, subtract]
    }

    static func node(of layers: ArraySlice<UnsafeMutablePointer<MLLayer>>, _ reader: SpecReader) throws -> (node: Node, count: Int)? {
        let reduce = layers[layers.startIndex].pointee
        let name = CArrays.string(reduce.name)
        let x = CArrays.strings(reduce.input, reduce.n_input), sum = CArrays.strings(reduce.output, reduce.n_output)
        let params = reduce.reducelogsumexp.pointee
        let next = layers.dropFirst().first?.pointee
        let later = layers.dropFirst(2).flatMap { CArrays.strings($0.pointee.input, $0.pointee.n_input) }
        guard x.count == 1, sum.count == 1, params.n_axes == 1, params.keepdims != 0, params.reduceall == 0, let next,
              next.layer_case == subtractCase, CArrays.strings(next.input, next.n_input) == x + sum, !later.contains(sum[0]) else {
            throw reader.fail("layer '\(name)': a reduceLogSumExp layer is read only as a log-softmax's first layer (one axis, "
                              + "keepDims, its output subtracted from its input by the next layer, a subtractBroadcastable, and read by no other)", at: nil)
        }
        let axis = params.axes[0]
        let outputName = CArrays.string(next.name)
        guard axis.magnitude <= 1 << 16 else { throw reader.fail("layer '\(name)': log-softmax axis \(axis) is out of range", at: nil) }
        let outputs = CArrays.strings(next.output, next.n_output)
        return (Node(name: outputName, operation: .defined(LogSoftmax(axis: Int(axis))), inputs: x, outputs: outputs), 2)
    }
}

import Naming
import FileIO
import Conversion
import ModelFormat
import TensorFlowSchema
import Protobuf

/// Converts a frozen TensorFlow graph (GraphDef, binary `.pb` or text
/// `.pbtxt`) to the model spec.
///
/// The graph is pruned to what the outputs need and walked in dependency
/// order. A node whose inputs are all constants folds through one
/// evaluator (`ConstantEvaluator`: shape arithmetic, unfused batch-norm
/// constants); `Shape` of a model tensor is known once its input shapes
/// are; every other node maps through the op table, NHWC to Core ML's CHW,
/// weights transposed once, as the writer streams them from the graph file
/// into the `.mlmodel` (`WeightProducer`). Identity, PlaceholderWithDefault and
/// similar leftovers vanish. Unsupported ops are reported together, with
/// node names, before anything is written.
public enum TensorFlowConverter {
    /// A graph input and its shape, as `--input-shape name=1,299,299,3` gives it.
    public typealias InputShape = Conversion.InputShape

    /// - Parameters:
    ///   - inputs: shapes for placeholders (others come from the graph).
    ///   - outputs: tensor names (`name` or `name:0`); empty means the graph's sinks.
    public static func convert(graph path: String, inputs: [InputShape] = [], outputs: [String] = [],
                               options: ConversionOptions = ConversionOptions()) throws -> Model {
        // The walk's tables go before the passes run; the decoded graph and
        // its mapped file live on in the weights, which the writer streams
        // from the file.
        var model = try { () throws -> Model in
            let graph = try read(path)
            var walk = GraphWalk(graph: graph, path: path,
                                 inputShapes: Dictionary(inputs.map { (TensorRef($0.name).node, $0.shape) }) { a, _ in a })
            return try walk.build(outputs: outputs.map(TensorRef.init))
        }()
        try options.finish(&model, convertedFrom: "TensorFlow graph", source: path)
        return model
    }

    /// The Core ML feature name of a tensor: `input:0` -> `input`,
    /// `a/b:1` -> `a_b_1`; characters other than letters, digits and `_`
    /// become `_`, so Xcode can name the generated properties.
    public static func featureName(_ tensor: String) -> String {
        let ref = TensorRef(tensor)
        let base = ref.index == 0 ? ref.node : "\(ref.node)_\(ref.index)"
        return String(base.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
    }

    /// Binary, or text when the file is a `.pbtxt` (or starts like one).
    static func read(_ path: String) throws -> TFGraph {
        let file = try MappedFile(path: path)
        let looksLikeText = path.hasSuffix(".pbtxt") || file.bytes.prefix(64).allSatisfy { $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || ($0 >= 0x20 && $0 < 0x7F) }
            && file.bytes.count > 0 && file.bytes.first.map { $0 == UInt8(ascii: "n") || $0 == UInt8(ascii: "#") || $0 == 0x20 || $0 == 0x0A } == true
        do {
            let decoded = looksLikeText
                ? try TextDecoder.decode(GraphDef.self, descriptor: proto_tensorflow_graph_descriptor(), bytes: file.bytes, owner: file)
                : try BinaryDecoder.decode(GraphDef.self, descriptor: proto_tensorflow_graph_descriptor(), bytes: file.bytes, owner: file)
            return try TFGraph(decoded, payloadsLieInFile: !looksLikeText)
        } catch let error as DecodeError {
            if looksLikeText {
                let (line, column) = lineAndColumn(of: error.offset, in: file.bytes)
                throw TensorFlowError("\(path):\(line):\(column): \(error.message)")
            }
            throw TensorFlowError("\(path): \(String(mentioning: error))")
        } catch let error as TensorFlowError {
            throw TensorFlowError("\(path): \(error.message)")
        }
    }
}

import ModelFormat
import ProtoSchemas
import Protobuf

/// How the backend writes and reads one operation (an `OpDefinition`) as
/// a Core ML layer: the `NeuralNetworkLayer.layer` cases it reads from,
/// the specification version its layer needs, and one encode and one
/// decode function. A new operation conforms here and joins
/// `layerCodings`; `layer(_:)` and `node(_:)` switch over nothing.
protocol LayerCoding: OpDefinition {
    /// The cases of the `layer` oneof that decode to this operation.
    static var layerCases: [LayerCase] { get }
    /// The specification version that added the layer as written (1
    /// unless said; 4 for iOS 13's rank-N layers).
    var specificationVersion: Int32 { get }
    /// Whether the layer only maps values one to one, so that it computes
    /// the same on a [C, H, W] map written with a batch axis.
    static var keepsShape: Bool { get }
    /// Sets `layer`'s case and parameters for `node` (whose operation this is).
    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder)
    /// The operation of a layer of one of `layerCases`, called `name`.
    /// - Throws: `CoreMLFormatError` for parameters out of range.
    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op
}

typealias LayerCase = CoreML__Specification__NeuralNetworkLayer__LayerCase

extension LayerCoding {
    var specificationVersion: Int32 { 1 }
    static var keepsShape: Bool { false }
}

/// Every operation the backend writes and reads.
let layerCodings: [any LayerCoding.Type] = [
    Convolution.self, Pooling.self, InnerProduct.self, Activation.self, BatchNorm.self, Scale.self, Bias.self,
    LRN.self, ChannelSoftmax.self, Concat.self, Elementwise.self, Unary.self, L2Normalize.self, Flatten.self,
    Reshape.self, Permute.self, Padding.self, Crop.self, Slice.self, Split.self, Reduce.self, Upsample.self,
    ConstantTensor.self, ConstantND.self, MatMul.self, SoftmaxND.self, Transpose.self, GELU.self, ReshapeND.self, ConcatND.self,
    SliceND.self, ReduceND.self,
]

/// How a network's array features map to Core ML's tensors.
enum ArrayMapping {
    /// [C] or [C, H, W] features, read as rank 5 (`RANK5_ARRAY_MAPPING`).
    case rank5
    /// The same features given a leading batch axis, [1, C, H, W]
    /// (`EXACT_ARRAY_MAPPING`), for a network of version-4 layers.
    case batchAxis
    /// Tensor inputs and outputs, written as shaped (`EXACT_ARRAY_MAPPING`).
    case exact
}

extension SpecBuilder {
    /// The layer message of `node`; the writer has checked that every
    /// operation has a coding (`SpecificationVersion.checkWritable`).
    func layer(_ node: Node) -> UnsafeMutablePointer<MLLayer> {
        let layer: UnsafeMutablePointer<MLLayer> = new(core_ml__specification__neural_network_layer__init)
        layer.pointee.name = string(node.name)
        (layer.pointee.n_input, layer.pointee.input) = strings(node.inputs)
        (layer.pointee.n_output, layer.pointee.output) = strings(node.outputs)
        guard let coding = node.operation.definition as? any LayerCoding else {
            preconditionFailure("\(node.operation.kindName) has no Core ML encoding: checked before writing")
        }
        layerName = node.name
        coding.encode(node, into: layer, self)
        return layer
    }

    /// Sets the layer's case and its parameters message.
    func set<Params>(_ layer: UnsafeMutablePointer<MLLayer>, _ layerCase: LayerCase,
                     _ field: WritableKeyPath<MLLayer, UnsafeMutablePointer<Params>?>, _ params: UnsafeMutablePointer<Params>) {
        layer.pointee.layer_case = layerCase
        layer.pointee[keyPath: field] = params
    }

    /// Sets the layer's case and a new parameters message made by
    /// `initialize` (protobuf-c's `..._init`) and filled by `fill`.
    func set<Params>(_ layer: UnsafeMutablePointer<MLLayer>, _ layerCase: LayerCase,
                     _ field: WritableKeyPath<MLLayer, UnsafeMutablePointer<Params>?>,
                     _ initialize: (UnsafeMutablePointer<Params>?) -> Void, _ fill: (inout Params) -> Void = { _ in }) {
        let params: UnsafeMutablePointer<Params> = new(initialize)
        fill(&params.pointee)
        set(layer, layerCase, field, params)
    }
}

extension SpecReader {
    /// The node of a layer message.
    func node(_ layer: UnsafeMutablePointer<MLLayer>?) throws -> Node {
        guard let layer else { throw fail("a layer is empty", at: nil) }
        do {
            return try node(layer)
        } catch var error as CoreMLFormatError where error.offset == 0 {
            // Problems found in plain values know no message: point at the layer.
            error.offset = decoded.offset(of: layer)
            throw error
        }
    }

    private func node(_ layer: UnsafeMutablePointer<MLLayer>) throws -> Node {
        let name = CArrays.string(layer.pointee.name)
        guard !name.isEmpty else { throw fail("a layer has no name", at: layer) }
        let inputs = CArrays.strings(layer.pointee.input, layer.pointee.n_input)
        let outputs = CArrays.strings(layer.pointee.output, layer.pointee.n_output)
        guard !outputs.isEmpty else { throw fail("layer '\(name)' has no outputs", at: layer) }
        guard let coding = Self.codings[layer.pointee.layer_case.rawValue] else {
            throw fail("layer '\(name)' has a layer type this toolkit does not support (or none)", at: layer)
        }
        return Node(name: name, operation: try coding.decode(layer.pointee, name: name, self), inputs: inputs, outputs: outputs)
    }

    /// `layerCodings` by the layer cases they read.
    static let codings: [UInt32: any LayerCoding.Type] = Dictionary(
        layerCodings.flatMap { coding in coding.layerCases.map { ($0.rawValue, coding) } }, uniquingKeysWith: { first, _ in first })
}

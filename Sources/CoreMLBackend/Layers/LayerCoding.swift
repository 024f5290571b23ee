import ModelFormat
import CoreMLSchema
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
    /// The lowest version the operation can be written at: below
    /// `specificationVersion`, `lowered(_:at:names:)` gives older layers
    /// (clip); by default `specificationVersion`.
    var lowestSpecificationVersion: Int32 { get }
    /// The Core ML layer type as messages name it (the `layer` case): by
    /// default the operation's `kindName`.
    var layerTypeName: String { get }
    /// `node` written with the layers `version` holds, when it is below
    /// `specificationVersion` and at least `lowestSpecificationVersion`;
    /// the last node keeps `node`'s name and outputs, the others take
    /// names from `names`.
    func lowered(_ node: Node, at version: Int32, names: inout FreshNames) -> [Node]
    /// Whether the layer computes the same on a [C, H, W] map written with
    /// a batch axis ([1, C, H, W]): it only maps values one to one, or works
    /// along an axis counted from the end.
    var keepsShape: Bool { get }
    /// Sets `layer`'s case and parameters for `node` (whose operation this is).
    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder)
    /// The operation of a layer of one of `layerCases`, called `name`.
    /// - Throws: `CoreMLFormatError` for parameters out of range.
    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op
}

typealias LayerCase = CoreML__Specification__NeuralNetworkLayer__LayerCase

/// An operation along one axis that Core ML has two layers for: the
/// classic one of specification 1 along the channels (axis -3, which it
/// also takes on rank-N tensors) and a rank-N one of specification 4 along
/// any axis (concat and concatND, softmax and softmaxND): the first of
/// `layerCases` is the classic layer's, the second the rank-N one's.
protocol AxisLayerCoding: LayerCoding {
    associatedtype ClassicParams
    associatedtype RankNParams
    var axis: Int { get }
    init(axis: Int)
    /// The axis the classic layer works along: the channels, -3.
    static var channelAxis: Int { get }
    static var layers: AxisLayers<ClassicParams, RankNParams> { get }
    /// What a read layer asks of the operation that it does not do (a
    /// sequence concatenation, say), named for the error; nil by default.
    static func unsupported(classic: ClassicParams) -> String?
    static func unsupported(rankN: RankNParams) -> String?
}

/// The two layers of an `AxisLayerCoding`: each one's `layer` case, type
/// name, and parameters in the layer message with their initializer; the
/// rank-N one's axis field.
struct AxisLayers<Classic, RankN> {
    typealias Field<Params> = WritableKeyPath<MLLayer, UnsafeMutablePointer<Params>?>
    typealias Initializer<Params> = (UnsafeMutablePointer<Params>?) -> Void
    var classic: (layerCase: LayerCase, name: String, field: Field<Classic>, initialize: Initializer<Classic>)
    var rankN: (layerCase: LayerCase, name: String, field: Field<RankN>, initialize: Initializer<RankN>,
                axis: WritableKeyPath<RankN, Int64>)
}

extension AxisLayerCoding {
    static var layerCases: [LayerCase] { [layers.classic.layerCase, layers.rankN.layerCase] }
    /// Whether the classic layer is written: along the channels.
    var isClassic: Bool { axis == Self.channelAxis }
    var specificationVersion: Int32 { isClassic ? 1 : 4 }
    var layerTypeName: String { isClassic ? Self.layers.classic.name : Self.layers.rankN.name }
    // Along channels, the same on a map written with a batch axis.
    var keepsShape: Bool { isClassic }

    static func unsupported(classic: ClassicParams) -> String? { nil }
    static func unsupported(rankN: RankNParams) -> String? { nil }

    /// Sets the classic layer (no parameters of its own) along the
    /// channels, else the rank-N layer with its axis field set to `axis`.
    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        let (classic, rankN) = (Self.layers.classic, Self.layers.rankN)
        if isClassic {
            builder.set(layer, classic.layerCase, classic.field, classic.initialize)
        } else {
            builder.set(layer, rankN.layerCase, rankN.field, rankN.initialize) { $0[keyPath: rankN.axis] = Int64(axis) }
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        if layer.layer_case == layers.classic.layerCase {
            let p = layer[keyPath: layers.classic.field]
            if let what = unsupported(classic: p!.pointee) { throw reader.fail("layer '\(name)': \(what) is not supported", at: p) }
            return .defined(Self(axis: channelAxis))
        }
        let p = layer[keyPath: layers.rankN.field]
        if let what = unsupported(rankN: p!.pointee) { throw reader.fail("layer '\(name)': \(what) is not supported", at: p) }
        let axis = p!.pointee[keyPath: layers.rankN.axis]
        guard axis.magnitude <= 1 << 16 else {
            throw reader.fail("layer '\(name)': \(layers.classic.name) axis \(axis) is out of range", at: p)
        }
        return .defined(Self(axis: Int(axis)))
    }
}

extension LayerCoding {
    var specificationVersion: Int32 { 1 }
    var lowestSpecificationVersion: Int32 { specificationVersion }
    var layerTypeName: String { kindName }
    var keepsShape: Bool { false }

    func lowered(_ node: Node, at version: Int32, names: inout FreshNames) -> [Node] {
        preconditionFailure("\(kindName) has no lowering below specification \(specificationVersion)")
    }

    /// The version of the layers written for this operation at `version`:
    /// its own, or its lowering's below it.
    func writtenVersion(at version: Int32) -> Int32 {
        version >= specificationVersion ? specificationVersion : lowestSpecificationVersion
    }
}

/// An operation Core ML has no one layer for (a composite, DESIGN 17),
/// written as consecutive layers, the last keeping the node's name and
/// outputs; the reader, at a layer of one of `layerCases` (the first one
/// written), hands `node(of:)` the layers from there. A case another
/// coding reads first (listed earlier in `layerCodings`) reaches the
/// composite too, which tells by the layers whether they are its own
/// (else nil: the layer is read as that coding's). `encode` and `decode`
/// are not called.
protocol CompositeLayerCoding: LayerCoding {
    /// The layers of `node`, the ones before the last named by `SpecBuilder.names`.
    func layers(of node: Node, _ builder: SpecBuilder) -> [UnsafeMutablePointer<MLLayer>]
    /// The node that `layers` (from a layer of `layerCases` on) were
    /// written for, and how many of them it takes; nil when the first
    /// layer's case is another coding's and the layers are not this
    /// operation's.
    /// - Throws: `CoreMLFormatError` when they are not the layers the
    ///   operation writes, wired as it wires them.
    static func node(of layers: ArraySlice<UnsafeMutablePointer<MLLayer>>, _ reader: SpecReader) throws -> (node: Node, count: Int)?
}

extension CompositeLayerCoding {
    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        preconditionFailure("a composite's layers are written by layers(of:)")
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        throw reader.fail("layer '\(name)' is read only with the layers after it (a \(Self.self))", at: nil)
    }
}

/// Every operation the backend writes and reads: the classic layers of a
/// model of maps (`SpecificationVersion.mapLayerCodings`), then
/// `allOperations` in its order (a composite whose first layer's case
/// another coding reads comes after that coding). An operation with no
/// coding is left out here and fails `AllOperationsTests`.
let layerCodings: [any LayerCoding.Type] =
    SpecificationVersion.mapLayerCodings + allOperations.compactMap { $0 as? any LayerCoding.Type }

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
    /// The layer messages of `node`: one, or a composite's (`CompositeLayerCoding`).
    func layers(_ node: Node) -> [UnsafeMutablePointer<MLLayer>] {
        guard let composite = node.operation.definition as? any CompositeLayerCoding else { return [layer(node)] }
        layerName = node.name
        return composite.layers(of: node, self)
    }

    /// A layer message with its name, inputs and outputs, its case not set yet.
    func layer(name: String, inputs: [String], outputs: [String]) -> UnsafeMutablePointer<MLLayer> {
        let layer: UnsafeMutablePointer<MLLayer> = new(core_ml__specification__neural_network_layer__init)
        layer.pointee.name = string(name)
        (layer.pointee.n_input, layer.pointee.input) = strings(inputs)
        (layer.pointee.n_output, layer.pointee.output) = strings(outputs)
        return layer
    }

    /// The layer message of `node`; the writer has checked that every
    /// operation has a coding (`SpecificationVersion.checkWritable`).
    func layer(_ node: Node) -> UnsafeMutablePointer<MLLayer> {
        let layer = layer(name: node.name, inputs: node.inputs, outputs: node.outputs)
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
    /// The nodes of a network's layer messages: one per layer, one per
    /// composite's layers (`CompositeLayerCoding`).
    func nodes(_ layers: UnsafeBufferPointer<UnsafeMutablePointer<MLLayer>?>) throws -> [Node] {
        var nodes: [Node] = []
        var index = 0
        while index < layers.count {
            guard let layer = layers[index] else { throw fail("a layer is empty", at: nil) }
            let (node, count) = try pointingAt(layer) { () throws -> (Node, Int) in
                let following = layers[index...].prefix { $0 != nil }.map { $0! }
                for composite in Self.composites[layer.pointee.layer_case.rawValue] ?? [] {
                    if let found = try composite.node(of: following[...], self) { return found }
                }
                return (try self.node(layer), 1)
            }
            nodes.append(node)
            index += count
        }
        return nodes
    }

    /// `body`'s result; problems found in plain values know no message:
    /// an error without an offset points at `layer`.
    private func pointingAt<T>(_ layer: UnsafeMutablePointer<MLLayer>, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var error as CoreMLFormatError where error.offset == 0 {
            error.offset = decoded.offset(of: layer)
            throw error
        }
    }

    /// The node of one layer, read by the coding of its case.
    func node(_ layer: UnsafeMutablePointer<MLLayer>) throws -> Node {
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

    /// The composites among `layerCodings` by the cases of their first layers.
    static let composites: [UInt32: [any CompositeLayerCoding.Type]] = Dictionary(
        layerCodings.compactMap { $0 as? any CompositeLayerCoding.Type }.flatMap { coding in coding.layerCases.map { ($0.rawValue, [coding]) } },
        uniquingKeysWith: +)
}

import ModelFormat
import ProtoSchemas

/// How the backend writes and reads one `OpDefinition` as a Core ML
/// layer: its `NeuralNetworkLayer.layer` case, the specification version
/// that added it, and one encode and one decode function. A new operation
/// conforms here and joins `layerCodings`.
protocol LayerCoding: OpDefinition {
    /// The layer's case of the `layer` oneof.
    static var layerCase: CoreML__Specification__NeuralNetworkLayer__LayerCase { get }
    /// The specification version that added the layer (4 is iOS 13's
    /// rank-N layers).
    static var specificationVersion: Int32 { get }
    /// Whether the layer only maps values one to one, so that it computes
    /// the same on a [C, H, W] map written with a batch axis.
    static var keepsShape: Bool { get }
    /// Sets `layer`'s case and parameters.
    func encode(into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder)
    /// The operation of a layer of `layerCase` called `name`.
    /// - Throws: `CoreMLFormatError` for parameters out of range.
    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Self
}

extension LayerCoding {
    static var keepsShape: Bool { false }
}

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

/// Every operation the backend writes through `LayerCoding`.
let layerCodings: [any LayerCoding.Type] = [MatMul.self, SoftmaxND.self, Transpose.self, GELU.self]

extension SpecBuilder {
    /// `definition`'s layer parameters; the writer has checked that the
    /// backend knows it (`SpecificationVersion.checkWritable`).
    func encode(_ definition: any OpDefinition, into layer: UnsafeMutablePointer<MLLayer>) {
        guard let coding = definition as? any LayerCoding else {
            preconditionFailure("\(definition.kindName) has no Core ML encoding: checked before writing")
        }
        coding.encode(into: layer, self)
    }
}

extension SpecReader {
    /// The operation of a layer through `layerCodings`, or nil when its
    /// type is not one of theirs.
    func definedOperation(_ layer: MLLayer, name: String) throws -> Op? {
        guard let coding = layerCodings.first(where: { $0.layerCase == layer.layer_case }) else { return nil }
        return .defined(DefinedOp(try coding.decode(layer, name: name, self)))
    }
}

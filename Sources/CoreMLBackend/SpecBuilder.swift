import ModelFormat
import CoreMLSchema
import Protobuf

/// Allocates the protobuf-c structs of one model being written. Weight
/// arrays are not copied: `WeightParams.floatValue` points at the
/// `Weights`' own memory, which the builder keeps alive until packing is
/// done, or, for computed weights, at a placeholder that `streamed` fills
/// as the file is written.
final class SpecBuilder {
    let arena = Arena()
    let streamed = StreamedFields()
    /// How array features map to Core ML's tensors (`SpecificationVersion`).
    var arrayMapping = ArrayMapping.rank5
    /// How to store weights (`WeightEncoding`); nil: as each tensor was stored.
    let precision: Precision?
    /// The layer being encoded, named in errors about its weights.
    var layerName = ""
    /// Names for the layers a composite adds (`CompositeLayerCoding`) to the network being written.
    var names = FreshNames()
    /// The specification version the weights as stored need: 2 for float16, 3 for quantized.
    var weightsVersion: Int32 = 1
    /// Quantized weights to compute before packing (`quantizeWeights`).
    var pendingQuantizations: [PendingQuantization] = []
    private var retainedWeights: [Weights] = []

    init(precision: Precision? = nil) {
        self.precision = precision
    }

    /// A new message struct, initialised by its generated `__init` function.
    func new<T>(_ initialize: (UnsafeMutablePointer<T>?) -> Void) -> UnsafeMutablePointer<T> {
        arena.message(initialize)
    }

    func string(_ value: String) -> UnsafeMutablePointer<CChar> {
        arena.cString(value)
    }

    /// A repeated string field: count and array.
    func strings(_ values: [String]) -> (Int, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) {
        (values.count, arena.copy(values.map { Optional(string($0)) }))
    }

    /// A repeated uint64 field.
    func uint64s(_ values: [Int]) -> (Int, UnsafeMutablePointer<UInt64>?) {
        (values.count, arena.copy(values.map { UInt64($0) }))
    }

    /// A repeated int64 field.
    func int64s(_ values: [Int]) -> (Int, UnsafeMutablePointer<Int64>?) {
        (values.count, arena.copy(values.map { Int64($0) }))
    }

    /// A repeated float field.
    func floats(_ values: [Float]) -> (Int, UnsafeMutablePointer<Float>?) {
        (values.count, arena.copy(values))
    }

    /// A repeated bool field.
    func bools(_ values: [Bool]) -> (Int, UnsafeMutablePointer<protobuf_c_boolean>?) {
        (values.count, arena.copy(values.map { $0 ? 1 : 0 }))
    }

    /// A repeated message field.
    func array<T>(_ values: [UnsafeMutablePointer<T>]) -> (Int, UnsafeMutablePointer<UnsafeMutablePointer<T>?>?) {
        (values.count, arena.copy(values.map { Optional($0) }))
    }

    /// Keeps `weights`' memory alive until the model is packed.
    func retain(_ weights: Weights) {
        retainedWeights.append(weights)
    }

    /// Border amounts [height, width] for a padding or crop.
    func borderAmounts(_ edges: Edges) -> UnsafeMutablePointer<MLBorderAmounts> {
        let amounts: UnsafeMutablePointer<MLBorderAmounts> = new(core_ml__specification__border_amounts__init)
        let height: UnsafeMutablePointer<MLEdgeSizes> = new(core_ml__specification__border_amounts__edge_sizes__init)
        height.pointee.startedgesize = UInt64(edges.top)
        height.pointee.endedgesize = UInt64(edges.bottom)
        let width: UnsafeMutablePointer<MLEdgeSizes> = new(core_ml__specification__border_amounts__edge_sizes__init)
        width.pointee.startedgesize = UInt64(edges.left)
        width.pointee.endedgesize = UInt64(edges.right)
        (amounts.pointee.n_borderamounts, amounts.pointee.borderamounts) = array([height, width])
        return amounts
    }
}

import Naming
import Conversion
import FileIO
import HDF5
import ModelFormat
import CaffeSchema
import Protobuf

/// What `inspect` needs from the Caffe frontend: a deploy definition with
/// its weights converted as `convert caffe` would (without image inputs or
/// labels) plus what the conversion folded away, and a weights file read on
/// its own (layers and blob shapes; values only when asked for).
public enum CaffeInspection {
    /// A deploy definition and its weights, as the converter sees them.
    public struct Net: Sendable {
        /// The converted graph: in-place layers renamed, Dropout and Split
        /// removed, BatchNorm and Scale folded (`Pipeline`), shapes checked.
        public var model: Model
        /// "Caffe net" or "Caffe V1 net".
        public var format: String
        /// The net's `name:`, or "".
        public var name: String
        /// Deploy layers that became no node: identities at inference.
        public var removed: [(layer: String, type: String)]
        /// Deploy layers whose work moved into the node named `into`.
        public var folded: [(layer: String, type: String, into: String)]
        /// SSD's PriorBox layers and their concatenation: computed at
        /// conversion, constants of the DetectionOutput's decoding.
        public var computed: [(layer: String, type: String)] = []
        /// Layers whose blobs the weights file stores as doubles (`double_data`).
        public var doubleLayers: Set<String>
        /// Inputs declared for more than one image, converted for one.
        public var declaredBatches: [(input: String, batch: Int)] = []
    }

    /// One layer of a weights file: its name, its type (when the file says),
    /// its bottoms and tops (a caffemodel keeps them), its blobs.
    public struct WeightsLayer: Sendable {
        public var name: String
        public var type: String
        public var bottoms: [String]
        public var tops: [String]
        public var blobs: [WeightsBlob]
    }

    public struct WeightsBlob: Sendable {
        public var shape: [Int]
        /// "float32", or "float64" for a caffemodel's `double_data`.
        public var precision: String
        /// The values; unloaded (count only) unless asked for.
        public var values: Weights
    }

    /// A `.caffemodel` or `.caffemodel.h5` read on its own.
    public struct WeightsFile: Sendable {
        /// "Caffe weights (caffemodel)", "... (caffemodel, V1 layers)" or "Caffe weights (HDF5)".
        public var format: String
        public var name: String
        public var layers: [WeightsLayer]
        /// Whether the file records layer types and bottoms/tops (a caffemodel does, HDF5 does not).
        public var hasTopology: Bool
    }

    /// Converts `deploy` with `weights` for inspection: what `convert caffe`
    /// builds without options (array inputs, no labels), metadata empty.
    /// Without weights, the structure alone: shapes and parameter counts
    /// from the deploy definition, no values.
    /// - Throws: `CaffeError` naming the file (and line or layer), or `ModelError`.
    public static func convert(deploy: String, weights: String?) throws -> Net {
        // A summary describes the file: a top_k the conversion refuses does not stop it.
        var options = ConversionOptions()
        options.ignoresCandidateCap = true
        var (model, net, batches) = try CaffeConverter.build(deploy: deploy, weights: weights, options: options)
        model.metadata = Metadata()
        let file = try weights.map { try readWeightsFile($0, loadValues: false) }
        let doubles = Set((file?.layers ?? []).filter { $0.blobs.contains { $0.precision == "float64" } }.map(\.name))

        // Which deploy layers left no node of their own, and where their work went.
        let nodeNames = Set(model.nodes.map(\.name))
        func hasNode(_ layer: String) -> Bool {
            nodeNames.contains(layer) || model.nodes.contains { $0.name.hasPrefix(layer + "__") }
        }
        var producer: [String: String] = [:]  // Caffe blob -> the node that now computes it
        var removed: [(layer: String, type: String)] = []
        var folded: [(layer: String, type: String, into: String)] = []
        var computed: [(layer: String, type: String)] = [], priors = Set<String>()
        for layer in net.layers where !layer.isTrainingOnly {
            let source = layer.bottoms.first.flatMap { producer[$0] }
            if layer.type == "PriorBox" || layer.type == "Concat" && !layer.bottoms.isEmpty && layer.bottoms.allSatisfy(priors.contains) {
                computed.append((layer.name, layer.type))
                priors.formUnion(layer.tops)
            } else if layer.type == "Input" || hasNode(layer.name) {
                for top in layer.tops { producer[top] = layer.type == "Input" ? nil : layer.name }
            } else if ["Dropout", "Split", "Silence"].contains(layer.type) || source == nil {
                removed.append((layer.name, layer.type))
                for top in layer.tops { producer[top] = source }
            } else if let source {
                folded.append((layer.name, layer.type, source))
                for top in layer.tops { producer[top] = source }
            }
        }
        let name = CArrays.string(net.decoded.root.pointee.name)
        return Net(model: model, format: net.format.rawValue, name: name, removed: removed, folded: folded, computed: computed,
                   doubleLayers: doubles, declaredBatches: batches)
    }

    /// Reads a weights file on its own: HDF5 when it starts with HDF5's
    /// signature, a binary caffemodel otherwise.
    /// - Parameter loadValues: read the blob values (for statistics); without
    ///   it only shapes are read and the payloads are never touched.
    /// - Throws: `CaffeError` naming the file (and byte offset or layer).
    public static func readWeightsFile(_ path: String, loadValues: Bool) throws -> WeightsFile {
        let file = try MappedFile(path: path)
        if HDF5File.isHDF5(file.bytes) { return try readHDF5(path, loadValues: loadValues) }
        let decoded: Decoded<NetParameter>
        do {
            decoded = try BinaryDecoder.decode(NetParameter.self, descriptor: proto_caffe_net_descriptor(), bytes: file.bytes,
                                               owner: file, options: DecodeOptions(structureOnly: !loadValues))
        } catch {
            throw CaffeError("\(path): \(String(mentioning: error))")
        }
        let net = decoded.root.pointee
        var layers: [WeightsLayer] = []
        for case let layer? in CArrays.buffer(net.layer, net.n_layer) {
            let l = layer.pointee
            let name = CArrays.string(l.name)
            layers.append(WeightsLayer(name: name, type: CArrays.string(l.type), bottoms: CArrays.strings(l.bottom, l.n_bottom),
                                       tops: CArrays.strings(l.top, l.n_top),
                                       blobs: try blobs(CArrays.buffer(l.blobs, l.n_blobs), decoded, "\(path): layer '\(name)'")))
        }
        for case let layer? in CArrays.buffer(net.layers, net.n_layers) {
            let l = layer.pointee
            let name = CArrays.string(l.name)
            let type = CaffeNet.v1TypeNames[Int(l.type.rawValue)] ?? "V1 type \(l.type.rawValue)"
            layers.append(WeightsLayer(name: name, type: type, bottoms: CArrays.strings(l.bottom, l.n_bottom),
                                       tops: CArrays.strings(l.top, l.n_top),
                                       blobs: try blobs(CArrays.buffer(l.blobs, l.n_blobs), decoded, "\(path): layer '\(name)'")))
        }
        guard !layers.isEmpty else { throw CaffeError("\(path): the caffemodel holds no layers") }
        let format = net.n_layers > 0 && net.n_layer == 0 ? "Caffe weights (caffemodel, V1 layers)" : "Caffe weights (caffemodel)"
        return WeightsFile(format: format, name: CArrays.string(net.name), layers: layers, hasTopology: true)
    }

    /// Shapes and (when decoded) values of a layer's blobs, checked against each other.
    static func blobs(_ protos: UnsafeBufferPointer<UnsafeMutablePointer<BlobProto>?>, _ owner: Decoded<NetParameter>,
                      _ what: String) throws -> [WeightsBlob] {
        try protos.enumerated().map { index, proto in
            guard let proto else { throw CaffeError("\(what) blob \(index) is empty") }
            let blob = try CaffeWeights.blob(proto, owner: owner, what: "\(what) blob \(index)")
            let isDouble = proto.pointee.n_data == 0 && proto.pointee.n_double_data > 0
            return WeightsBlob(shape: blob.shape, precision: isDouble ? "float64" : "float32", values: blob.values)
        }
    }

    /// Caffe's HDF5 snapshot layout: `data/<layer>/<i>`. Shapes come from the
    /// dataspaces; values are read (converted to float32) only when asked for.
    static func readHDF5(_ path: String, loadValues: Bool) throws -> WeightsFile {
        let file = try HDF5File(path: path)
        guard try file.kind(of: "data") == .group else {
            throw CaffeError("\(path): an HDF5 file without Caffe's 'data' group, so not Caffe weights")
        }
        var layers: [WeightsLayer] = []
        for (layer, indices) in try CaffeWeights.blobIndices(file, path) {
            let blobs = try indices.map { index in
                let dataset = "data/\(layer)/\(index)"
                if loadValues {
                    let (shape, values) = try file.readFloats(dataset)
                    return WeightsBlob(shape: shape, precision: "float32", values: Weights(values))
                }
                let shape = try file.shape(of: dataset)
                guard let count = shape.checkedProduct else { throw CaffeError("\(path): \(dataset) has the shape \(shape), too large") }
                return WeightsBlob(shape: shape, precision: "float32", values: Weights(unloadedCount: count))
            }
            layers.append(WeightsLayer(name: layer, type: "", bottoms: [], tops: [], blobs: blobs))
        }
        return WeightsFile(format: "Caffe weights (HDF5)", name: "", layers: layers, hasTopology: false)
    }
}

import Naming
import FileIO
import Conversion
import HDF5
import ModelFormat
import CaffeSchema
import Protobuf

/// Converts a Caffe model (deploy prototxt plus weights) to the model spec.
///
/// Both Caffe formats are read: the current one (`layer { type: "..." }`)
/// and the legacy V1 one (`layers { type: ENUM }`), for the deploy file and
/// for the weights; weights are matched to deploy layers by name, so
/// training snapshots with extra layers work. In-place layers (top ==
/// bottom) become fresh tensors; Dropout and Split vanish; BatchNorm and
/// Scale fold into the convolution before them.
public enum CaffeConverter {
    /// Converts `deploy` with the weights in `weights` (a `.caffemodel`, or
    /// an HDF5 `.caffemodel.h5`, told apart by content). Without weights,
    /// only layers with inline blobs have values: the others get stand-ins
    /// of the right shapes (zeros for vectors, unloaded values otherwise),
    /// enough for a summary of the structure, never for a file.
    /// - Throws: `CaffeError` (one line, naming the file and line or layer)
    ///   or `ModelError`.
    /// A deploy definition ending in SSD's DetectionOutput becomes a
    /// detector (`Detector`): its priors computed now, its decoding as
    /// layers, its NMS settings (or `options.detectionThresholds`) the pipeline's; the
    /// labels from `options.classLabels`, with or without the background's.
    public static func convert(deploy: String, weights: String?, options: ConversionOptions = ConversionOptions()) throws -> Model {
        try conversion(deploy: deploy, weights: weights, options: options).model
    }

    /// `convert`, with the inputs the deploy definition declares for more
    /// than one image and that batch size (BVLC's files say 10): the model
    /// takes one image a prediction.
    public static func conversion(deploy: String, weights: String?, options: ConversionOptions = ConversionOptions()) throws
        -> (model: Model, declaredBatches: [(input: String, batch: Int)]) {
        let built = try build(deploy: deploy, weights: weights, options: options)
        if options.ignoresCandidateCap, built.model.detector == nil {
            throw ConversionOptionError("\(option: .ignoreTopK) applies to a DetectionOutput's top_k, and \(deploy) has no DetectionOutput layer")
        }
        return (built.model, built.declaredBatches)
    }

    /// The conversion with the parsed deploy definition (for inspection).
    static func build(deploy: String, weights: String?, options: ConversionOptions) throws
        -> (model: Model, net: CaffeNet, declaredBatches: [(input: String, batch: Int)]) {
        let net = try readDeploy(deploy)
        let blobs = try weights.map { try readWeights($0) } ?? CaffeWeights(blobs: [:], source: "")
        var builder = GraphBuilder(net: net, weights: blobs, deployPath: deploy, structureOnly: weights == nil)
        var model = try builder.build()
        var options = options
        if let detection = builder.detection {
            if let cap = detection.candidateCap, !options.ignoresCandidateCap {
                throw CaffeError("\(deploy): layer '\(detection.layer)' (DetectionOutput): nms_param top_k \(cap) takes each class's "
                                 + "\(cap) most confident of \(detection.priors.count) boxes into its suppression, and Core ML's suppression "
                                 + "takes every box (a box ranked below \(cap) may be kept): give \(option: .ignoreTopK) to convert without that cap")
            }
            model.detector = try options.takeDetector(classes: detection.scored - (detection.background == nil ? 0 : 1), background: detection.background,
                                                      source: "the DetectionOutput of \(deploy)",
                                                      defaults: (detection.iouThreshold, detection.confidenceThreshold))
            model.detector?.maximumBoxes = detection.keepTopK
        } else if options.detectionThresholds.iou != nil || options.detectionThresholds.confidence != nil {
            throw ConversionOptionError("thresholds apply to a detector, and \(deploy) has no DetectionOutput layer")
        }
        try options.finish(&model, convertedFrom: net.format.rawValue, source: deploy)
        return (model, net, builder.declaredBatches)
    }

    /// What the summary says of declared batches: `data (10 in the deploy
    /// definition)`; nil when every input is declared for one image.
    public static func batchNote(_ batches: [(input: String, batch: Int)]) -> (label: String, items: [String])? {
        batches.isEmpty ? nil
            : ("Batch", batches.map { "\($0.input): declared for \($0.batch) images; converted for one (Core ML predicts an image at a time)" })
    }

    /// Parses a deploy prototxt; syntax errors say `file:line:column`.
    static func readDeploy(_ path: String) throws -> CaffeNet {
        let file = try MappedFile(path: path)
        do {
            let decoded = try TextDecoder.decode(NetParameter.self, descriptor: proto_caffe_net_descriptor(), bytes: file.bytes, owner: file)
            var net = try CaffeNet(decoded, text: file.bytes)
            // Each unknown field goes to the layer it is written in (layers are in file order, one format per file).
            let unknown = try UnknownTextFields.list(descriptor: proto_caffe_net_descriptor(), bytes: file.bytes)
            let starts = net.layers.map(\.offset)
            for field in unknown {
                guard let index = starts.lastIndex(where: { $0 <= field.offset }) else { continue }
                net.layers[index].unknownFields.append(field)
            }
            return net
        } catch let error as DecodeError {
            let (line, column) = lineAndColumn(of: error.offset, in: file.bytes)
            throw CaffeError("\(path):\(line):\(column): \(error.message)")
        } catch let error as CaffeError {
            throw CaffeError("\(path): \(error.message)")
        }
    }

    /// HDF5 weights start with HDF5's signature; everything else is read as
    /// a binary caffemodel.
    static func readWeights(_ path: String) throws -> CaffeWeights {
        let file = try MappedFile(path: path)
        if HDF5File.isHDF5(file.bytes) { return try CaffeWeights.read(hdf5: path) }
        return try CaffeWeights.read(caffemodel: path)
    }
}

extension CaffeConverter {
    /// Reads a `mean.binaryproto` (a BlobProto of shape [1, C, H, W], in the
    /// net's channel order) as the [C, H, W] mean image Core ML subtracts.
    public static func readMeanImage(_ path: String) throws -> Weights {
        let file = try MappedFile(path: path)
        do {
            // The shape and the value count first, payload skipped: a blob
            // whose count does not fit its shape is refused before its
            // values are copied (an unaligned payload is).
            let structure = try BinaryDecoder.decode(BlobProto.self, descriptor: proto_caffe_blob_descriptor(), bytes: file.bytes,
                                                     owner: file, options: DecodeOptions(structureOnly: true))
            _ = try CaffeWeights.blob(structure.root, owner: structure, what: path)
            let decoded = try BinaryDecoder.decode(BlobProto.self, descriptor: proto_caffe_blob_descriptor(), bytes: file.bytes, owner: file)
            let blob = try CaffeWeights.blob(decoded.root, owner: decoded, what: path)
            guard blob.count > 0 else { throw CaffeError("\(path): the mean image is empty") }
            return blob.values
        } catch let error as DecodeError {
            throw CaffeError("\(path): \(String(mentioning: error))")
        }
    }
}

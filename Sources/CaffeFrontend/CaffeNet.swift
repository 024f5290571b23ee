import ModelFormat
import CaffeSchema
import Protobuf

typealias NetParameter = Caffe__NetParameter
typealias LayerParameter = Caffe__LayerParameter
typealias V1LayerParameter = Caffe__V1LayerParameter
typealias BlobProto = Caffe__BlobProto

/// One layer of a deploy definition, the same for the current and the
/// legacy V1 format: the type as a current-format string and the parameter
/// messages (both formats share their types).
struct CaffeLayer {
    var name: String
    var type: String
    var bottoms: [String]
    var tops: [String]
    /// Byte offset of the layer in the prototxt, for `file:line` errors.
    var offset: Int
    var params: Params
    /// Weights given inline in the deploy file (rare), by blob index.
    var inlineBlobs: [UnsafeMutablePointer<BlobProto>?]
    /// `include { phase: TRAIN }`: not part of the deployed net.
    var isTrainingOnly = false
    /// Fields the schema does not know, written inside this layer (the text
    /// decoder skips them; `CaffeLedgers` judges them).
    var unknownFields: [UnknownTextFields.Field] = []

    struct Params {
        var convolution: UnsafeMutablePointer<Caffe__ConvolutionParameter>?
        var pooling: UnsafeMutablePointer<Caffe__PoolingParameter>?
        var innerProduct: UnsafeMutablePointer<Caffe__InnerProductParameter>?
        var lrn: UnsafeMutablePointer<Caffe__LRNParameter>?
        var relu: UnsafeMutablePointer<Caffe__ReLUParameter>?
        var eltwise: UnsafeMutablePointer<Caffe__EltwiseParameter>?
        var concat: UnsafeMutablePointer<Caffe__ConcatParameter>?
        var softmax: UnsafeMutablePointer<Caffe__SoftmaxParameter>?
        var power: UnsafeMutablePointer<Caffe__PowerParameter>?
        var slice: UnsafeMutablePointer<Caffe__SliceParameter>?
        var batchNorm: UnsafeMutablePointer<Caffe__BatchNormParameter>?
        var scale: UnsafeMutablePointer<Caffe__ScaleParameter>?
        var elu: UnsafeMutablePointer<Caffe__ELUParameter>?
        var prelu: UnsafeMutablePointer<Caffe__PReLUParameter>?
        var flatten: UnsafeMutablePointer<Caffe__FlattenParameter>?
        var reshape: UnsafeMutablePointer<Caffe__ReshapeParameter>?
        var crop: UnsafeMutablePointer<Caffe__CropParameter>?
        var input: UnsafeMutablePointer<Caffe__InputParameter>?
        var permute: UnsafeMutablePointer<Caffe__PermuteParameter>?
        var normalize: UnsafeMutablePointer<Caffe__NormalizeParameter>?
        var argMax: UnsafeMutablePointer<Caffe__ArgMaxParameter>?
        var bias: UnsafeMutablePointer<Caffe__BiasParameter>?
        var dropout: UnsafeMutablePointer<Caffe__DropoutParameter>?
        var priorBox: UnsafeMutablePointer<Caffe__PriorBoxParameter>?
        var detectionOutput: UnsafeMutablePointer<Caffe__DetectionOutputParameter>?
    }
}

extension CaffeLayer.Params {
    /// The parameter messages both formats have (all a V1 layer has); the others nil.
    init(shared l: some CaffeLayerFields) {
        self.init(convolution: l.convolution_param, pooling: l.pooling_param, innerProduct: l.inner_product_param,
                  lrn: l.lrn_param, relu: l.relu_param, eltwise: l.eltwise_param, concat: l.concat_param,
                  softmax: l.softmax_param, power: l.power_param, slice: l.slice_param, argMax: l.argmax_param,
                  dropout: l.dropout_param)
    }
}

/// The fields the current and the V1 layer messages share, one for one.
protocol CaffeLayerFields {
    var name: UnsafeMutablePointer<CChar>! { get }
    var n_bottom: Int { get }
    var bottom: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>! { get }
    var n_top: Int { get }
    var top: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>! { get }
    var n_blobs: Int { get }
    var blobs: UnsafeMutablePointer<UnsafeMutablePointer<BlobProto>?>! { get }
    var n_include: Int { get }
    var include: UnsafeMutablePointer<UnsafeMutablePointer<Caffe__NetStateRule>?>! { get }
    var n_exclude: Int { get }
    var exclude: UnsafeMutablePointer<UnsafeMutablePointer<Caffe__NetStateRule>?>! { get }
    var convolution_param: UnsafeMutablePointer<Caffe__ConvolutionParameter>! { get }
    var pooling_param: UnsafeMutablePointer<Caffe__PoolingParameter>! { get }
    var inner_product_param: UnsafeMutablePointer<Caffe__InnerProductParameter>! { get }
    var lrn_param: UnsafeMutablePointer<Caffe__LRNParameter>! { get }
    var relu_param: UnsafeMutablePointer<Caffe__ReLUParameter>! { get }
    var eltwise_param: UnsafeMutablePointer<Caffe__EltwiseParameter>! { get }
    var concat_param: UnsafeMutablePointer<Caffe__ConcatParameter>! { get }
    var softmax_param: UnsafeMutablePointer<Caffe__SoftmaxParameter>! { get }
    var power_param: UnsafeMutablePointer<Caffe__PowerParameter>! { get }
    var slice_param: UnsafeMutablePointer<Caffe__SliceParameter>! { get }
    var argmax_param: UnsafeMutablePointer<Caffe__ArgMaxParameter>! { get }
    var dropout_param: UnsafeMutablePointer<Caffe__DropoutParameter>! { get }
}

extension LayerParameter: CaffeLayerFields {}
extension V1LayerParameter: CaffeLayerFields {}

/// A parsed deploy definition: its declared inputs and its layers.
struct CaffeNet {
    /// Which of the two formats the file uses, for summaries.
    enum Format: String { case current = "Caffe net", legacyV1 = "Caffe V1 net" }

    var format: Format
    /// Inputs declared at the top (`input:`), with the byte offset of their
    /// `input_shape` in the text when they have one (for error locations).
    var inputs: [(name: String, shape: [Int], offset: Int?)]
    var layers: [CaffeLayer]
    let decoded: Decoded<NetParameter>
    /// The prototxt itself, kept alive by `decoded`, for line numbers.
    let text: UnsafeRawBufferPointer

    /// Layers of either format, in file order (a file uses one or the other).
    init(_ decoded: Decoded<NetParameter>, text: UnsafeRawBufferPointer) throws {
        self.decoded = decoded
        self.text = text
        let net = decoded.root.pointee
        let current = CArrays.buffer(net.layer, net.n_layer).compactMap { $0 }
        let legacy = CArrays.buffer(net.layers, net.n_layers).compactMap { $0 }
        format = legacy.isEmpty ? .current : .legacyV1
        layers = try current.map { try Self.layer($0, decoded) } + legacy.map { try Self.layer($0, decoded) }
        inputs = try Self.declaredInputs(net, decoded)
        try Self.checkDistinct(names: layers.flatMap { layer in ([layer.name] + layer.bottoms + layer.tops).map { ($0, layer.offset) } }
                                      + inputs.map { ($0.name, $0.offset ?? 0) })
    }

    /// A name as Caffe keeps it: its bytes. Names reach the Core ML file,
    /// whose strings are UTF-8, so bytes that are not UTF-8 are refused
    /// (decoding them would replace them with U+FFFD, and two tops that
    /// differ only there would become one blob, silently rewiring the graph).
    static func name(_ pointer: UnsafePointer<CChar>?, _ what: String, at offset: Int) throws(DecodeError) -> String {
        guard let pointer else { return "" }
        guard let name = String(validatingCString: pointer) else {
            let shown = String(cString: pointer).unicodeScalars.map { $0 == "\u{FFFD}" ? "\\?" : String($0) }.joined()
            throw DecodeError("\(what) '\(shown)' is not valid UTF-8 (Core ML names are UTF-8 text)", offset: offset)
        }
        return name
    }

    static func names(_ pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ count: Int, _ what: String,
                      at offset: Int) throws(DecodeError) -> [String] {
        var names: [String] = []
        for element in CArrays.buffer(pointer, count) { names.append(try name(element, what, at: offset)) }
        return names
    }

    /// Caffe compares names byte for byte; Swift compares text up to
    /// Unicode equivalence ("é" precomposed equals "e" + U+0301). Two names
    /// that are different bytes but equal text would be one blob or one
    /// layer here and two in Caffe: refused.
    static func checkDistinct(names: [(String, Int)]) throws(DecodeError) {
        var seen: [String: [UInt8]] = [:]
        for (name, offset) in names {
            let bytes = Array(name.utf8)
            if let other = seen[name], other != bytes {
                throw DecodeError("the names '\(name)' (bytes \(hex(bytes))) and (bytes \(hex(other))) are different names to Caffe "
                                  + "but the same Unicode text; rename one", offset: offset)
            }
            seen[name] = bytes
        }
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String($0, radix: 16) }.joined(separator: " ") }

    /// `input: "data"` with four `input_dim`s, or with an `input_shape`.
    static func declaredInputs(_ net: NetParameter, _ decoded: Decoded<NetParameter>) throws -> [(name: String, shape: [Int], offset: Int?)] {
        let names = try Self.names(net.input, net.n_input, "the input", at: 0)
        let shapes = CArrays.buffer(net.input_shape, net.n_input_shape)
        let dims = CArrays.array(net.input_dim, net.n_input_dim).map { Int($0) }
        // Four per input, no more: a fifth would be dropped without a word.
        let usingDims = max(names.count - shapes.count, 0)
        guard dims.isEmpty || dims.count == 4 * usingDims else {
            throw CaffeError("the net lists \(dims.count) input_dim values for \(usingDims) input(s) without input_shape: "
                             + "Caffe takes exactly 4 (N, C, H, W) per input")
        }
        var inputs: [(name: String, shape: [Int], offset: Int?)] = []
        for (index, name) in names.enumerated() {
            if index < shapes.count, let shape = shapes[index] {
                inputs.append((name, CArrays.array(shape.pointee.dim, shape.pointee.n_dim).map { Int($0) }, decoded.offset(of: shape)))
            } else if dims.count >= 4 * (index - shapes.count + 1) {
                let start = 4 * (index - shapes.count)
                inputs.append((name, Array(dims[start..<start + 4]), nil))
            } else {
                throw CaffeError("input '\(name)' has no shape (input_dim or input_shape)")
            }
        }
        return inputs
    }

    static func layer(_ layer: UnsafeMutablePointer<LayerParameter>, _ decoded: Decoded<NetParameter>) throws -> CaffeLayer {
        let l = layer.pointee
        let offset = decoded.offset(of: layer)
        var params = CaffeLayer.Params(shared: l)
        (params.batchNorm, params.scale, params.elu, params.prelu) = (l.batch_norm_param, l.scale_param, l.elu_param, l.prelu_param)
        (params.flatten, params.reshape, params.crop, params.input) = (l.flatten_param, l.reshape_param, l.crop_param, l.input_param)
        (params.permute, params.normalize, params.bias) = (l.permute_param, l.norm_param, l.bias_param)
        (params.priorBox, params.detectionOutput) = (l.prior_box_param, l.detection_output_param)
        return try self.layer(l, type: { () throws(DecodeError) in try name(l.type, "the layer type", at: offset) }, offset: offset, params: params)
    }

    /// The layer `l` (current or V1) with its `type`, read after its name.
    static func layer(_ l: some CaffeLayerFields, type: () throws(DecodeError) -> String, offset: Int,
                      params: CaffeLayer.Params) throws(DecodeError) -> CaffeLayer {
        CaffeLayer(name: try name(l.name, "the layer name", at: offset), type: try type(),
                   bottoms: try names(l.bottom, l.n_bottom, "the bottom", at: offset),
                   tops: try names(l.top, l.n_top, "the top", at: offset),
                   offset: offset, params: params,
                   inlineBlobs: Array(CArrays.buffer(l.blobs, l.n_blobs)),
                   isTrainingOnly: trainingOnly(CArrays.buffer(l.include, l.n_include), CArrays.buffer(l.exclude, l.n_exclude)))
    }

    /// Whether Caffe's TEST net leaves the layer out (net.cpp FilterNet): with
    /// include rules, unless one of them meets TEST; else if an exclude rule
    /// meets TEST. A rule meets TEST unless it names another phase.
    static func trainingOnly(_ include: UnsafeBufferPointer<UnsafeMutablePointer<Caffe__NetStateRule>?>,
                             _ exclude: UnsafeBufferPointer<UnsafeMutablePointer<Caffe__NetStateRule>?>) -> Bool {
        func meetsTest(_ rule: UnsafeMutablePointer<Caffe__NetStateRule>?) -> Bool {
            rule.map { $0.pointee.has_phase == 0 || $0.pointee.phase == CAFFE__PHASE__TEST } ?? true
        }
        return include.isEmpty ? exclude.contains(where: meetsTest) : !include.contains(where: meetsTest)
    }

    static func layer(_ layer: UnsafeMutablePointer<V1LayerParameter>, _ decoded: Decoded<NetParameter>) throws -> CaffeLayer {
        let l = layer.pointee
        let offset = decoded.offset(of: layer)
        return try self.layer(l, type: { v1TypeNames[Int(l.type.rawValue)] ?? "V1 type \(l.type.rawValue)" }, offset: offset, params: CaffeLayer.Params(shared: l))
    }

    /// V1's enum layer types under their current names.
    static let v1TypeNames: [Int: String] = [
        35: "AbsVal", 1: "Accuracy", 30: "ArgMax", 2: "BNLL", 3: "Concat", 37: "ContrastiveLoss", 4: "Convolution",
        5: "Data", 39: "Deconvolution", 6: "Dropout", 32: "DummyData", 7: "EuclideanLoss", 25: "Eltwise", 38: "Exp",
        8: "Flatten", 9: "HDF5Data", 10: "HDF5Output", 28: "HingeLoss", 11: "Im2col", 12: "ImageData",
        13: "InfogainLoss", 14: "InnerProduct", 15: "LRN", 29: "MemoryData", 16: "MultinomialLogisticLoss",
        34: "MVN", 17: "Pooling", 26: "Power", 18: "ReLU", 19: "Sigmoid", 27: "SigmoidCrossEntropyLoss",
        36: "Silence", 20: "Softmax", 21: "SoftmaxWithLoss", 22: "Split", 33: "Slice", 23: "TanH",
        24: "WindowData", 31: "Threshold",
    ]
}

/// A Caffe model that cannot be converted: a missing blob, an unknown layer
/// type, a shape that does not fit. The message names the layer; the
/// converter adds the file and line.
public typealias CaffeError = MessageError<CaffeErrorKind>
public enum CaffeErrorKind {}

import CProtobufC
import Conversion
import CaffeSchema
import Protobuf

/// What each layer mapping does with each field of its parameter message
/// (DESIGN 20): honoured, inert, or accepted at Caffe's default only. The
/// fields a layer's message carries are read from protobuf-c's descriptors
/// (`PresentFields`), so a field the deploy file sets is checked whatever
/// its value; one the ledger does not list refuses the model naming the
/// layer and the field. A parameter message of another layer type (a
/// `pooling_param` on a ReLU) is ignored by Caffe, and here.
enum CaffeLedgers {
    static let window = ["pad", "pad_h", "pad_w", "kernel_size", "kernel_h", "kernel_w", "stride", "stride_h", "stride_w"]
    static let convolution = AttributeLedger(honours: ["num_output", "bias_term", "dilation", "group"] + window, only: ["axis": "1"])

    static let ledgers = AttributeLedgers([
        "Convolution": convolution,
        "Deconvolution": convolution,
        "Pooling": AttributeLedger(honours: ["pool", "global_pooling", "round_mode"] + window),
        "InnerProduct": AttributeLedger(honours: ["num_output", "bias_term", "axis", "transpose"]),
        "ReLU": AttributeLedger(honours: ["negative_slope"]),
        "PReLU": AttributeLedger(honours: ["channel_shared"]),
        "Sigmoid": .none,
        "TanH": .none,
        "ELU": AttributeLedger(honours: ["alpha"]),
        "AbsVal": .none,
        "Power": AttributeLedger(honours: ["power", "scale", "shift"]),
        // use_global_stats false normalizes with the batch's own statistics (Caffe's TEST default is true).
        "BatchNorm": AttributeLedger(honours: ["eps"], inert: ["moving_average_fraction"], only: ["use_global_stats": "true"]),
        "Scale": AttributeLedger(honours: ["axis", "num_axes", "bias_term"]),
        "Bias": AttributeLedger(only: ["axis": "1", "num_axes": "1"]),
        "LRN": AttributeLedger(honours: ["local_size", "alpha", "beta", "norm_region", "k"]),
        "Softmax": AttributeLedger(honours: ["axis"]),
        "Concat": AttributeLedger(honours: ["axis", "concat_dim"]),
        "Eltwise": AttributeLedger(honours: ["operation", "coeff"]),
        "Flatten": AttributeLedger(honours: ["axis", "end_axis"]),
        "Reshape": AttributeLedger(honours: ["shape"], only: ["axis": "0", "num_axes": "-1"]),
        "Slice": AttributeLedger(honours: ["axis", "slice_point", "slice_dim"]),
        "Crop": AttributeLedger(honours: ["axis", "offset"]),
        "Permute": AttributeLedger(honours: ["order"]),
        "Normalize": AttributeLedger(honours: ["across_spatial", "channel_shared", "eps"]),
        "ArgMax": AttributeLedger(honours: ["out_max_val", "top_k", "axis"]),
        "Input": AttributeLedger(honours: ["shape"]),
        "Dropout": AttributeLedger(inert: ["dropout_ratio"]),
        "Split": .none,
        "Silence": .none,
        "PriorBox": AttributeLedger(honours: ["min_size", "max_size", "aspect_ratio", "flip", "clip", "variance", "img_size",
                                             "img_h", "img_w", "step", "step_h", "step_w", "offset"]),
        // The detector pipeline replaces DetectionOutput's suppression with Core ML's: keep_top_k caps the
        // suppression's output rows (its shape range, the most confident kept); nms_param's nms_threshold is
        // its IoU threshold, an eta other than 1 (adaptive suppression) is refused, and a top_k below the
        // number of priors (a cap on each class's candidates, which Core ML's suppression has not) is refused
        // unless the user accepts the uncapped suppression (`ignoresCandidateCap`, --ignore-top-k).
        "DetectionOutput": AttributeLedger(honours: ["num_classes", "share_location", "background_label_id", "nms_param", "code_type",
                                                    "variance_encoded_in_target", "confidence_threshold", "keep_top_k"],
                                           inert: ["save_output_param"]),
    ])

    /// Every layer type the converter takes: the op table's and those the
    /// graph builder handles itself (inputs, identities, SSD's priors).
    static var mappedTypes: [String] {
        Array(CaffeLayerTable.mappings.keys) + ["Input", "Dropout", "Split", "Silence", "PriorBox", "DetectionOutput"]
    }

    /// Fields of BVLC Caffe's parameter messages that Schemas/caffe.proto
    /// leaves out, all without effect on inference (initializers of learned
    /// blobs, the compute engine, gradient settings, SSD's drawing options).
    /// The text decoder skips them; any other field it skips inside a
    /// layer's parameter message (a fork's: `ceil_mode`, Dropout's
    /// `scale_train`) is refused, since this converter cannot know it.
    static let unlistedInert: [String: Set<String>] = [
        "caffe.ConvolutionParameter": ["weight_filler", "bias_filler", "engine", "force_nd_im2col"],
        "caffe.InnerProductParameter": ["weight_filler", "bias_filler"],
        "caffe.PoolingParameter": ["engine"],
        "caffe.LRNParameter": ["engine"],
        "caffe.ReLUParameter": ["engine"],
        "caffe.SoftmaxParameter": ["engine"],
        "caffe.EltwiseParameter": ["stable_prod_grad"],
        "caffe.ScaleParameter": ["filler", "bias_filler"],
        "caffe.BiasParameter": ["filler"],
        "caffe.PReLUParameter": ["filler"],
        "caffe.NormalizeParameter": ["scale_filler"],
        "caffe.DetectionOutputParameter": ["visualize", "visualize_threshold", "save_file"],
    ]

    /// The parameter message that `layer`'s type reads, if the layer has it.
    static func parameters(_ layer: CaffeLayer) -> UnsafeRawPointer? {
        let p = layer.params
        let message: UnsafeRawPointer?
        switch layer.type {
        case "Convolution", "Deconvolution": message = p.convolution.map(UnsafeRawPointer.init)
        case "Pooling": message = p.pooling.map(UnsafeRawPointer.init)
        case "InnerProduct": message = p.innerProduct.map(UnsafeRawPointer.init)
        case "ReLU": message = p.relu.map(UnsafeRawPointer.init)
        case "PReLU": message = p.prelu.map(UnsafeRawPointer.init)
        case "ELU": message = p.elu.map(UnsafeRawPointer.init)
        case "Power": message = p.power.map(UnsafeRawPointer.init)
        case "BatchNorm": message = p.batchNorm.map(UnsafeRawPointer.init)
        case "Scale": message = p.scale.map(UnsafeRawPointer.init)
        case "Bias": message = p.bias.map(UnsafeRawPointer.init)
        case "LRN": message = p.lrn.map(UnsafeRawPointer.init)
        case "Softmax": message = p.softmax.map(UnsafeRawPointer.init)
        case "Concat": message = p.concat.map(UnsafeRawPointer.init)
        case "Eltwise": message = p.eltwise.map(UnsafeRawPointer.init)
        case "Flatten": message = p.flatten.map(UnsafeRawPointer.init)
        case "Reshape": message = p.reshape.map(UnsafeRawPointer.init)
        case "Slice": message = p.slice.map(UnsafeRawPointer.init)
        case "Crop": message = p.crop.map(UnsafeRawPointer.init)
        case "Permute": message = p.permute.map(UnsafeRawPointer.init)
        case "Normalize": message = p.normalize.map(UnsafeRawPointer.init)
        case "ArgMax": message = p.argMax.map(UnsafeRawPointer.init)
        case "Input": message = p.input.map(UnsafeRawPointer.init)
        case "Dropout": message = p.dropout.map(UnsafeRawPointer.init)
        case "PriorBox": message = p.priorBox.map(UnsafeRawPointer.init)
        case "DetectionOutput": message = p.detectionOutput.map(UnsafeRawPointer.init)
        default: message = nil
        }
        return message
    }

    /// The fields of the parameter message that `layer`'s type reads.
    static func present(_ layer: CaffeLayer) -> [(name: String, value: String)] {
        parameters(layer).map(PresentFields.list) ?? []
    }

    /// The first field of `layer`'s parameter message that the schema does
    /// not know and that is not one of BVLC's inert ones, or nil.
    static func unknownField(_ layer: CaffeLayer) -> UnknownTextFields.Field? {
        guard let message = parameters(layer), let descriptor = message.assumingMemoryBound(to: ProtobufCMessage.self).pointee.descriptor else {
            return nil
        }
        let name = String(cString: descriptor.pointee.name)
        return layer.unknownFields.first { $0.message == name && !(unlistedInert[name]?.contains($0.name) ?? false) }
    }

    /// The clause refusing `layer` for a field its mapping does not take, or nil.
    static func refusal(_ layer: CaffeLayer) -> String? {
        guard ledgers[layer.type] != nil else { return nil }  // an unknown type is refused by name elsewhere
        let present = present(layer)
        // NaN and infinities: no Caffe parameter means anything at those.
        if let hostile = present.first(where: { $0.value.split(separator: ",").contains { ["nan", "-nan", "inf", "-inf"].contains($0) } }) {
            return "\(hostile.name) '\(hostile.value)' is not a finite number"
        }
        return ledgers.refusal(op: layer.type, present: present)
    }

    /// How many learned blobs Caffe's layer of this type and these
    /// parameters has: a weights file giving another number is refused,
    /// as Caffe refuses it ("Incompatible number of blobs").
    static func blobCount(_ layer: CaffeLayer) -> Int {
        let p = layer.params
        switch layer.type {
        case "Convolution", "Deconvolution": return 1 + ((p.convolution?.pointee.bias_term ?? 1) != 0 ? 1 : 0)
        case "InnerProduct": return 1 + ((p.innerProduct?.pointee.bias_term ?? 1) != 0 ? 1 : 0)
        case "BatchNorm": return 3
        case "Scale": return (layer.bottoms.count == 1 ? 1 : 0) + ((p.scale?.pointee.bias_term ?? 0) != 0 ? 1 : 0)
        case "Bias": return layer.bottoms.count == 1 ? 1 : 0
        case "PReLU", "Normalize": return 1
        default: return 0
        }
    }
}

import Conversion
import Foundation

/// What each Keras layer mapping does with each key of a layer's config
/// (DESIGN 20): honoured (the mapping reads it), inert (it cannot change
/// what inference computes: names, initializers, regularizers, constraints,
/// dropout rates, the random augmentations' settings), or accepted at
/// Keras's default only. A key none lists is refused by name, before the
/// mapping runs: a Keras 3.x key this converter has not seen (Dense's
/// `lora_rank`, say) stops the conversion instead of being dropped.
///
/// Keras 2 (tf_keras) and Keras 3 configs differ: both spellings are
/// listed (LeakyReLU `alpha` / `negative_slope`; `dtype` a string or a
/// DTypePolicy dictionary; Keras 2's convolutions all carry `groups`, its
/// SeparableConv2D Conv2D's `kernel_*` keys, its Dense `activity_regularizer`,
/// its first Sequential layer `batch_input_shape`; Keras 3's Dense
/// `quantization_config`, its BatchNormalization `synchronized` and `renorm*`).
/// The sweep's keras2_* cases are files tf_keras wrote.
enum KerasLayerLedgers {
    /// Keys every layer may carry. `dtype` float32 only: a float16 or
    /// mixed policy computes in another precision, a quantized one
    /// (int8_from_float32) stores other weights.
    static let common: [String: AttributeLedger.Rule] = [
        "name": .inert, "trainable": .inert, "dtype": .only("float32"),
        // Keras 2's first layer of a Sequential model: the graph reads it as the input shape.
        "batch_input_shape": .inert, "batch_shape": .inert, "input_shape": .inert,
    ]

    /// Initializers, regularizers and constraints: training only.
    static func training(_ prefixes: [String]) -> [String] {
        prefixes.flatMap { ["\($0)_initializer", "\($0)_regularizer", "\($0)_constraint"] } + ["activity_regularizer"]
    }

    static func ledger(honours: [String] = [], inert: [String] = [], only: [String: String] = [:]) -> AttributeLedger {
        var rules = common
        for name in honours { rules[name] = .honoured }
        for name in inert { rules[name] = .inert }
        for (name, value) in only { rules[name] = .only(value) }
        return AttributeLedger(rules)
    }

    static let window = ["kernel_size", "strides", "padding", "dilation_rate", "activation", "use_bias"]
    /// A channels_first map would need transposes around the layer, which the mappings do not make.
    static let channelsLast = ["data_format": "channels_last"]
    /// Identity at inference: every key inert.
    static let augmentation = ["seed", "data_format", "factor", "mode", "fill_mode", "fill_value", "interpolation",
                               "height_factor", "width_factor", "value_range"]

    /// The model's inputs, read by KerasGraph (not a mapping): an integer
    /// dtype would truncate what Keras is fed, which a float input does not.
    static let inputLayer = ledger(honours: ["batch_shape", "batch_input_shape"], inert: ["sparse", "ragged", "optional"])

    static let ledgers = AttributeLedgers([
        "InputLayer": inputLayer,
        // data_format: channels_last only, on every convolution and pooling (their mappings' requireChannelsLast).
        "Conv2D": ledger(honours: window + ["filters", "groups"], inert: training(["kernel", "bias"]), only: channelsLast),
        "DepthwiseConv2D": ledger(honours: window + ["depth_multiplier"], inert: training(["depthwise", "bias"]),
                                  only: channelsLast.merging(["groups": "1"]) { $1 }),
        // Keras 2 writes Conv2D's kernel_* keys on it too (unused: its kernels are depthwise_ and pointwise_).
        "SeparableConv2D": ledger(honours: window + ["filters", "depth_multiplier"],
                                  inert: training(["depthwise", "pointwise", "bias", "kernel"]), only: channelsLast.merging(["groups": "1"]) { $1 }),
        // dilation_rate: not implemented (Keras dilates the kernel; Core ML's deconvolution is not checked to).
        "Conv2DTranspose": ledger(honours: ["kernel_size", "strides", "padding", "activation", "use_bias", "filters", "output_padding"],
                                  inert: training(["kernel", "bias"]),
                                  only: channelsLast.merging(["dilation_rate": "[1, 1]", "groups": "1"]) { $1 }),
        "Dense": ledger(honours: ["units", "activation", "use_bias"], inert: training(["kernel", "bias"]),
                        only: ["quantization_config": "null"]),
        // Inference uses the moving statistics: momentum, renorm and synchronization are training only.
        "BatchNormalization": ledger(honours: ["axis", "epsilon", "center", "scale"],
                                     inert: training(["beta", "gamma", "moving_mean", "moving_variance"])
                                        + ["momentum", "synchronized", "renorm", "renorm_clipping", "renorm_momentum", "virtual_batch_size"]),
        "Activation": ledger(honours: ["activation"]),
        "ReLU": ledger(honours: ["max_value", "negative_slope", "threshold"]),
        "LeakyReLU": ledger(honours: ["negative_slope", "alpha"]),
        "PReLU": ledger(honours: ["shared_axes"], inert: training(["alpha"])),
        "ELU": ledger(honours: ["alpha"]),
        "Softmax": ledger(honours: ["axis"]),
        "MaxPooling2D": ledger(honours: ["pool_size", "strides", "padding"], only: channelsLast),
        "AveragePooling2D": ledger(honours: ["pool_size", "strides", "padding"], only: channelsLast),
        "GlobalAveragePooling2D": ledger(honours: ["keepdims"], only: channelsLast),
        "GlobalMaxPooling2D": ledger(honours: ["keepdims"], only: channelsLast),
        "Flatten": ledger(honours: ["data_format"]),
        "Reshape": ledger(honours: ["target_shape"]),
        "Permute": ledger(honours: ["dims"]),
        "Dropout": ledger(inert: ["rate", "noise_shape", "seed"]),
        "SpatialDropout2D": ledger(inert: ["rate", "seed", "data_format"]),
        "GaussianNoise": ledger(inert: ["stddev", "seed"]),
        "GaussianDropout": ledger(inert: ["rate", "seed"]),
        "ActivityRegularization": ledger(inert: ["l1", "l2"]),
        "ZeroPadding2D": ledger(honours: ["padding"], only: ["data_format": "channels_last"]),
        "Cropping2D": ledger(honours: ["cropping"], only: ["data_format": "channels_last"]),
        "UpSampling2D": ledger(honours: ["size", "interpolation"], only: ["data_format": "channels_last"]),
        "Concatenate": ledger(honours: ["axis"]),
        "Add": ledger(), "Multiply": ledger(), "Average": ledger(), "Maximum": ledger(), "Minimum": ledger(), "Subtract": ledger(),
        "Rescaling": ledger(honours: ["scale", "offset"]),
        "Normalization": ledger(honours: ["axis", "mean", "variance", "invert"]),
        "Identity": ledger(),
        "LayerNormalization": ledger(honours: ["axis", "epsilon", "center", "scale", "rms_scaling"], inert: training(["beta", "gamma"])),
        // keras.applications' own layers (ConvNeXt, InceptionResNetV2): init_values only seeds the stored gamma.
        "LayerScale": ledger(honours: ["projection_dim"], inert: ["init_values"]),
        "CustomScaleLayer": ledger(honours: ["scale"]),
        "StochasticDepth": ledger(inert: ["drop_path_rate"]),
        "RandomFlip": ledger(inert: augmentation), "RandomRotation": ledger(inert: augmentation),
        "RandomZoom": ledger(inert: augmentation), "RandomTranslation": ledger(inert: augmentation),
        "RandomContrast": ledger(inert: augmentation), "RandomBrightness": ledger(inert: augmentation),
    ])

    /// The clause refusing the layer's config, or nil when every key is allowed.
    static func refusal(_ layer: KerasLayer) -> String? {
        ledgers.refusal(op: layer.className, present: layer.config.keys.sorted().map { ($0, render(layer.config[$0]!, key: $0)) })
    }

    /// A config value as the ledger compares it: JSON's spelling, with a
    /// whole number as an integer ("1", not "1.0"), a list as "[1, 1]",
    /// and a dtype policy dictionary as its name (Keras 2 writes "float32",
    /// Keras 3 {"class_name": "DTypePolicy", "config": {"name": "float32"}}).
    static func render(_ value: Any, key: String = "") -> String {
        switch value {
        case is NSNull: return "null"
        case let string as String: return string
        case let list as [Any]: return "[" + list.map { render($0) }.joined(separator: ", ") + "]"
        case let dictionary as [String: Any]:
            if key == "dtype", let config = dictionary["config"] as? [String: Any], let name = config["name"] as? String { return name }
            return (dictionary["class_name"] as? String).map { "{\($0)}" } ?? "{...}"
        default:
            if KerasBuilder.isBoolean(value) { return (value as? Bool ?? false) ? "true" : "false" }
            if let int = KerasBuilder.integer(value) { return String(int) }
            if let number = KerasBuilder.number(value) { return "\(number)" }
            return "\(value)"
        }
    }
}

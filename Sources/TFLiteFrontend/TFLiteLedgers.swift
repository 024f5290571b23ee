import Conversion

/// The builtin options tables the op table reads (schema.fbs: the
/// BuiltinOptions union's members, numbered from 1 in declaration order),
/// their fields by id, and what each mapping does with each field (DESIGN
/// 20): a field the ledger does not allow, present in the file, refuses the
/// model naming the operator and the field.
enum TFLiteOptions {
    enum Kind { case int, float, bool, padding, activation, tensorType, vector, weightsFormat }

    struct Table {
        let name: String
        let fields: [(name: String, kind: Kind)]
    }

    /// BuiltinOptions union type -> table. Enums are bytes: Padding SAME 0,
    /// VALID 1; ActivationFunctionType NONE 0, RELU 1, RELU_N1_TO_1 2,
    /// RELU6 3, TANH 4, SIGN_BIT 5.
    static let tables: [UInt8: Table] = [
        1: Table(name: "Conv2DOptions", fields: [("padding", .padding), ("stride_w", .int), ("stride_h", .int), ("fused_activation_function", .activation),
                                                 ("dilation_w_factor", .int), ("dilation_h_factor", .int), ("quantized_bias_type", .tensorType)]),
        2: Table(name: "DepthwiseConv2DOptions", fields: [("padding", .padding), ("stride_w", .int), ("stride_h", .int), ("depth_multiplier", .int),
                                                          ("fused_activation_function", .activation), ("dilation_w_factor", .int),
                                                          ("dilation_h_factor", .int)]),
        5: Table(name: "Pool2DOptions", fields: [("padding", .padding), ("stride_w", .int), ("stride_h", .int), ("filter_width", .int),
                                                 ("filter_height", .int), ("fused_activation_function", .activation)]),
        8: Table(name: "FullyConnectedOptions", fields: [("fused_activation_function", .activation), ("weights_format", .weightsFormat),
                                                         ("keep_num_dims", .bool), ("asymmetric_quantize_inputs", .bool),
                                                         ("quantized_bias_type", .tensorType)]),
        9: Table(name: "SoftmaxOptions", fields: [("beta", .float)]),
        10: Table(name: "ConcatenationOptions", fields: [("axis", .int), ("fused_activation_function", .activation)]),
        11: Table(name: "AddOptions", fields: [("fused_activation_function", .activation), ("pot_scale_int16", .bool)]),
        15: Table(name: "ResizeBilinearOptions", fields: [("new_height", .int), ("new_width", .int), ("align_corners", .bool),
                                                         ("half_pixel_centers", .bool)]),
        17: Table(name: "ReshapeOptions", fields: [("new_shape", .vector)]),
        21: Table(name: "MulOptions", fields: [("fused_activation_function", .activation)]),
        22: Table(name: "PadOptions", fields: []),
        27: Table(name: "ReducerOptions", fields: [("keep_dims", .bool)]),
        28: Table(name: "SubOptions", fields: [("fused_activation_function", .activation), ("pot_scale_int16", .bool)]),
        74: Table(name: "ResizeNearestNeighborOptions", fields: [("align_corners", .bool), ("half_pixel_centers", .bool)]),
        91: Table(name: "HardSwishOptions", fields: []),
    ]

    static let activations = ["NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT"]

    /// The fields present in `options` (an operator's table of type
    /// `type`), values rendered as the ledgers spell them; a field id past
    /// the known ones is named "field N".
    static func present(_ options: FlatTable?, type: UInt8) throws(TFLiteError) -> [(name: String, value: String)] {
        guard let options, let table = tables[type] else { return [] }
        var present: [(name: String, value: String)] = []
        for (id, field) in table.fields.enumerated() where options.has(id) {
            let value: String
            switch field.kind {
            case .int: value = "\(try options.i32(id) ?? 0)"
            case .float: value = "\(try options.f32(id) ?? 0)"
            case .bool: value = try options.u8(id) ?? 0 != 0 ? "true" : "false"
            case .padding: value = try options.u8(id).map { $0 == 0 ? "SAME" : $0 == 1 ? "VALID" : "\($0)" } ?? "SAME"
            case .activation: value = try options.u8(id).map { Int($0) < activations.count ? activations[Int($0)] : "\($0)" } ?? "NONE"
            case .tensorType: value = TFLiteModel.typeName(Int8(bitPattern: try options.u8(id) ?? 0))
            case .weightsFormat: value = try options.u8(id).map { $0 == 0 ? "DEFAULT" : $0 == 1 ? "SHUFFLED4x16INT8" : "\($0)" } ?? "DEFAULT"
            case .vector: value = "\(try options.int32s(id, "\(field.name)"))"
            }
            present.append((field.name, value))
        }
        present += options.presentFields(from: table.fields.count).map { ("field \($0)", "present") }
        return present
    }

    static let fused = "fused_activation_function"

    /// Each mapped operator's ledger, by its BuiltinOperator name.
    static let ledgers = AttributeLedgers([
        "CONV_2D": AttributeLedger(honours: ["padding", "stride_w", "stride_h", fused, "dilation_w_factor", "dilation_h_factor"],
                                   only: ["quantized_bias_type": "FLOAT32"]),
        // depth_multiplier: checked against the kernel's channels (TFLite ignores it since 2.1; the kernel's shape decides).
        "DEPTHWISE_CONV_2D": AttributeLedger(honours: ["padding", "stride_w", "stride_h", "depth_multiplier", fused,
                                                       "dilation_w_factor", "dilation_h_factor"]),
        "AVERAGE_POOL_2D": AttributeLedger(honours: ["padding", "stride_w", "stride_h", "filter_width", "filter_height", fused]),
        "MAX_POOL_2D": AttributeLedger(honours: ["padding", "stride_w", "stride_h", "filter_width", "filter_height", fused]),
        // asymmetric_quantize_inputs: how a hybrid kernel (int8 weights, float input) quantizes its input on the fly;
        // the input is taken in float here.
        "FULLY_CONNECTED": AttributeLedger(honours: [fused], inert: ["asymmetric_quantize_inputs"],
                                           only: ["weights_format": "DEFAULT", "keep_num_dims": "false", "quantized_bias_type": "FLOAT32"]),
        "SOFTMAX": AttributeLedger(honours: ["beta"]),
        "CONCATENATION": AttributeLedger(honours: ["axis", fused]),
        // pot_scale_int16: the int16 kernels' scaling, nothing a float model computes.
        "ADD": AttributeLedger(honours: [fused], inert: ["pot_scale_int16"]),
        "SUB": AttributeLedger(honours: [fused], inert: ["pot_scale_int16"]),
        "MUL": AttributeLedger(honours: [fused]),
        "RESHAPE": AttributeLedger(honours: ["new_shape"]),
        // new_height, new_width: deprecated, and LiteRT's kernel ignores them (it reads the size input, as here).
        // align_corners with half_pixel_centers is refused by the mapping (`TFLiteResize`); nearest's align_corners rounds
        // i (n - 1) / (n s - 1), other pixels than the repeated ones.
        "RESIZE_BILINEAR": AttributeLedger(honours: ["align_corners", "half_pixel_centers"], inert: ["new_height", "new_width"]),
        "RESIZE_NEAREST_NEIGHBOR": AttributeLedger(honours: ["half_pixel_centers"], only: ["align_corners": "false"]),
        "MEAN": AttributeLedger(honours: ["keep_dims"]),
        "PAD": .none, "HARD_SWISH": .none, "LOGISTIC": .none, "RELU": .none, "RELU6": .none, "RELU_N1_TO_1": .none, "TANH": .none,
        "QUANTIZE": .none, "DEQUANTIZE": .none,
    ])

    /// The options table each mapped operator carries (0: none).
    static let expectedTypes: [String: UInt8] = [
        "CONV_2D": 1, "DEPTHWISE_CONV_2D": 2, "AVERAGE_POOL_2D": 5, "MAX_POOL_2D": 5, "FULLY_CONNECTED": 8, "SOFTMAX": 9,
        "CONCATENATION": 10, "ADD": 11, "RESIZE_BILINEAR": 15, "RESHAPE": 17, "MUL": 21, "PAD": 22, "MEAN": 27, "SUB": 28,
        "RESIZE_NEAREST_NEIGHBOR": 74, "HARD_SWISH": 91,
    ]
}


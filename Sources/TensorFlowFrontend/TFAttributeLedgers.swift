import Conversion
import TensorFlowSchema
import Protobuf

/// What each TensorFlow op the converter takes does with each attribute
/// (DESIGN 20): honoured, inert, or accepted at one value; any other
/// attribute, or another value, refuses the node by name before its
/// mapping (or the constant folder) runs. Covers every op of the op table,
/// the multiple-output table, the constant folder and the walk itself
/// (Placeholder, Const, NoOp); `AttributeSweepTests` keeps it so.
///
/// `T` (and `U`, a batch norm's parameter type; `dtype` of a
/// PlaceholderWithDefault) is honoured by the walk: a node that becomes a
/// layer computes float32 and refuses any other type by name
/// (`TFNode.requireFloat32`); a node the constant folder evaluates takes
/// the numeric types it computes exactly (`ConstantEvaluator`).
extension TFOpTable {
    /// Attributes TensorFlow attaches to any node that cannot change what
    /// it computes: shape hints, colocation, bookkeeping of tf.function.
    static let inertEverywhere = ["_output_shapes", "_class", "_has_manual_control_dependencies", "_user_specified_name"]

    static let ledgers: AttributeLedgers = {
        var table: [String: AttributeLedger] = [:]
        func add(_ ops: [String], honours: [String] = [], inert: [String] = [], only: [String: String] = [:]) {
            for op in ops { table[op] = AttributeLedger(honours: honours, inert: inert + inertEverywhere, only: only) }
        }
        // The walk.
        add(["Placeholder"], honours: ["shape"], only: ["dtype": "DT_FLOAT"])
        add(["Const"], honours: ["value", "dtype"])
        add(["NoOp", "_GELU", "_Repeat"])
        add(["Identity", "StopGradient", "Snapshot"], honours: ["T"])
        add(["PlaceholderWithDefault"], honours: ["dtype"], inert: ["shape"])
        add(["IdentityN"], honours: ["T"], inert: ["_gradient_op_type"])
        // Convolutions and pooling: NHWC only (Core ML's layers are channel-first, the converter transposes NHWC).
        let window = ["T", "strides", "padding", "explicit_paddings", "dilations"]
        add(["Conv2D"], honours: window, inert: ["use_cudnn_on_gpu"], only: ["data_format": "NHWC"])
        // Not dilated: TensorFlow's CPU kernel has no dilated transposed convolution either.
        add(["Conv2DBackpropInput"], honours: window.filter { $0 != "dilations" }, inert: ["use_cudnn_on_gpu"],
            only: ["data_format": "NHWC", "dilations": "[1, 1, 1, 1]"])
        add(["DepthwiseConv2dNative"], honours: window, only: ["data_format": "NHWC"])
        add(["MaxPool"], honours: ["T", "ksize", "strides", "padding", "explicit_paddings"], only: ["data_format": "NHWC"])
        add(["AvgPool"], honours: ["T", "ksize", "strides", "padding"], only: ["data_format": "NHWC"])
        add(["BiasAdd"], honours: ["T"], only: ["data_format": "NHWC"])
        // A batch norm's running-average factor matters only when training, which is refused (is_training false only:
        // a frozen graph's batch norm uses its moving statistics).
        add(["FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"], honours: ["T", "U", "epsilon"],
            inert: ["exponential_avg_factor"], only: ["data_format": "NHWC", "is_training": "false"])
        add(["SpaceToDepth"], honours: ["T", "block_size"], only: ["data_format": "NHWC"])
        // Element-wise.
        add(["Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "SquaredDifference", "Neg", "Sqrt", "Rsqrt",
             "Reciprocal", "Square", "Abs", "Relu", "Relu6", "Elu", "Sigmoid", "Tanh", "Softmax"], honours: ["T"])
        add(["LeakyRelu"], honours: ["T", "alpha"])
        // Reductions, shapes, slices.
        add(["Mean", "Max", "Sum", "Prod"], honours: ["T", "Tidx", "keep_dims"])
        add(["ConcatV2"], honours: ["T", "N", "Tidx"])
        add(["Pack"], honours: ["T", "N", "axis"])
        add(["Pad", "PadV2"], honours: ["T", "Tpaddings"])
        add(["MirrorPad"], honours: ["T", "Tpaddings", "mode"])
        add(["Reshape"], honours: ["T", "Tshape"])
        add(["Squeeze"], honours: ["T", "squeeze_dims"])
        add(["ExpandDims"], honours: ["T", "Tdim"])
        add(["Shape"], honours: ["T", "out_type"])
        add(["Cast"], honours: ["SrcT", "DstT"], only: ["Truncate": "false"])
        add(["Transpose"], honours: ["T", "Tperm"])
        add(["StridedSlice"], honours: ["T", "Index", "begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"])
        add(["Split"], honours: ["T", "num_split"])
        add(["SplitV"], honours: ["T", "Tlen", "num_split"])
        // Matrix products: gradient bookkeeping of TF 2.x cannot change the product.
        add(["MatMul"], honours: ["T", "transpose_a", "transpose_b"], inert: ["grad_a", "grad_b"])
        add(["ResizeNearestNeighbor", "ResizeBilinear"], honours: ["T", "align_corners", "half_pixel_centers"])
        return AttributeLedgers(table)
    }()

    /// Every op type the walk takes: the op tables, the folder, the walk's own.
    static let knownOps: Set<String> = {
        Set(mappings.keys).union(multipleOutputMappings.keys).union(ConstantEvaluator.foldable).union(["Placeholder", "Const", "NoOp"])
    }()
}

extension TFNode {
    /// The node's attributes in file order, values as TensorFlow's pbtxt
    /// spells them (types by name, lists in brackets, tensors elided).
    var renderedAttributes: [(name: String, value: String)] {
        attributeEntries.compactMap { entry in
            guard let entry, let key = entry.pointee.key else { return nil }
            return (String(cString: key), entry.pointee.value.map { Self.render($0.pointee) } ?? "")
        }
    }

    /// The name TensorFlow gives a data type ("DT_FLOAT").
    static func typeName(_ type: Tensorflow__DataType) -> String {
        switch type {
        case TENSORFLOW__DATA_TYPE__DT_FLOAT: "DT_FLOAT"
        case TENSORFLOW__DATA_TYPE__DT_DOUBLE: "DT_DOUBLE"
        case TENSORFLOW__DATA_TYPE__DT_INT32: "DT_INT32"
        case TENSORFLOW__DATA_TYPE__DT_UINT8: "DT_UINT8"
        case TENSORFLOW__DATA_TYPE__DT_INT16: "DT_INT16"
        case TENSORFLOW__DATA_TYPE__DT_INT8: "DT_INT8"
        case TENSORFLOW__DATA_TYPE__DT_STRING: "DT_STRING"
        case TENSORFLOW__DATA_TYPE__DT_INT64: "DT_INT64"
        case TENSORFLOW__DATA_TYPE__DT_BOOL: "DT_BOOL"
        case TENSORFLOW__DATA_TYPE__DT_HALF: "DT_HALF"
        default: "DT_\(type.rawValue)"  // bfloat16 (14), complex, quantized...: named by number
        }
    }

    static func render(_ value: AttrValue) -> String {
        switch value.value_case {
        case TENSORFLOW__ATTR_VALUE__VALUE_S:
            guard let data = value.s.data else { return "" }
            return String(decoding: UnsafeBufferPointer(start: data, count: value.s.len), as: UTF8.self)
        case TENSORFLOW__ATTR_VALUE__VALUE_I: return String(value.i)
        case TENSORFLOW__ATTR_VALUE__VALUE_F: return "\(value.f)"
        case TENSORFLOW__ATTR_VALUE__VALUE_B: return value.b != 0 ? "true" : "false"
        case TENSORFLOW__ATTR_VALUE__VALUE_TYPE: return typeName(value.type)
        case TENSORFLOW__ATTR_VALUE__VALUE_SHAPE:
            guard let shape = value.shape else { return "[]" }
            if shape.pointee.unknown_rank != 0 { return "unknown rank" }
            return "[" + CArrays.buffer(shape.pointee.dim, shape.pointee.n_dim).map { String($0?.pointee.size ?? -1) }.joined(separator: ", ") + "]"
        case TENSORFLOW__ATTR_VALUE__VALUE_TENSOR: return "<tensor>"
        case TENSORFLOW__ATTR_VALUE__VALUE_FUNC: return CArrays.string(value.func?.pointee.name)
        case TENSORFLOW__ATTR_VALUE__VALUE_LIST:
            guard let list = value.list?.pointee else { return "[]" }
            var items: [String] = CArrays.array(list.i, list.n_i).map { String($0) }
            items += CArrays.array(list.f, list.n_f).map { "\($0)" }
            items += CArrays.array(list.b, list.n_b).map { $0 != 0 ? "true" : "false" }
            items += CArrays.array(list.type, list.n_type).map(typeName)
            items += CArrays.array(list.s, list.n_s).map { bytes in
                bytes.data.map { String(decoding: UnsafeBufferPointer(start: $0, count: bytes.len), as: UTF8.self) } ?? ""
            }
            if list.n_shape > 0 || list.n_tensor > 0 { items.append("<\(list.n_shape + list.n_tensor) shapes or tensors>") }
            return "[" + items.joined(separator: ", ") + "]"
        default: return ""
        }
    }

    /// The types a node that becomes a layer computes in: float32 only.
    /// `T` (a list for IdentityN), `U` and a PlaceholderWithDefault's
    /// `dtype` must be DT_FLOAT.
    func requireFloat32() throws {
        for key in ["T", "U", "dtype"] {
            guard let value = self[attribute: key] else { continue }
            let types: [Tensorflow__DataType]
            switch value.pointee.value_case {
            case TENSORFLOW__ATTR_VALUE__VALUE_TYPE: types = [value.pointee.type]
            case TENSORFLOW__ATTR_VALUE__VALUE_LIST: types = value.pointee.list.map { CArrays.array($0.pointee.type, $0.pointee.n_type) } ?? []
            default: throw fail("\(key) is not a data type")
            }
            if let other = types.first(where: { $0 != TENSORFLOW__DATA_TYPE__DT_FLOAT }) {
                throw fail("\(key) \(Self.typeName(other)) is not supported (the converted model computes float32)")
            }
        }
    }

    /// The data type in attribute `key`, if it holds one.
    func type(_ key: String) -> Tensorflow__DataType? {
        guard let value = self[attribute: key], value.pointee.value_case == TENSORFLOW__ATTR_VALUE__VALUE_TYPE else { return nil }
        return value.pointee.type
    }
}

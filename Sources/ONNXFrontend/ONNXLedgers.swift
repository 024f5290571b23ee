import Conversion
import ONNXSchema
import Protobuf

/// What each ONNX op the converter takes does with each attribute (DESIGN
/// 20): the mapped ops (`ONNXOpTable.mappings`), the ops folded on
/// constants at conversion (`ONNXFolding.foldable`) and Erf (taken only as
/// part of GELU). The walk asks `refusal(for:)` before a node is folded or
/// mapped; an attribute not listed here refuses the model at any value.
/// Values are rendered as `render` spells them: ints `1`, floats as Swift
/// prints a Float (`0.5`), strings as they are, lists `[1, 2]`.
enum ONNXLedgers {
    private static let window = ["auto_pad", "dilations", "kernel_shape", "pads", "strides"]
    /// noop_with_empty_axes 1 would make a node without axes an identity.
    private static let reduction = AttributeLedger(honours: ["axes", "keepdims"], only: ["noop_with_empty_axes": "0"])

    static let ledgers = AttributeLedgers([
        // Mapped ops.
        "Identity": .none,
        // ratio and seed only matter in training; opset 12's training_mode is an input (refused when true).
        "Dropout": AttributeLedger(inert: ["ratio", "seed"]),
        "Conv": AttributeLedger(honours: window + ["group"]),
        // momentum only updates running statistics in training; training_mode 1 computes batch statistics.
        "BatchNormalization": AttributeLedger(honours: ["epsilon"], inert: ["momentum"], only: ["training_mode": "0", "spatial": "1"]),
        "Relu": .none, "Sigmoid": .none, "Tanh": .none, "Softplus": .none, "HardSwish": .none,
        "LeakyRelu": AttributeLedger(honours: ["alpha"]),
        "Elu": AttributeLedger(honours: ["alpha"]),
        "HardSigmoid": AttributeLedger(honours: ["alpha", "beta"]),
        "Clip": AttributeLedger(honours: ["min", "max"]),
        "Add": .none, "Sub": .none, "Mul": .none, "Div": .none,
        "Gemm": AttributeLedger(honours: ["alpha", "beta", "transA", "transB"]),
        "MatMul": .none,
        // storage_order only orders the Indices output, which is refused.
        "MaxPool": AttributeLedger(honours: window + ["ceil_mode"], inert: ["storage_order"]),
        "AveragePool": AttributeLedger(honours: window + ["ceil_mode", "count_include_pad"]),
        "GlobalAveragePool": .none, "GlobalMaxPool": .none,
        "Flatten": AttributeLedger(honours: ["axis"]),
        "Reshape": AttributeLedger(honours: ["allowzero"]),
        "Squeeze": AttributeLedger(honours: ["axes"]),
        "Unsqueeze": AttributeLedger(honours: ["axes"]),
        "Concat": AttributeLedger(honours: ["axis"]),
        "Softmax": AttributeLedger(honours: ["axis"]),
        "LogSoftmax": AttributeLedger(honours: ["axis"]),
        "CumSum": AttributeLedger(honours: ["exclusive", "reverse"]),
        "ReduceMean": reduction, "ReduceSum": reduction, "ReduceMax": reduction, "ReduceMin": reduction, "ReduceProd": reduction,
        "ReduceL2": reduction, "ReduceSumSquare": reduction, "ReduceLogSumExp": reduction,
        "Split": AttributeLedger(honours: ["axis", "split", "num_outputs"]),
        "Sum": .none, "Mean": .none,
        "DepthToSpace": AttributeLedger(honours: ["blocksize", "mode"]),
        "SpaceToDepth": AttributeLedger(honours: ["blocksize"]),
        "Pad": AttributeLedger(honours: ["mode", "pads", "value"]),
        "ConvTranspose": AttributeLedger(honours: window + ["group", "output_padding", "output_shape"]),
        // cubic_coeff_a only weighs the cubic mode, and extrapolation_value only
        // fills tf_crop_and_resize's outside: both modes are refused.
        "Resize": AttributeLedger(honours: ["mode", "coordinate_transformation_mode", "nearest_mode", "axes"],
                                  inert: ["cubic_coeff_a", "extrapolation_value"],
                                  only: ["antialias": "0", "exclude_outside": "0", "keep_aspect_ratio_policy": "stretch"]),
        // scales is an attribute before opset 9 only (the converter takes 9 to 21): refused, not read for the input.
        "Upsample": AttributeLedger(honours: ["mode"]),
        "Sqrt": .none, "Exp": .none, "Log": .none, "Abs": .none, "Reciprocal": .none, "Neg": .none,
        "Pow": .none, "PRelu": .none,
        "Selu": AttributeLedger(honours: ["alpha", "gamma"]),
        "Gelu": AttributeLedger(honours: ["approximate"]),
        "Max": .none, "Min": .none,
        "InstanceNormalization": AttributeLedger(honours: ["epsilon"]),
        "Transpose": AttributeLedger(honours: ["perm"]),
        "Gather": AttributeLedger(honours: ["axis"]),
        // stash_type 1 computes the statistics in float32, as the runtime does.
        "LayerNormalization": AttributeLedger(honours: ["axis", "epsilon"], only: ["stash_type": "1"]),
        "Erf": .none,
        "Equal": .none, "Less": .none, "Greater": .none, "LessOrEqual": .none, "GreaterOrEqual": .none, "Where": .none,
        "Not": .none, "And": .none, "Or": .none, "Xor": .none,
        // Folded on constants only.
        "Constant": AttributeLedger(honours: ["value", "value_float", "value_floats", "value_int", "value_ints"]),
        // saturate only changes casts to float8 types, which are refused.
        "Cast": AttributeLedger(honours: ["to"], inert: ["saturate"]),
        "Shape": AttributeLedger(honours: ["start", "end"]),
        "Slice": AttributeLedger(honours: ["starts", "ends", "axes"]),
        "Floor": .none, "Ceil": .none, "Range": .none, "Expand": .none,
        "ConstantOfShape": AttributeLedger(honours: ["value"]),
        "Mod": AttributeLedger(honours: ["fmod"]),
        "Sign": .none,
        // reduction (opset 16) adds or multiplies instead of replacing.
        "ScatterND": AttributeLedger(only: ["reduction": "none"]),
        "Einsum": AttributeLedger(honours: ["equation"]),
        // batch_dims other than 0 gathers per batch entry.
        "GatherND": AttributeLedger(only: ["batch_dims": "0"]),
    ])

    /// Every op type a node may have: mapped, folded, or fused (Erf).
    static var known: Set<String> { Set(ONNXOpTable.mappings.keys).union(ONNXOpTable.multiOutput.keys).union(ONNXFolding.foldable).union(["Erf"]) }

    /// Attributes whose float values may be infinite (Clip's open bounds);
    /// every other float attribute must be finite.
    private static let infinityAllowed: Set<String> = ["Clip.min", "Clip.max"]

    /// The type each attribute the converter reads must have: the readers
    /// take one field (an INT `alpha` would read as 0.0), so another type
    /// is refused. Keyed by name, or by "Op.name" where an op differs.
    private static let kinds: [String: ONNXNode.AttributeKind] = {
        var kinds: [String: ONNXNode.AttributeKind] = [:]
        for name in ["alpha", "beta", "epsilon", "momentum", "min", "max", "ratio", "gamma", "cubic_coeff_a", "extrapolation_value",
                     "value_float", "Pad.value"] { kinds[name] = .float }
        for name in ["axis", "group", "ceil_mode", "count_include_pad", "storage_order", "transA", "transB", "keepdims", "allowzero", "to",
                     "start", "end", "training_mode", "spatial", "noop_with_empty_axes", "antialias", "exclude_outside", "fmod", "stash_type",
                     "saturate", "value_int", "seed", "num_outputs", "blocksize"] { kinds[name] = .int }
        for name in ["pads", "strides", "dilations", "kernel_shape", "output_padding", "output_shape", "perm", "axes", "starts", "ends",
                     "value_ints", "split"] { kinds[name] = .ints }
        for name in ["mode", "auto_pad", "coordinate_transformation_mode", "nearest_mode", "approximate", "keep_aspect_ratio_policy", "equation"] { kinds[name] = .string }
        for name in ["value_floats", "scales"] { kinds[name] = .floats }
        for name in ["Constant.value", "ConstantOfShape.value"] { kinds[name] = .tensor }
        return kinds
    }()

    /// The error for a node whose attributes are not all allowed, or nil.
    static func refusal(for node: ONNXNode) -> ONNXError? {
        refusalClause(for: node).map(node.fail)
    }

    /// Why the node's attributes are refused, without the node's name
    /// (`auto_pad SAME_LOWER is not supported`), or nil.
    static func refusalClause(for node: ONNXNode) -> String? {
        let present = node.renderedAttributes()
        if present.contains(where: { $0.name.isEmpty }) { return "has an attribute without a name" }
        if let clause = ledgers.refusal(op: node.op, present: present) { return clause }
        for entry in node.attributes {
            guard let attribute = entry?.pointee, let name = attribute.name.map({ String(cString: $0) }) else { continue }
            // Files that leave the type unset (old exporters) are read by the field that holds a value.
            if attribute.type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED, let expected = kinds["\(node.op).\(name)"] ?? kinds[name],
               ONNXNode.kind(attribute) != expected {
                return "\(name) has type \(ONNXNode.kind(attribute)), not \(expected)"
            }
            let floats = ONNXNode.kind(attribute) == .float ? [attribute.f] : ONNXNode.kind(attribute) == .floats
                ? CArrays.array(attribute.floats, attribute.n_floats) : []
            for value in floats where value.isNaN || (value.isInfinite && !infinityAllowed.contains("\(node.op).\(name)")) {
                return "\(name) \(value) is not a finite number"
            }
        }
        return nil
    }
}

extension ONNXNode {
    enum AttributeKind { case float, int, string, tensor, floats, ints, strings, other }

    /// The attribute's type; files that leave `type` unset are read by
    /// which field holds a value.
    static func kind(_ a: OnnxAttribute) -> AttributeKind {
        switch a.type {
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: return .float
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT: return .int
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: return .string
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: return .tensor
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS: return .floats
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS: return .ints
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS: return .strings
        case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED:
            if a.n_ints > 0 { return .ints }
            if a.n_floats > 0 { return .floats }
            if a.n_strings > 0 { return .strings }
            if a.t != nil { return .tensor }
            if a.s.len > 0 { return .string }
            return a.f != 0 ? .float : .int
        default: return .other
        }
    }

    /// The node's attributes as (name, value) in the ledgers' spelling.
    func renderedAttributes() -> [(name: String, value: String)] {
        attributes.compactMap { entry in
            guard let a = entry?.pointee else { return nil }
            let name = a.name.map { String(cString: $0) } ?? ""
            let value: String
            switch Self.kind(a) {
            case .float: value = "\(a.f)"
            case .int: value = "\(a.i)"
            case .string: value = a.s.len > 0 && a.s.data != nil ? String(decoding: UnsafeBufferPointer(start: a.s.data, count: a.s.len), as: UTF8.self) : ""
            case .tensor: value = "tensor"
            case .floats: value = "\(CArrays.array(a.floats, a.n_floats))"
            case .ints: value = "\(CArrays.array(a.ints, a.n_ints))"
            case .strings: value = "strings"
            case .other: value = "type \(a.type.rawValue)"
            }
            return (name, value)
        }
    }
}

import ModelFormat
import CoreMLSchema
import Protobuf

// Split, flatten, padding, crop,
// upsample and load-constant.

extension Split: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SPLIT] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.split, core_ml__specification__split_layer_params__init) { p in
            p.noutputs = UInt64(node.outputs.count)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        guard Int(clamping: layer.split.pointee.noutputs) == layer.n_output else {
            throw reader.fail("layer '\(name)': split into \(layer.split.pointee.noutputs) parts, but \(layer.n_output) outputs", at: layer.split)
        }
        return .split
    }
}

extension Flatten: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_FLATTEN] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.flatten, core_ml__specification__flatten_layer_params__init) { p in
            p.mode = order == .channelFirst
                ? CORE_ML__SPECIFICATION__FLATTEN_LAYER_PARAMS__FLATTEN_ORDER__CHANNEL_FIRST
                : CORE_ML__SPECIFICATION__FLATTEN_LAYER_PARAMS__FLATTEN_ORDER__CHANNEL_LAST
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        .flatten(try reader.order(layer.flatten.pointee.mode.rawValue, name, at: layer.flatten))
    }
}

extension Padding: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_PADDING] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.padding, core_ml__specification__padding_layer_params__init) { p in
            switch kind {
            case .constant(let value):
                let constant: UnsafeMutablePointer<CoreML__Specification__PaddingLayerParams__PaddingConstant> =
                    builder.new(core_ml__specification__padding_layer_params__padding_constant__init)
                constant.pointee.value = value
                p.padding_type_case = CORE_ML__SPECIFICATION__PADDING_LAYER_PARAMS__PADDING_TYPE_CONSTANT
                p.constant = constant
            case .reflection:
                p.padding_type_case = CORE_ML__SPECIFICATION__PADDING_LAYER_PARAMS__PADDING_TYPE_REFLECTION
                p.reflection = builder.new(core_ml__specification__padding_layer_params__padding_reflection__init)
            case .replication:
                p.padding_type_case = CORE_ML__SPECIFICATION__PADDING_LAYER_PARAMS__PADDING_TYPE_REPLICATION
                p.replication = builder.new(core_ml__specification__padding_layer_params__padding_replication__init)
            }
            p.paddingamounts = builder.borderAmounts(edges)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let params = layer.padding!
        let p = params.pointee
        let kind: Padding.Kind
        switch p.padding_type_case {
        case CORE_ML__SPECIFICATION__PADDING_LAYER_PARAMS__PADDING_TYPE_CONSTANT: kind = .constant(p.constant.pointee.value)
        case CORE_ML__SPECIFICATION__PADDING_LAYER_PARAMS__PADDING_TYPE_REFLECTION: kind = .reflection
        case CORE_ML__SPECIFICATION__PADDING_LAYER_PARAMS__PADDING_TYPE_REPLICATION: kind = .replication
        default: throw reader.fail("layer '\(name)' has no padding type", at: params)
        }
        return .padding(Padding(kind: kind, edges: try reader.edges(p.paddingamounts, name)))
    }
}

extension Crop: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CROP] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.crop, core_ml__specification__crop_layer_params__init) { p in
            switch self {
            case .edges(let edges): p.cropamounts = builder.borderAmounts(edges)
            case .like(let offset): (p.n_offset, p.offset) = builder.uint64s(offset)
            }
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.crop.pointee
        if layer.n_input == 2 { return .crop(.like(offset: try reader.counts(p.offset, p.n_offset, name, allowZero: true))) }
        return .crop(.edges(try reader.edges(p.cropamounts, name)))
    }
}

/// Bilinear upsampling with aligned corners or half-pixel centers is
/// specification 5's linearUpsampleMode.
extension Upsample: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_UPSAMPLE] }
    var specificationVersion: Int32 { mode == .bilinear && alignment != .legacy ? 5 : 1 }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.upsample, core_ml__specification__upsample_layer_params__init) { p in
            // The two are mutually exclusive (Core ML's validator).
            if fractionalScale.isEmpty {
                (p.n_scalingfactor, p.scalingfactor) = builder.uint64s([scale.height, scale.width])
            } else {
                (p.n_fractionalscalingfactor, p.fractionalscalingfactor) = builder.floats(fractionalScale)
            }
            p.mode = mode == .nearest
                ? CORE_ML__SPECIFICATION__UPSAMPLE_LAYER_PARAMS__INTERPOLATION_MODE__NN
                : CORE_ML__SPECIFICATION__UPSAMPLE_LAYER_PARAMS__INTERPOLATION_MODE__BILINEAR
            guard mode == .bilinear else { return }
            p.linearupsamplemode = switch alignment {
            case .legacy: CORE_ML__SPECIFICATION__UPSAMPLE_LAYER_PARAMS__LINEAR_UPSAMPLE_MODE__DEFAULT
            case .alignCorners: CORE_ML__SPECIFICATION__UPSAMPLE_LAYER_PARAMS__LINEAR_UPSAMPLE_MODE__ALIGN_CORNERS_TRUE
            case .halfPixel: CORE_ML__SPECIFICATION__UPSAMPLE_LAYER_PARAMS__LINEAR_UPSAMPLE_MODE__ALIGN_CORNERS_FALSE
            }
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let params = layer.upsample!
        let p = params.pointee
        let mode: Upsample.Mode
        switch p.mode {
        case CORE_ML__SPECIFICATION__UPSAMPLE_LAYER_PARAMS__INTERPOLATION_MODE__NN: mode = .nearest
        case CORE_ML__SPECIFICATION__UPSAMPLE_LAYER_PARAMS__INTERPOLATION_MODE__BILINEAR: mode = .bilinear
        default: throw reader.fail("layer '\(name)' has the unknown upsampling mode \(p.mode.rawValue)", at: params)
        }
        let alignment: Upsample.Alignment
        switch p.linearupsamplemode {
        case CORE_ML__SPECIFICATION__UPSAMPLE_LAYER_PARAMS__LINEAR_UPSAMPLE_MODE__DEFAULT: alignment = .legacy
        case CORE_ML__SPECIFICATION__UPSAMPLE_LAYER_PARAMS__LINEAR_UPSAMPLE_MODE__ALIGN_CORNERS_TRUE: alignment = .alignCorners
        case CORE_ML__SPECIFICATION__UPSAMPLE_LAYER_PARAMS__LINEAR_UPSAMPLE_MODE__ALIGN_CORNERS_FALSE: alignment = .halfPixel
        default: throw reader.fail("layer '\(name)' has the unknown linear upsampling mode \(p.linearupsamplemode.rawValue)", at: params)
        }
        // A structure-only decode reads this field too (CoreMLReader's readInStructure); any other leaves it nil.
        guard p.n_fractionalscalingfactor == 0 || p.fractionalscalingfactor != nil else {
            throw reader.fail("layer '\(name)': its fractionalScalingFactor was not read", at: params)
        }
        let fractional = p.n_fractionalscalingfactor > 0 ? Array(UnsafeBufferPointer(start: p.fractionalscalingfactor, count: p.n_fractionalscalingfactor)) : []
        guard fractional.isEmpty || p.n_scalingfactor == 0 else {
            throw reader.fail("layer '\(name)' sets both scalingFactor and fractionalScalingFactor", at: params)
        }
        return .upsample(Upsample(scale: try reader.size2(p.scalingfactor, p.n_scalingfactor, default: 1, "scalingFactor", name), mode: mode,
                                  alignment: mode == .bilinear ? alignment : .legacy, fractionalScale: fractional))
    }
}

/// Load-constant-ND of specification 4; in a model of maps the writer
/// makes a [C, H, W] one the classic load-constant layer (`MapConstant`).
extension Constant: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LOAD_CONSTANT_ND] }
    var specificationVersion: Int32 { 4 }
    var layerTypeName: String { "loadConstantND" }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.loadconstantnd, core_ml__specification__load_constant_ndlayer_params__init) { p in
            p.data = builder.shaped(shape, data, "data", &p.n_shape, &p.shape)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.loadconstantnd.pointee
        let (shape, data) = try reader.shaped(p.shape, p.n_shape, p.data, "data", of: name)
        return .constant(shape: shape, data: data)
    }
}

import ModelFormat
import CoreMLSchema

// Convolution and pooling: ConvolutionLayerParams, PoolingLayerParams.

extension Convolution: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CONVOLUTION] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.convolution, core_ml__specification__convolution_layer_params__init) { p in
            p.outputchannels = UInt64(outputChannels)
            p.kernelchannels = UInt64(kernelChannels)
            p.ngroups = UInt64(groups)
            (p.n_kernelsize, p.kernelsize) = builder.uint64s([kernel.height, kernel.width])
            (p.n_stride, p.stride) = builder.uint64s([stride.height, stride.width])
            (p.n_dilationfactor, p.dilationfactor) = builder.uint64s([dilation.height, dilation.width])
            // A oneof (a C union): its case, and the one pointer that case sets.
            switch builder.windowPadding(padding) {
            case .valid(let valid): (p.convolution_padding_type_case, p.valid) = (ConvolutionPadding.valid, valid)
            case .same(let same): (p.convolution_padding_type_case, p.same) = (ConvolutionPadding.same, same)
            }
            p.isdeconvolution = isDeconvolution ? 1 : 0
            (p.n_outputshape, p.outputshape) = builder.uint64s(outputShape)
            builder.weightsAndBias(weights, bias, channels: quantizationChannels(weights.count), &p.weights, &p.hasbias, &p.bias)
        }
    }

    /// Output channels, along the first axis of a convolution's weights and
    /// the second of a deconvolution's (one channel for a grouped
    /// deconvolution, whose per-group axis Core ML's validator does not take).
    func quantizationChannels(_ count: Int) -> ChannelLayout {
        guard isDeconvolution else { return .leading(outputChannels, count: count) }
        return groups == 1 ? ChannelLayout(channels: outputChannels, inner: max(kernel.height * kernel.width, 1)) : .whole(count)
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.convolution.pointee
        let padding: WindowPadding
        switch p.convolution_padding_type_case {
        case CORE_ML__SPECIFICATION__CONVOLUTION_LAYER_PARAMS__CONVOLUTION_PADDING_TYPE_SAME:
            padding = .same(topLeftHeavy: try reader.topLeftHeavy(p.same, name))
        case CORE_ML__SPECIFICATION__CONVOLUTION_LAYER_PARAMS__CONVOLUTION_PADDING_TYPE_VALID:
            padding = .explicit(try reader.edges(p.valid.pointee.paddingamounts, name))
        default:
            padding = .explicit(.zero)
        }
        var convolution = Convolution(
            outputChannels: try reader.count(p.outputchannels, "outputChannels", name),
            kernelChannels: try reader.count(p.kernelchannels, "kernelChannels", name),
            groups: p.ngroups == 0 ? 1 : try reader.count(p.ngroups, "nGroups", name),
            kernel: try reader.size2(p.kernelsize, p.n_kernelsize, default: 3, "kernelSize", name),
            stride: try reader.size2(p.stride, p.n_stride, default: 1, "stride", name),
            dilation: try reader.size2(p.dilationfactor, p.n_dilationfactor, default: 1, "dilationFactor", name),
            padding: padding, isDeconvolution: p.isdeconvolution != 0,
            outputShape: try reader.counts(p.outputshape, p.n_outputshape, name),
            weights: Weights([]), bias: nil)
        let count = convolution.weightTensors[0].shape.checkedProduct
        convolution.weights = try reader.weights(p.weights, "weights", of: name,
                                                 quantizable: QuantizableField(count: count, channels: convolution.quantizationChannels(count ?? 0)))
        convolution.bias = try reader.optionalWeights(p.hasbias, p.bias, "bias", of: name, quantizable: .whole(convolution.outputChannels))
        return .convolution(convolution)
    }
}

extension Pooling: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_POOLING] }
    /// PoolingLayerParams' PoolingType in the order of its numbers (MAX = 0,
    /// AVERAGE = 1, L2 = 2): one table for writing and reading.
    static let kinds: [Kind] = [.max, .average, .l2]

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.pooling, core_ml__specification__pooling_layer_params__init) { p in
            p.type = .init(UInt32(Self.kinds.firstIndex(of: kind)!))
            (p.n_kernelsize, p.kernelsize) = builder.uint64s([kernel.height, kernel.width])
            (p.n_stride, p.stride) = builder.uint64s([stride.height, stride.width])
            if case .includeLastPixel(let pads) = padding {
                let padding: UnsafeMutablePointer<MLIncludeLastPixel> = builder.new(core_ml__specification__pooling_layer_params__valid_complete_padding__init)
                (padding.pointee.n_paddingamounts, padding.pointee.paddingamounts) = builder.uint64s([pads.height, pads.width])
                p.pooling_padding_type_case = CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_PADDING_TYPE_INCLUDE_LAST_PIXEL
                p.includelastpixel = padding
            } else {
                switch builder.windowPadding(padding) {
                case .valid(let valid): (p.pooling_padding_type_case, p.valid) = (PoolingPadding.valid, valid)
                case .same(let same): (p.pooling_padding_type_case, p.same) = (PoolingPadding.same, same)
                }
            }
            p.avgpoolexcludepadding = excludePaddingFromAverage ? 1 : 0
            p.globalpooling = global ? 1 : 0
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let params = layer.pooling!
        let p = params.pointee
        let kind = try reader.enumCase(kinds, p.type.rawValue, "pooling type", of: name, at: params)
        let padding: WindowPadding
        switch p.pooling_padding_type_case {
        case CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_PADDING_TYPE_SAME:
            padding = .same(topLeftHeavy: try reader.topLeftHeavy(p.same, name))
        case CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_PADDING_TYPE_INCLUDE_LAST_PIXEL:
            let amounts = p.includelastpixel.pointee
            padding = .includeLastPixel(try reader.size2(amounts.paddingamounts, amounts.n_paddingamounts, default: 0,
                                                         "paddingAmounts", name, allowZero: true))
        case CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_PADDING_TYPE_VALID:
            padding = .explicit(try reader.edges(p.valid.pointee.paddingamounts, name))
        default:
            padding = .explicit(.zero)
        }
        // Global pooling ignores the kernel; coremltools writes it as [0, 0].
        let kernel = try reader.size2(p.kernelsize, p.n_kernelsize, default: 3, "kernelSize", name, allowZero: p.globalpooling != 0)
        return .pooling(Pooling(kind: kind, kernel: kernel,
                                stride: try reader.size2(p.stride, p.n_stride, default: 1, "stride", name), padding: padding,
                                excludePaddingFromAverage: p.avgpoolexcludepadding != 0, global: p.globalpooling != 0))
    }
}

/// A window's padding as one of Core ML's two messages.
enum PaddingMessage {
    case valid(UnsafeMutablePointer<MLValidPadding>)
    case same(UnsafeMutablePointer<MLSamePadding>)
}

extension SpecBuilder {
    /// Explicit or same padding as Core ML's message for it. Pooling's
    /// include-last-pixel padding has a message of its own; on a
    /// convolution (which validation refuses) it is written as its edges.
    func windowPadding(_ padding: WindowPadding) -> PaddingMessage {
        switch padding {
        case .explicit(let edges):
            return .valid(validPadding(edges))
        case .includeLastPixel(let pads):
            return .valid(validPadding(Edges(top: pads.height, bottom: pads.height, left: pads.width, right: pads.width)))
        case .same(let topLeftHeavy):
            let same: UnsafeMutablePointer<MLSamePadding> = new(core_ml__specification__same_padding__init)
            same.pointee.asymmetrymode = topLeftHeavy
                ? CORE_ML__SPECIFICATION__SAME_PADDING__SAME_PADDING_MODE__TOP_LEFT_HEAVY
                : CORE_ML__SPECIFICATION__SAME_PADDING__SAME_PADDING_MODE__BOTTOM_RIGHT_HEAVY
            return .same(same)
        }
    }

    func validPadding(_ edges: Edges) -> UnsafeMutablePointer<MLValidPadding> {
        let valid: UnsafeMutablePointer<MLValidPadding> = new(core_ml__specification__valid_padding__init)
        valid.pointee.paddingamounts = borderAmounts(edges)
        return valid
    }
}

/// The padding cases of the two window layers' oneofs.
private enum ConvolutionPadding {
    static let valid = CORE_ML__SPECIFICATION__CONVOLUTION_LAYER_PARAMS__CONVOLUTION_PADDING_TYPE_VALID
    static let same = CORE_ML__SPECIFICATION__CONVOLUTION_LAYER_PARAMS__CONVOLUTION_PADDING_TYPE_SAME
}

private enum PoolingPadding {
    static let valid = CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_PADDING_TYPE_VALID
    static let same = CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_PADDING_TYPE_SAME
}

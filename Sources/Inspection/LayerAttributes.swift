import ModelFormat

/// One attribute of a layer: its machine-readable value (every attribute
/// appears in `--json`) and, when it is worth showing in `--layers`, its
/// text there. Defaults (stride 1, no padding, one group, ...) and values
/// that the table's other columns already show have no text.
public struct LayerAttribute: Equatable, Sendable {
    public var key: String
    public var value: JSON
    /// `kernel 7x7`; nil when hidden in the table.
    public var text: String?

    public init(_ key: String, _ value: JSON, text: String?) {
        self.key = key
        self.value = value
        self.text = text
    }
}

extension Node {
    /// The operation's attributes; an add or multiply constant counts only
    /// with a single input, so it is hidden otherwise.
    public var attributes: [LayerAttribute] {
        var list = operation.attributes
        let takesConstant = switch operation {
        case .add, .multiply: true
        default: false
        }
        if takesConstant && inputs.count > 1 {
            for index in list.indices { list[index].text = nil }
        }
        return list
    }

    /// The table text of the attributes that are shown: `kernel 7x7, stride 4x4`.
    public var attributeText: String {
        attributes.compactMap(\.text).joined(separator: ", ")
    }
}

extension Op {
    /// The attributes of the operation, in a fixed order.
    public var attributes: [LayerAttribute] {
        switch self {
        case .convolution(let c):
            var list = [LayerAttribute("outputChannels", .int(c.outputChannels), text: nil),
                        LayerAttribute("kernelChannels", .int(c.kernelChannels), text: nil),
                        size("kernel", c.kernel, hideUnit: false)]
            list.append(size("stride", c.stride))
            list.append(size("dilation", c.dilation))
            list += padding(c.padding)
            list.append(LayerAttribute("groups", .int(c.groups), text: c.groups == 1 ? nil : "groups \(c.groups)"))
            if !c.outputShape.isEmpty {
                list.append(LayerAttribute("outputShape", .ints(c.outputShape), text: "output \(c.outputShape.map(String.init).joined(separator: "x"))"))
            }
            list.append(LayerAttribute("hasBias", .bool(c.bias != nil), text: c.bias == nil ? "no bias" : nil))
            return list
        case .pooling(let p):
            let kind = switch p.kind { case .max: "max"; case .average: "average"; case .l2: "l2" }
            var list = [LayerAttribute("kind", .string(kind), text: kind)]
            if p.global {
                list.append(LayerAttribute("global", .bool(true), text: "global"))
                return list
            }
            list.append(size("kernel", p.kernel, hideUnit: false))
            list.append(size("stride", p.stride))
            list += padding(p.padding)
            if p.kind == .average {
                list.append(LayerAttribute("excludePaddingFromAverage", .bool(p.excludePaddingFromAverage),
                                           text: p.excludePaddingFromAverage ? "exclude padding" : nil))
            }
            list.append(LayerAttribute("global", .bool(false), text: nil))
            return list
        case .innerProduct(let p):
            return [LayerAttribute("inputChannels", .int(p.inputChannels), text: nil),
                    LayerAttribute("outputChannels", .int(p.outputChannels), text: nil),
                    LayerAttribute("hasBias", .bool(p.bias != nil), text: p.bias == nil ? "no bias" : nil)]
        case .activation(let activation):
            return Self.activationAttributes(activation)
        case .batchNorm(let b):
            return [LayerAttribute("channels", .int(b.channels), text: nil),
                    LayerAttribute("epsilon", .float(b.epsilon), text: b.epsilon == 1e-5 ? nil : "epsilon \(b.epsilon)"),
                    LayerAttribute("computeMeanVar", .bool(b.computeMeanVar), text: b.computeMeanVar ? "compute mean/var" : nil),
                    LayerAttribute("instanceNormalization", .bool(b.instanceNormalization),
                                   text: b.instanceNormalization ? "instance normalization" : nil)]
        case .scale(let s):
            return [LayerAttribute("shape", .ints(s.shape), text: "shape \(dims(s.shape))"),
                    LayerAttribute("hasBias", .bool(s.bias != nil), text: s.bias != nil ? "bias \(dims(s.biasShape))" : nil)]
        case .bias(let b):
            return [LayerAttribute("shape", .ints(b.shape), text: "shape \(dims(b.shape))")]
        case .lrn(let l):
            return [LayerAttribute("localSize", .int(l.localSize), text: "size \(l.localSize)"),
                    LayerAttribute("alpha", .float(l.alpha), text: "alpha \(l.alpha)"),
                    LayerAttribute("beta", .float(l.beta), text: "beta \(l.beta)"),
                    LayerAttribute("k", .float(l.k), text: l.k == 1 ? nil : "k \(l.k)")]
        case .add(let constant):
            return [LayerAttribute("constant", .float(constant), text: constant == 0 ? nil : "constant \(constant)")]
        case .multiply(let constant):
            return [LayerAttribute("constant", .float(constant), text: constant == 1 ? nil : "constant \(constant)")]
        case .unary(let u):
            let kind = "\(u.kind)"
            var list = [LayerAttribute("function", .string(kind), text: kind)]
            let usesAlpha = u.kind == .power || u.kind == .threshold
            list.append(LayerAttribute("alpha", .float(u.alpha), text: usesAlpha ? "alpha \(u.alpha)" : nil))
            // Only rsqrt, inverse and log add epsilon; 1e-6 is Core ML's default.
            let usesEpsilon = u.kind == .rsqrt || u.kind == .inverse || u.kind == .log
            list.append(LayerAttribute("epsilon", .float(u.epsilon),
                                       text: usesEpsilon && u.epsilon != 0 && u.epsilon != 1e-6 ? "epsilon \(u.epsilon)" : nil))
            list.append(LayerAttribute("shift", .float(u.shift), text: u.shift == 0 ? nil : "shift \(u.shift)"))
            list.append(LayerAttribute("scale", .float(u.scale), text: u.scale == 1 ? nil : "scale \(u.scale)"))
            return list
        case .l2Normalize(let epsilon):
            return [LayerAttribute("epsilon", .float(epsilon), text: epsilon == 1e-6 ? nil : "epsilon \(epsilon)")]
        case .flatten(let channelOrder):
            return [self.order(channelOrder)]
        case .reshape(let target, let channelOrder):
            return [LayerAttribute("targetShape", .ints(target), text: "to \(dims(target))"), self.order(channelOrder)]
        case .permute(let axes):
            return [LayerAttribute("axes", .ints(axes), text: "axes \(dims(axes))")]
        case .padding(let p):
            let (kind, text): (String, String?) = switch p.kind {
            case .constant(let value): ("constant", value == 0 ? nil : "constant \(value)")
            case .reflection: ("reflection", "reflection")
            case .replication: ("replication", "replication")
            }
            var list = [LayerAttribute("kind", .string(kind), text: text)]
            if case .constant(let value) = p.kind { list.append(LayerAttribute("value", .float(value), text: nil)) }
            list.append(edges("pad", p.edges, hideZero: false))
            return list
        case .crop(.edges(let e)):
            return [edges("crop", e, hideZero: false)]
        case .crop(.like(let offset)):
            return [LayerAttribute("offset", .ints(offset), text: "like input 2, offset \(dims(offset))")]
        case .slice(let s):
            let axis = "\(s.axis)"
            return [LayerAttribute("axis", .string(axis), text: "axis \(axis)"),
                    LayerAttribute("start", .int(s.start), text: "start \(s.start)"),
                    LayerAttribute("end", .int(s.end), text: "end \(s.end)"),
                    LayerAttribute("stride", .int(s.stride), text: s.stride == 1 ? nil : "stride \(s.stride)")]
        case .reduce(let r):
            return [LayerAttribute("mode", .string("\(r.mode)"), text: "\(r.mode)"),
                    LayerAttribute("axes", .string("\(r.axes)".uppercased()), text: "over \("\(r.axes)".uppercased())"),
                    LayerAttribute("epsilon", .float(r.epsilon), text: r.epsilon == 1e-6 ? nil : "epsilon \(r.epsilon)")]
        case .upsample(let u):
            let mode = u.mode == .nearest ? "nearest" : "bilinear"
            return [size("scale", u.scale, hideUnit: false),
                    LayerAttribute("mode", .string(mode), text: u.mode == .nearest ? nil : mode)]
        case .constant(let shape, _):
            return [LayerAttribute("shape", .ints(shape), text: "shape \(dims(shape))")]
        case .softmax, .concat, .maximum, .minimum, .average, .split:
            return []
        case .defined(let op):
            return op.definition.attributes.map { LayerAttribute($0.key, JSON($0.value), text: $0.text) }
        }
    }

    /// The table text of the attributes that are shown: `kernel 7x7, stride 4x4`.
    public var attributeText: String {
        attributes.compactMap(\.text).joined(separator: ", ")
    }

    static func activationAttributes(_ activation: Activation) -> [LayerAttribute] {
        func function(_ name: String, _ parameters: [(String, Float)] = []) -> [LayerAttribute] {
            let text = ([name] + parameters.map { "\($0.0) \($0.1)" }).joined(separator: " ")
            return [LayerAttribute("function", .string(name), text: text)]
                + parameters.map { LayerAttribute($0.0, .float($0.1), text: nil) }
        }
        switch activation {
        case .relu: return function("relu")
        case .leakyRelu(let alpha): return function("leakyRelu", [("alpha", alpha)])
        case .thresholdedRelu(let alpha): return function("thresholdedRelu", [("alpha", alpha)])
        case .prelu(let alpha): return function("prelu") + [LayerAttribute("channels", .int(alpha.count), text: nil)]
        case .tanh: return function("tanh")
        case .scaledTanh(let alpha, let beta): return function("scaledTanh", [("alpha", alpha), ("beta", beta)])
        case .sigmoid: return function("sigmoid")
        case .sigmoidHard(let alpha, let beta): return function("sigmoidHard", [("alpha", alpha), ("beta", beta)])
        case .elu(let alpha): return function("elu", [("alpha", alpha)])
        case .softsign: return function("softsign")
        case .softplus: return function("softplus")
        case .parametricSoftplus(let alpha, _):
            return function("parametricSoftplus") + [LayerAttribute("channels", .int(alpha.count), text: nil)]
        case .linear(let alpha, let beta): return function("linear", [("alpha", alpha), ("beta", beta)])
        case .clip(let min, let max): return function("clip", [("min", min), ("max", max)])
        }
    }

    private func size(_ key: String, _ value: Size2, hideUnit: Bool = true) -> LayerAttribute {
        let hidden = hideUnit && value.height == 1 && value.width == 1
        return LayerAttribute(key, .ints([value.height, value.width]), text: hidden ? nil : "\(key) \(value.height)x\(value.width)")
    }

    private func padding(_ padding: WindowPadding) -> [LayerAttribute] {
        switch padding {
        case .explicit(let e):
            return [LayerAttribute("padding", .string("explicit"), text: nil), edges("pad", e, hideZero: true)]
        case .same(let topLeftHeavy):
            return [LayerAttribute("padding", .string("same"), text: topLeftHeavy ? "pad same (top-left heavy)" : "pad same"),
                    LayerAttribute("topLeftHeavy", .bool(topLeftHeavy), text: nil)]
        case .includeLastPixel(let pads):
            // Caffe's pooling: symmetric padding, output size rounded up.
            let padText = pads.height == 0 && pads.width == 0 ? "" : "pad \(pads.height == pads.width ? "\(pads.height)" : "\(pads.height)x\(pads.width)"), "
            return [LayerAttribute("padding", .string("includeLastPixel"), text: padText + "ceil"),
                    LayerAttribute("pad", .ints([pads.height, pads.width]), text: nil)]
        }
    }

    private func edges(_ key: String, _ e: Edges, hideZero: Bool) -> LayerAttribute {
        let values = [e.top, e.bottom, e.left, e.right]
        let text: String? = if hideZero && values.allSatisfy({ $0 == 0 }) {
            nil
        } else if Set(values).count == 1 {
            "\(key) \(e.top)"
        } else {
            "\(key) \(values.map(String.init).joined(separator: ","))"
        }
        return LayerAttribute(key, .object([.init("top", .int(e.top)), .init("bottom", .int(e.bottom)),
                                            .init("left", .int(e.left)), .init("right", .int(e.right))]), text: text)
    }

    private func order(_ order: ChannelOrder) -> LayerAttribute {
        LayerAttribute("order", .string(order == .channelFirst ? "channelFirst" : "channelLast"),
                       text: order == .channelFirst ? nil : "channel last")
    }

    private func dims(_ values: [Int]) -> String {
        "[" + values.map(String.init).joined(separator: ",") + "]"
    }
}

extension JSON {
    /// An operation attribute's value.
    init(_ value: OpAttribute.Value) {
        switch value {
        case .int(let value): self = .int(value)
        case .ints(let values): self = .ints(values)
        case .float(let value): self = .float(value)
        case .bool(let value): self = .bool(value)
        case .string(let value): self = .string(value)
        }
    }
}

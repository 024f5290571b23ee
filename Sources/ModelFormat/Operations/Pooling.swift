public struct Pooling: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case max, average, l2 }
    public var kind: Kind
    public var kernel: Size2
    public var stride: Size2
    public var padding: WindowPadding
    /// Average pooling divides by the valid (unpadded) pixels only.
    public var excludePaddingFromAverage: Bool
    /// Pools each channel's whole map to 1x1, ignoring kernel and stride.
    public var global: Bool

    public init(kind: Kind, kernel: Size2, stride: Size2, padding: WindowPadding = .explicit(.zero),
                excludePaddingFromAverage: Bool = false, global: Bool = false) {
        self.kind = kind
        self.kernel = kernel
        self.stride = stride
        self.padding = padding
        self.excludePaddingFromAverage = excludePaddingFromAverage
        self.global = global
    }
}

extension Pooling: OpDefinition {
    public var kindName: String { "pooling" }
    public var takesAnyRank: Bool { false }

    public func checkAttributes() throws(ModelError) {
        if !global { try AttributeBounds.window(kernel, stride, padding) }
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let first = inputs[0]
        if global { return [TensorShape(channels: first.channels)] }
        let height = try WindowPadding.output(first.height, kernel.height, stride.height, 1, padding, vertical: true)
        let width = try WindowPadding.output(first.width, kernel.width, stride.width, 1, padding, vertical: false)
        return [TensorShape(channels: first.channels, height: height, width: width)]
    }

    public var attributes: [OpAttribute] {
        let kindText = switch kind { case .max: "max"; case .average: "average"; case .l2: "l2" }
        var list = [OpAttribute("kind", .string(kindText), text: kindText)]
        if global {
            list.append(OpAttribute("global", .bool(true), text: "global"))
            return list
        }
        list.append(.size("kernel", kernel, hideUnit: false))
        list.append(.size("stride", stride))
        list += OpAttribute.padding(padding)
        if kind == .average {
            list.append(OpAttribute("excludePaddingFromAverage", .bool(excludePaddingFromAverage),
                                    text: excludePaddingFromAverage ? "exclude padding" : nil))
        }
        list.append(OpAttribute("global", .bool(false), text: nil))
        return list
    }
}

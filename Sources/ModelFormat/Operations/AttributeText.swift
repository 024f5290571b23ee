/// How `inspect` shows the attributes the NeuralNetwork-era operations
/// share: 2-D sizes, window padding, edges, channel order, shapes.
extension OpAttribute {
    /// `kernel 7x7`; hidden at 1x1 when `hideUnit`.
    static func size(_ key: String, _ value: Size2, hideUnit: Bool = true) -> OpAttribute {
        let hidden = hideUnit && value.height == 1 && value.width == 1
        return OpAttribute(key, .ints([value.height, value.width]), text: hidden ? nil : "\(key) \(value.height)x\(value.width)")
    }

    static func padding(_ padding: WindowPadding) -> [OpAttribute] {
        switch padding {
        case .explicit(let e):
            return [OpAttribute("padding", .string("explicit"), text: nil), edges("pad", e, hideZero: true)]
        case .same(let topLeftHeavy):
            return [OpAttribute("padding", .string("same"), text: topLeftHeavy ? "pad same (top-left heavy)" : "pad same"),
                    OpAttribute("topLeftHeavy", .bool(topLeftHeavy), text: nil)]
        case .includeLastPixel(let pads):
            // Caffe's pooling: symmetric padding, output size rounded up.
            let padText = pads.height == 0 && pads.width == 0 ? "" : "pad \(pads.height == pads.width ? "\(pads.height)" : "\(pads.height)x\(pads.width)"), "
            return [OpAttribute("padding", .string("includeLastPixel"), text: padText + "ceil"),
                    OpAttribute("pad", .ints([pads.height, pads.width]), text: nil)]
        }
    }

    static func edges(_ key: String, _ e: Edges, hideZero: Bool) -> OpAttribute {
        let values = [e.top, e.bottom, e.left, e.right]
        let text: String? = if hideZero && values.allSatisfy({ $0 == 0 }) {
            nil
        } else if Set(values).count == 1 {
            "\(key) \(e.top)"
        } else {
            "\(key) \(values.map(String.init).joined(separator: ","))"
        }
        return OpAttribute(key, .edges(e), text: text)
    }

    static func order(_ order: ChannelOrder) -> OpAttribute {
        OpAttribute("order", .string(order == .channelFirst ? "channelFirst" : "channelLast"),
                    text: order == .channelFirst ? nil : "channel last")
    }

    /// `[1,2,3]`.
    static func dims(_ values: [Int]) -> String {
        "[" + values.map(String.init).joined(separator: ",") + "]"
    }
}

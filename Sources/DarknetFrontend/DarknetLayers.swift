import Conversion
import ModelFormat

/// The layers YOLOv3 and YOLOv4 add to YOLOv2's: `[upsample]`,
/// `[shortcut]`, `[route]`'s groups, and the activations their
/// convolutions and shortcuts take.
extension DarknetWalk {
    /// `input` through the section's `activation` (`fallback` when it names
    /// none); Darknet's names: linear, leaky (slope 0.1), relu, logistic,
    /// tanh, swish (x * sigmoid(x)), mish (x * tanh(softplus(x))).
    mutating func activate(_ section: DarknetConfig.Section, index: Int, input: String, fallback: String) throws -> String {
        let name = section.string("activation", fallback)
        // Named by the key's value as written (an absent key names the node "_<index>"), as before mish and swish.
        let output = "\(section.string("activation", ""))_\(index)"
        let activation: Activation
        switch name {
        case "linear": return input
        case "leaky": activation = .leakyRelu(alpha: 0.1)
        case "relu": activation = .relu
        case "logistic": activation = .sigmoid
        case "tanh": activation = .tanh
        case "swish", "mish":
            let chain = name == "swish" ? GatedActivation.swish(input: input, output: output) : GatedActivation.mish(input: input, output: output)
            for node in chain { _ = try emit(node) }
            return output
        case let other: throw section.error("activation=\(other) is not converted yet (linear, leaky, relu, logistic, tanh, swish, mish are)")
        }
        return try emit(Node(output, .activation(activation), input: input))
    }

    /// A route's tensors, each cut to its `group_id`-th of `groups` equal
    /// channel parts (YOLOv4-tiny's CSP halves); unchanged without groups.
    mutating func group(_ tensors: [String], _ section: DarknetConfig.Section, index: Int) throws -> [String] {
        let groups = try section.int("groups", 1), id = try section.int("group_id", 0)
        guard groups > 0, id < groups else { throw section.error("group_id=\(id) is not one of groups=\(groups)") }
        if groups == 1 { return tensors }
        return try tensors.enumerated().map { position, tensor in
            let channels = shapes[tensor]!.channels
            guard channels % groups == 0 else { throw section.error("groups=\(groups) does not divide the \(channels) channels of \(tensor)") }
            let part = channels / groups
            return try emit(Node("route_\(index)_group_\(position)", .slice(Slice(axis: .channel, start: id * part, end: (id + 1) * part)), input: tensor))
        }
    }

    /// Nearest-neighbour upsampling by `stride` (Darknet's default 2); a
    /// negative stride (Darknet's downsampling) and `scale` other than 1
    /// are refused.
    mutating func upsample(_ section: DarknetConfig.Section, index: Int, input: String) throws -> String {
        let stride = try section.int("stride", 2)
        guard stride > 0 else { throw section.error("stride=0 is no upsampling") }
        if let scale = section.options["scale"], Float(scale.trimmingCharacters(in: .whitespaces)) != 1 {
            throw section.error("scale=\(scale) is not converted (1, the default, is)")
        }
        return try emit(Node("upsample_\(index)", .upsample(Upsample(scale: Size2(square: stride))), input: input))
    }

    /// The sum of the layer before and the layer `from` names (one layer, of
    /// the same shape), then its activation (linear by default).
    mutating func shortcut(_ section: DarknetConfig.Section, index: Int, input: String) throws -> String {
        for key in ["weights_type", "weights_normalization"] {
            let value = section.string(key, "none")
            guard value == "none" else { throw section.error("\(key)=\(value) is not converted (none, the default, is)") }
        }
        let sources: [Int] = try section.list("from")
        guard sources.count == 1 else { throw section.error("from=\(section.string("from", "")) names \(sources.count) layers; one is converted") }
        let layer = sources[0] < 0 ? index + sources[0] : sources[0]
        guard (0..<index).contains(layer) else { throw section.error("from=\(sources[0]) names a layer which is not before it") }
        let other = outputs[layer]
        guard shapes[other] == shapes[input] else {
            throw section.error("adds layer \(layer)'s \(shapes[other]!.dimensions) to \(shapes[input]!.dimensions): shapes that differ are not converted")
        }
        let sum = try emit(Node(name: "shortcut_\(index)", operation: .add(constant: 0), inputs: [input, other], outputs: ["shortcut_\(index)"]))
        return try activate(section, index: index, input: sum, fallback: "linear")
    }
}

import Naming
import ModelFormat

/// What keeps a converted model from being used by an app as it is, said
/// as one line each (the programs print them as `warning:` lines): an
/// array input shaped like an image (Vision and the generated class then
/// cannot take a photo), and class probabilities that are not a
/// probability distribution (the last layer is linear: logits).
public enum AppReadiness {
    /// The warnings for a finished model (after `ConversionOptions.finish`),
    /// the options they suggest named by `naming` (a program: its flags).
    public static func warnings(for model: Model, naming: (OptionName) -> String = \.libraryName) -> [String] {
        var lines: [String] = []
        for (name, shape) in imageLikeArrays(model) {
            let dimensions: String = shape.map(String.init).joined(separator: ", ")
            lines.append("input '\(name)' is an array [\(dimensions)], which Vision cannot feed: add \(option: .imageInput) \(name)")
        }
        if let layer = logitsLayer(model), let probabilities = model.classifier?.probabilitiesName {
            lines.append("\(probabilities) holds logits ('\(layer.name)' is \(layer.operation.kindName), not a softmax): add \(option: .addSoftmax)")
        }
        return lines.map { $0.namingOptions(naming) }
    }

    /// Array inputs of shape [3 or 1, H, W], and tensor inputs of shape
    /// [1, 3 or 1, H, W] (a ViT's pixels), with H and W of at least 8: a
    /// color or grayscale picture.
    public static func imageLikeArrays(_ model: Model) -> [(name: String, shape: [Int])] {
        model.inputs.compactMap { input in
            let picture: [Int]
            switch input.kind {
            case .array(let shape): picture = shape
            case .tensor(let shape) where shape.count == 4 && shape[0] == 1: picture = Array(shape.dropFirst())
            default: return nil
            }
            guard picture.count == 3, picture[0] == 3 || picture[0] == 1, picture[1] >= 8, picture[2] >= 8 else { return nil }
            guard case .array(let shape) = input.kind else { return (input.name, [1] + picture) }
            return (input.name, shape)
        }
    }

    /// The classifier's last computing layer when it is not one that
    /// gives probabilities (softmax, sigmoid), looking back through layers
    /// that only move values (reshape, flatten, permute, transpose).
    public static func logitsLayer(_ model: Model) -> Node? {
        guard let classifier = model.classifier else { return nil }
        var tensor = classifier.probabilitiesName
        for _ in 0..<model.nodes.count {
            guard let node = model.nodes.last(where: { $0.outputs.contains(tensor) }) else { return nil }
            let kind = node.operation.kindName
            if ["reshape", "flatten", "transpose"].contains(kind), let input = node.inputs.first {
                tensor = input
                continue
            }
            if kind == "softmax" { return nil }
            if case .activation(let activation) = node.operation {
                switch activation {
                case .sigmoid, .sigmoidHard: return nil
                default: return node
                }
            }
            return node
        }
        return nil
    }
}

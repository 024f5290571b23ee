import Conversion
import ModelFormat
import Naming

/// The layers of a Keras model config in call order, each with the layers
/// it reads: Sequential (a chain), or Functional / Model in the Keras 2
/// (`[[["name", 0, 0, {}]]]`) or Keras 3 (`{"args": [keras tensors]}`)
/// node formats.
struct KerasLayer {
    var name: String
    var className: String
    var config: [String: Any]
    var inputs: [String]
    /// Numbers among a Keras 3 call's arguments (`x + 3.0` is an Add layer
    /// called with [x, 3.0]), and whether one came before the tensors.
    var numbers: [Double] = []
    var numberFirst = false
}

struct KerasGraph {
    var layers: [KerasLayer]
    var inputNames: [String]
    var outputNames: [String]
    /// Input shapes without the batch axis, by input layer name.
    var inputShapes: [String: [Int]]
    /// The layers of a nested Sequential model (ConvNeXt's stem), by name:
    /// the nested model's name, whose weight group holds theirs.
    var weightGroups: [String: String] = [:]

    init(config root: [String: Any], path: String) throws {
        let className = root["class_name"] as? String ?? ""
        guard ["Sequential", "Functional", "Model"].contains(className) else {
            throw KerasError("\(path): the model class '\(className)' is not a Sequential or functional model")
        }
        guard let config = root["config"] as? [String: Any] ?? (root["config"] as? [[String: Any]]).map({ ["layers": $0] }),
              let entries = config["layers"] as? [[String: Any]] else {
            throw KerasError("\(path): model_config has no layers")
        }
        layers = []
        inputShapes = [:]
        inputNames = []
        outputNames = []
        var previous: String?
        for (index, entry) in entries.enumerated() {
            let layerConfig = entry["config"] as? [String: Any] ?? [:]
            let name = entry["name"] as? String ?? layerConfig["name"] as? String ?? "layer_\(index)"
            let kind = entry["class_name"] as? String ?? "?"
            var inputs: [String] = []
            var numbers: [Double] = [], numberFirst = false
            if kind == "InputLayer", let refusal = KerasLayerLedgers.refusal(KerasLayer(name: name, className: kind, config: layerConfig, inputs: [])) {
                throw KerasError("\(path): input '\(name)' (InputLayer): \(refusal)")
            }
            if className == "Sequential" {
                if let shape = Self.batchShape(layerConfig), kind == "InputLayer" || previous == nil {
                    let inputName = kind == "InputLayer" ? name : "input"
                    inputShapes[inputName] = shape
                    inputNames = [inputName]
                    if kind == "InputLayer" { previous = name; continue }
                    previous = inputName
                }
                guard let source = previous else { throw KerasError("\(path): the Sequential model declares no input shape") }
                inputs = [source]
                previous = name
            } else {
                if kind == "InputLayer" {
                    guard let shape = Self.batchShape(layerConfig) else { throw KerasError("\(path): input '\(name)' has no shape") }
                    inputShapes[name] = shape
                    continue
                }
                let nodes = entry["inbound_nodes"] as? [Any] ?? []
                guard nodes.count <= 1 else {
                    throw KerasError("\(path): layer '\(name)' (\(kind)) is called \(nodes.count) times; shared layers are not supported")
                }
                if let node = nodes.first {
                    inputs = Self.inboundNames(node)
                    if let args = (node as? [String: Any])?["args"] as? [Any] {
                        for (position, argument) in args.enumerated() {
                            guard let number = KerasBuilder.number(argument) else { continue }
                            numbers.append(number)
                            if position == 0 { numberFirst = true }
                        }
                    }
                }
                if kind == "Sequential" {
                    try inline(sequential: name, layerConfig, inputs: inputs, path: path)
                    continue
                }
            }
            layers.append(KerasLayer(name: name, className: kind, config: layerConfig, inputs: inputs, numbers: numbers,
                                     numberFirst: numberFirst))
        }
        if className == "Sequential" {
            if let last = layers.last { outputNames = [last.name] }
        } else {
            inputNames = Self.references(config["input_layers"])
            outputNames = Self.references(config["output_layers"])
        }
    }

    /// A Sequential model called as a layer: its layers in a chain from the
    /// call's input, then an identity under its name for the layers after.
    private mutating func inline(sequential name: String, _ config: [String: Any], inputs: [String], path: String) throws {
        guard let entries = config["layers"] as? [[String: Any]] else { throw KerasError("\(path): nested model '\(name)' has no layers") }
        var source = inputs
        for (index, entry) in entries.enumerated() {
            let layerConfig = entry["config"] as? [String: Any] ?? [:]
            let kind = entry["class_name"] as? String ?? "?"
            if kind == "InputLayer" { continue }
            guard !["Sequential", "Functional", "Model"].contains(kind) else {
                throw KerasError("\(path): model '\(name)' nests another model; one level of nesting is supported")
            }
            let layerName = layerConfig["name"] as? String ?? "\(name)_layer_\(index)"
            layers.append(KerasLayer(name: layerName, className: kind, config: layerConfig, inputs: source))
            weightGroups[layerName] = name
            source = [layerName]
        }
        layers.append(KerasLayer(name: name, className: "Identity", config: [:], inputs: source))
    }

    /// Shapes the user gives for inputs (`--input-shape name=1,H,W,C`): batch 1,
    /// the saved rank, and the sizes the file knows.
    mutating func apply(inputShapes given: [String: [Int]], path: String) throws {
        for (name, shape) in given.sorted(by: { $0.key < $1.key }) {
            guard let saved = inputShapes[name] else {
                let names = inputNames.sorted()
                throw ConversionOptionError("\(option: .inputShape) '\(name)': the model has no input of that name (its inputs: "
                                            + "\(names.joined(separator: ", ")))" + (closestMatch(to: name, in: names, maxDistance: max(2, name.count / 3)).map { "; did you mean '\($0)'?" } ?? ""))
            }
            guard shape.first == 1, shape.count == saved.count + 1,
                  zip(shape.dropFirst(), saved).allSatisfy({ (1...ShapeInference.maximumSize).contains($0) && ($1 < 0 || $0 == $1) }) else {
                let text = saved.map { $0 < 0 ? "None" : "\($0)" }.joined(separator: ", ")
                throw ConversionOptionError("\(option: .inputShape) \(name)=\(shape.map(String.init).joined(separator: ",")): the model saved "
                                            + "the input as (None, \(text)): give batch 1 and its sizes (1...\(ShapeInference.maximumSize)), keeping the known ones")
            }
            inputShapes[name] = Array(shape.dropFirst())
        }
    }

    /// `batch_shape` (Keras 3) or `batch_input_shape` (Keras 2) without the batch axis.
    static func batchShape(_ config: [String: Any]) -> [Int]? {
        guard let shape = (config["batch_shape"] ?? config["batch_input_shape"]) as? [Any] else { return nil }
        return shape.dropFirst().map { ($0 as? Int) ?? -1 }
    }

    /// Layer names of a node's inputs, in either node format.
    static func inboundNames(_ node: Any) -> [String] {
        if let keras3 = node as? [String: Any] {
            return tensorNames(keras3["args"] as Any)
        }
        // Keras 2: [["name", node_index, tensor_index, {kwargs}], ...]
        return (node as? [Any] ?? []).compactMap { ($0 as? [Any])?.first as? String }
    }

    /// Keras 3 keras tensors (`keras_history: [layer, node, tensor]`) anywhere in the args.
    static func tensorNames(_ value: Any) -> [String] {
        if let dictionary = value as? [String: Any] {
            if let config = dictionary["config"] as? [String: Any], let history = config["keras_history"] as? [Any],
               let layer = history.first as? String {
                return [layer]
            }
            return []
        }
        if let list = value as? [Any] { return list.flatMap(tensorNames) }
        return []
    }

    /// `[["name", 0, 0], ...]` or a single `["name", 0, 0]`.
    static func references(_ value: Any?) -> [String] {
        guard let list = value as? [Any] else { return [] }
        if let name = list.first as? String { return [name] }
        return list.compactMap { ($0 as? [Any])?.first as? String }
    }
}

import Naming
import Conversion
import ModelFormat

/// Converts a Keras `.h5` model (Keras 2.x and the legacy HDF5 format that
/// Keras 3 still writes) to the model spec. Sequential and functional models
/// with several inputs and outputs; NHWC layers map to Core ML's CHW as the
/// TensorFlow frontend's do, with weights transposed once. A Lambda layer
/// holds serialized Python: it is refused, never run or decoded.
public enum KerasConverter {
    /// - Parameter readingKernels: false for a summary only: the kernels'
    ///   values are not read (`Weights.isLoaded` false, their counts the
    ///   file's); biases and batch norms are read.
    ///   - inputShapes: shapes for inputs by name, batch first ([1, H, W, C]
    ///     or [1, N]), for inputs saved with unknown sizes or to fix them.
    public static func convert(model path: String, options: ConversionOptions = ConversionOptions(),
                               readingKernels: Bool = true, inputShapes: [String: [Int]] = [:]) throws -> Model {
        let file = try KerasModelFile(path: path, readsKernels: readingKernels)
        var graph = try KerasGraph(config: file.config, path: path)
        try graph.apply(inputShapes: inputShapes, path: path)
        if readingKernels {
            // Every kernel's declared shape checked against its layer before
            // any kernel is read: a dataset of 2^31 values in a sparse file
            // was read whole (8.4 GB) before "kernel shape ... is not ...".
            var shapes = try KerasWalk(file: KerasModelFile(path: path, readsKernels: false), graph: graph)
            _ = try shapes.build()
        }
        var walk = try KerasWalk(file: file, graph: graph)
        var model = try walk.build()
        try options.finish(&model, convertedFrom: "Keras model", source: path)
        return model
    }
}

/// One pass over the layers, in call order.
struct KerasWalk {
    let file: KerasModelFile
    let graph: KerasGraph
    var nodes: [Node] = []
    var shapes: [String: TensorShape] = [:]
    /// 4 for [N, H, W, C] maps, 2 for [N, F] vectors.
    var ranks: [String: Int] = [:]
    /// Identity layers (Dropout and kin): their name stands for their input.
    var alias: [String: String] = [:]
    /// Each layer's weight tensors, listed before any is read: libhdf5 reads
    /// their names in a child process (isolated_read.h), one for all layers,
    /// while it costs little (a fork copies the page tables of every weight
    /// read so far).
    let weights: [String: [KerasWeight]]

    init(file: KerasModelFile, graph: KerasGraph) throws {
        self.file = file
        self.graph = graph
        var weights = try file.weights(of: graph.layers.map { graph.weightGroups[$0.name] ?? $0.name })
        // A nested model's group lists its layers' weights as "model/layer/kernel".
        for (layer, group) in graph.weightGroups {
            weights[layer] = weights[group]?.filter { $0.name.hasPrefix("\(group)/\(layer)/") }
        }
        for group in Set(graph.weightGroups.values) { weights[group] = nil }
        self.weights = weights
    }

    mutating func build() throws -> Model {
        var inputs: [Input] = []
        for name in graph.inputNames {
            guard let shape = graph.inputShapes[name], shape.allSatisfy({ $0 > 0 && $0 <= ShapeInference.maximumSize }),
                  shape.count == 3 || shape.count == 1 else {
                let shape = (graph.inputShapes[name] ?? []).map { $0 < 0 ? "None" : "\($0)" }.joined(separator: ", ")
                throw KerasError("\(file.path): input '\(name)' has the shape (\(shape)); expected (H, W, C) or (N,) with known sizes"
                                 + (shape.contains("None") ? " (give them with \(option: .inputShape) \(name)=1,H,W,C)" : ""))
            }
            let dims = shape.count == 3 ? [shape[2], shape[0], shape[1]] : shape
            inputs.append(Input(name: name, kind: .array(shape: dims)))
            shapes[name] = TensorShape(featureShape: dims)
            ranks[name] = shape.count + 1
        }
        for layer in graph.layers {
            try KerasError.locating("\(file.path): layer '\(layer.name)' (\(layer.className))", layer: layer.name) { try add(layer) }
        }
        var model = Model(inputs: inputs, outputs: [], nodes: nodes)
        for name in graph.outputNames {
            let tensor = alias[name] ?? name
            if tensor != name && !inputs.contains(where: { $0.name == tensor }) { model.renameTensor(tensor, to: name) }
            model.outputs.append(Output(name: inputs.contains(where: { $0.name == tensor }) ? tensor : name))
        }
        return model
    }

    private mutating func add(_ layer: KerasLayer) throws {
        guard let mapping = KerasLayerTable.mappings[layer.className] else {
            if layer.className == "Lambda" {
                throw KerasError("a Lambda layer holds Python code, which this converter never runs or decodes; rebuild the model without it")
            }
            if KerasLayerTable.unsupportedBuiltIns.contains(layer.className) {
                throw KerasError("Keras's \(layer.className) layer is not supported yet")
            }
            throw KerasError("the layer class '\(layer.className)' is not one of Keras's (custom layers are not converted)")
        }
        if let refusal = KerasLayerLedgers.refusal(layer) { throw KerasError(refusal) }
        var layer = layer
        guard !layer.inputs.isEmpty else { throw KerasError("has no inputs") }
        layer.inputs = layer.inputs.map { alias[$0] ?? $0 }
        // (Names of the converter's own intermediate tensors, "ln__mean", have a shape but no rank.)
        for input in layer.inputs where shapes[input] == nil || ranks[input] == nil {
            throw KerasError("input '\(input)' is not produced by an earlier layer")
        }
        let builder = KerasBuilder(layer: layer, inputShapes: layer.inputs.map { shapes[$0]! }, ranks: layer.inputs.map { ranks[$0]! },
                                   weights: weights[layer.name] ?? [], hardSigmoidSlope: file.kerasVersion.hasPrefix("2") ? 0.2 : 1.0 / 6)
        let (emitted, rank) = try mapping(builder)
        if emitted.isEmpty {
            // An identity at inference (Dropout): the layer's name stands for its input.
            alias[layer.name] = layer.inputs[0]
            return
        }
        try ShapeInference.append(emitted, to: &nodes, shapes: &shapes)
        ranks[layer.name] = rank
    }
}

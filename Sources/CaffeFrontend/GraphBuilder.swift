import ModelFormat
import CaffeSchema
import Protobuf

/// Walks the deploy layers in order and builds the graph: declared inputs,
/// SSA tensor names for in-place tops, one mapping per layer type, shapes
/// as it goes (layers like InnerProduct and Reshape need them).
struct GraphBuilder {
    let net: CaffeNet
    let weights: CaffeWeights
    let deployPath: String
    /// No weights file: layers get stand-ins of the right shapes (see
    /// `LayerBuilder.structureOnly`), for a summary of the deploy file alone.
    let structureOnly: Bool

    private var inputs: [Input] = []
    /// Inputs declared for more than one image, with that batch size.
    private(set) var declaredBatches: [(input: String, batch: Int)] = []
    private var nodes: [Node] = []
    /// The tensor currently holding each Caffe blob name.
    private var current: [String: String] = [:]
    private var shapes: [String: TensorShape] = [:]
    /// Each tensor's rank as Caffe counts it, batch axis included ([N, C]
    /// after Flatten is 2): negative axes and axes of later layers count
    /// from it. The tensor's shape here is [C, H, W] all the same.
    private var ranks: [String: Int] = [:]
    private var tensorNames = Set<String>()
    /// Caffe top names, for naming the model's outputs.
    private var topOfTensor: [String: String] = [:]
    /// SSD's PriorBox tops (and their concatenation): computed here, never layers.
    private var priorTables: [String: PriorTable] = [:]
    /// The PriorBox tops a later layer (Concat, DetectionOutput) reads.
    private var priorReaders = Set<String>()
    /// SSD's DetectionOutput, once it was decoded into the two row tensors.
    private(set) var detection: SSDDetection?

    init(net: CaffeNet, weights: CaffeWeights, deployPath: String, structureOnly: Bool = false) {
        self.net = net
        self.weights = weights
        self.deployPath = deployPath
        self.structureOnly = structureOnly
    }

    /// `deploy.prototxt:12`, where the layer starts.
    func location(_ layer: CaffeLayer) -> String {
        "\(deployPath):\(lineAndColumn(of: layer.offset, in: net.text).line)"
    }

    mutating func build() throws -> Model {
        for (name, shape, offset) in net.inputs {
            do {
                try addInput(name, shape)
            } catch let error as CaffeError {
                let line = offset.map { ":\(lineAndColumn(of: $0, in: net.text).line)" } ?? ""
                throw CaffeError("\(deployPath)\(line): \(error.message)")
            }
        }
        var unsupported = UnsupportedOps()
        let unknown = net.layers.filter { !$0.isTrainingOnly && !CaffeLayerTable.takes($0.type) }
        for layer in unknown { unsupported.add(layer.type, node: layer.name) }
        if let first = unknown.first {  // every one at once, at the first one's line
            throw CaffeError("\(location(first)): \(unsupported.message(nodeNoun: "layer", typeNoun: "layer type"))")
        }
        for layer in net.layers where !layer.isTrainingOnly {
            try CaffeError.locating(location(layer)) { try add(layer) }
        }
        guard !inputs.isEmpty else { throw CaffeError("\(deployPath): the net declares no input (input:, input_shape or an Input layer)") }
        // A PriorBox top nothing reads is a network output in Caffe; it is a constant here, never a node.
        let unreadPriors = Set(priorTables.keys).subtracting(priorReaders)
        if let top = unreadPriors.sorted().first {
            throw CaffeError("\(deployPath): the network output '\(top)' holds PriorBox priors, a constant: a constant network output is not supported")
        }
        var model = Model(inputs: inputs, outputs: [], nodes: nodes)
        if detection != nil {
            // Any other blob nothing reads would be a second network output, which a detector pipeline cannot give.
            let read = Set(nodes.flatMap(\.inputs))
            let dangling = nodes.flatMap(\.outputs).filter { !read.contains($0) && !$0.hasPrefix("raw_") }
            if let extra = dangling.first {
                throw CaffeError("\(deployPath): the network output '\(topOfTensor[extra] ?? extra)' besides the DetectionOutput is not supported "
                                 + "(a detector's outputs are its detections)")
            }
            // A detector's network ends with its two row tensors (the suppression takes them).
            model.outputs = [Output(name: "raw_confidence"), Output(name: "raw_coordinates")]
            return model
        }
        // Tensors nobody reads are the outputs, named after their Caffe tops.
        let read = Set(nodes.flatMap(\.inputs))
        let inputNames = Set(inputs.map(\.name))
        var taken = tensorNames
        for node in nodes {
            for tensor in node.outputs where !read.contains(tensor) {
                var name = tensor
                // (An in-place layer on an input keeps its own name: the input has the top's.)
                if let top = topOfTensor[tensor], top != tensor, !inputNames.contains(top),
                   !tensorNames.contains(top) || current[top] == tensor {
                    // An in-place layer last (ReLU with bottom = top = conv1): the
                    // top's name holds its first value; that tensor moves aside.
                    if taken.contains(top) {
                        var aside = "\(top)__\(top)", index = 2
                        while taken.contains(aside) { (aside, index) = ("\(top)__\(top)\(index)", index + 1) }
                        model.renameTensor(top, to: aside)
                        taken.insert(aside)
                    }
                    model.renameTensor(tensor, to: top)
                    name = top
                }
                model.outputs.append(Output(name: name))
            }
        }
        return model
    }

    private mutating func addInput(_ name: String, _ shape: [Int]) throws {
        // [N, C, H, W] or [N, C]: any batch N is taken as 1 (one image a
        // prediction, as in Core ML), and noted in `declaredBatches`.
        let batched = shape.count == 4 || shape.count == 2
        let dims = batched ? Array(shape.dropFirst()) : shape
        guard !batched || (1...ShapeInference.maximumSize).contains(shape[0]),
              dims.count == 3 || dims.count == 1, dims.allSatisfy({ $0 > 0 }) else {
            throw CaffeError("input '\(name)' has the shape \(shape); expected [N, C, H, W] or [N, C]")
        }
        guard dims.allSatisfy({ $0 <= ShapeInference.maximumSize }), let count = dims.checkedProduct, count <= TensorShape.maximumCount else {
            throw CaffeError("input '\(name)' has the shape \(shape), too large")
        }
        if batched, shape[0] > 1 { declaredBatches.append((name, shape[0])) }
        inputs.append(Input(name: name, kind: .array(shape: dims)))
        current[name] = name
        tensorNames.insert(name)
        shapes[name] = TensorShape(featureShape: dims)
        ranks[name] = shape.count
    }

    private mutating func add(_ layer: CaffeLayer) throws {
        if let clause = CaffeLedgers.refusal(layer) { throw CaffeError("layer '\(layer.name)' (\(layer.type)): \(clause)") }
        if let field = CaffeLedgers.unknownField(layer) {
            let (line, column) = lineAndColumn(of: field.offset, in: net.text)
            throw CaffeError("layer '\(layer.name)' (\(layer.type)): \(field.name) (line \(line), column \(column)) is not a field of BVLC Caffe's "
                             + "\(field.message.split(separator: ".").last ?? "") (a fork's?) and is not supported")
        }
        if let stored = weights.blobs[Array(layer.name.utf8)], stored.count != CaffeLedgers.blobCount(layer) {
            throw CaffeError("layer '\(layer.name)' (\(layer.type)): Incompatible number of blobs: the weights file has "
                             + "\(stored.count), the deploy definition's layer takes \(CaffeLedgers.blobCount(layer)) (Caffe refuses the pair)")
        }
        switch layer.type {
        case "Input":
            let declared = layer.params.input.map { CArrays.buffer($0.pointee.shape, $0.pointee.n_shape) }
            for (index, top) in layer.tops.enumerated() {
                guard let declared, !declared.isEmpty, let shape = declared[min(index, declared.count - 1)] else {
                    throw CaffeError("layer '\(layer.name)' (Input): input_param has no shape for '\(top)'")
                }
                try addInput(top, CArrays.array(shape.pointee.dim, shape.pointee.n_dim).map { Int($0) })
            }
            return
        case "Dropout", "Split":
            // Identity at inference: every top is the bottom.
            guard layer.bottoms.count == 1, let tensor = current[layer.bottoms[0]] else {
                throw CaffeError("layer '\(layer.name)' (\(layer.type)): needs one bottom that an earlier layer produces")
            }
            for top in layer.tops { current[top] = tensor }
            return
        case "Silence":
            return
        case "PriorBox", "DetectionOutput":
            try addDetection(layer)
            return
        case "Concat" where layer.bottoms.contains(where: { priorTables[$0] != nil }):
            let tables = layer.bottoms.compactMap { priorTables[$0] }
            let axis = layer.params.concat.map { Int($0.pointee.axis) } ?? 1
            guard tables.count == layer.bottoms.count, axis == 2 || axis == -1, layer.tops.count == 1 else {
                throw CaffeError("layer '\(layer.name)' (Concat): concatenates PriorBox outputs (along axis 2) only with each other")
            }
            priorTables[layer.tops[0]] = PriorTable.concatenated(tables)
            priorReaders.formUnion(layer.bottoms)
            return
        default:
            break
        }
        if let bottom = layer.bottoms.first(where: { priorTables[$0] != nil }) {
            throw CaffeError("layer '\(layer.name)' (\(layer.type)): '\(bottom)' holds PriorBox priors, which only Concat and DetectionOutput take")
        }
        guard let mapping = CaffeLayerTable.mappings[layer.type] else {
            throw CaffeError("layer '\(layer.name)' has the unsupported type '\(layer.type)'")
        }
        var inputs: [String] = []
        for bottom in layer.bottoms {
            guard let tensor = current[bottom] else {
                throw CaffeError("layer '\(layer.name)': bottom '\(bottom)' is not produced by an input or an earlier layer")
            }
            inputs.append(tensor)
        }
        guard !inputs.isEmpty, !layer.tops.isEmpty else { throw CaffeError("layer '\(layer.name)' needs bottoms and tops") }
        let outputs = layer.tops.map { freshName(for: $0, layer: layer.name) }
        let blobs = try blobs(for: layer)
        let builder = LayerBuilder(layer: layer, inputs: inputs, inputShapes: inputs.map { shapes[$0]! },
                                   inputRanks: inputs.map { ranks[$0] ?? 4 }, blobs: blobs, outputs: outputs, structureOnly: structureOnly)
        tensorNames.formUnion(try ShapeInference.append(try mapping(builder), to: &nodes, shapes: &shapes))
        for (top, tensor) in zip(layer.tops, outputs) where shapes[tensor] == nil {
            throw CaffeError("layer '\(layer.name)' (\(layer.type)) has \(layer.tops.count) tops, but it gives no '\(top)'")
        }
        let rank = CaffeLayerTable.outputRank(builder)
        for (top, tensor) in zip(layer.tops, outputs) {
            current[top] = tensor
            topOfTensor[tensor] = top
            ranks[tensor] = rank
        }
    }

    /// SSD's PriorBox (priors computed now, from the feature map's and the
    /// image's sizes) and DetectionOutput (decoding layers; `detection`).
    private mutating func addDetection(_ layer: CaffeLayer) throws {
        let fail = { (message: String) in CaffeError("layer '\(layer.name)' (\(layer.type)): \(message)") }
        func tensor(_ index: Int) throws -> String {
            guard index < layer.bottoms.count, let tensor = current[layer.bottoms[index]] else {
                throw fail("bottom \(index + 1) is not produced by an input or an earlier layer")
            }
            return tensor
        }
        guard layer.tops.count == 1 else { throw fail("has \(layer.tops.count) tops; it gives one") }
        if layer.type == "PriorBox" {
            guard layer.bottoms.count == 2, let p = layer.params.priorBox?.pointee else {
                throw fail("needs two bottoms (the feature map, the image) and a prior_box_param")
            }
            priorTables[layer.tops[0]] = try PriorTable(p, feature: shapes[try tensor(0)]!, image: shapes[try tensor(1)]!, fail: fail)
            return
        }
        guard detection == nil else { throw fail("is the second DetectionOutput; a detector has one") }
        guard layer.bottoms.count == 3, let priors = priorTables[layer.bottoms[2]], let p = layer.params.detectionOutput?.pointee else {
            throw fail("needs three bottoms (locations, confidences, PriorBox priors) and a detection_output_param")
        }
        let decoding = try SSDDetection(p, priors: priors, layer: layer.name, fail: fail)
        priorReaders.insert(layer.bottoms[2])
        let decoded = try decoding.nodes(location: try tensor(0), confidence: try tensor(1), shapes: shapes, prefix: layer.name, fail: fail)
        tensorNames.formUnion(try ShapeInference.append(decoded, to: &nodes, shapes: &shapes))
        detection = decoding
    }

    /// The top's own name, unless it is taken (an in-place layer): then the
    /// layer's name, or both joined.
    private func freshName(for top: String, layer: String) -> String {
        for candidate in [top, layer, "\(top)__\(layer)"] where !tensorNames.contains(candidate) && current[candidate] == nil {
            return candidate
        }
        var index = 2
        while tensorNames.contains("\(top)__\(layer)\(index)") { index += 1 }
        return "\(top)__\(layer)\(index)"
    }

    /// The layer's blobs from the weights file (by name), else inline ones.
    private func blobs(for layer: CaffeLayer) throws -> [Blob] {
        if let blobs = weights.blobs[Array(layer.name.utf8)] { return blobs }
        return try layer.inlineBlobs.enumerated().map { index, proto in
            guard let proto else { throw CaffeError("layer '\(layer.name)': blob \(index) is empty") }
            return try CaffeWeights.blob(proto, owner: net.decoded, what: "layer '\(layer.name)' blob \(index)")
        }
    }
}

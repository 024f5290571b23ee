import Foundation
import Images
import Dispatch
import ModelFormat

/// A value for one model input.
public enum InputValue: Sendable {
    /// Pixels for an image input (sized to the input already).
    case image(Image)
    /// A [C, H, W] (or [C]) array for an array input; for an image input,
    /// already preprocessed values.
    case array(Tensor)
    /// A number, for a detector's optional `iouThreshold` and
    /// `confidenceThreshold` (`Detector`).
    case number(Double)
}

/// What one prediction gives: every model output, for a classifier the
/// top label and the probability of each label, for a detector the boxes
/// kept.
public struct Prediction: Sendable {
    /// For a detector, the pipeline's two outputs (`confidence` [K, C],
    /// `coordinates` [K, 4]) and the network's rows they were kept from.
    public var outputs: [String: Tensor]
    /// The most likely label (`classLabel`).
    public var classLabel: String?
    /// Label -> probability (`classLabelProbs`), in label order.
    public var probabilities: [(label: String, probability: Float)]?
    /// A detector's boxes, most confident first.
    public var detections: [Detection]?
}

/// A model compiled for the CPU: shapes inferred, each layer turned into a
/// kernel, tensors released (and their buffers reused) after their last use.
public final class Network: @unchecked Sendable {
    /// The model compiled (read from a file by `Network(contentsOf:)`, the
    /// weights of oneDNN's convolutions unloaded: oneDNN holds them).
    public let model: Model
    /// The kernels chosen when it was compiled.
    public let kernels: KernelChoice
    /// Shape of every tensor.
    public let shapes: [String: TensorShape]
    /// What runs, in order: one step per layer, except where a ReLU is folded
    /// into the layer before it.
    private let steps: [Step]
    /// Index of the last step that reads each tensor.
    private let lastUse: [String: Int]
    private let kept: Set<String>

    /// Compiles `model` for the kernels chosen.
    /// - Throws: `ModelError` for an inconsistent model, `RuntimeError` for a
    ///   layer the runtime cannot execute (named), weights not loaded, or no
    ///   OpenBLAS to load.
    public convenience init(_ model: Model, kernels: KernelChoice = .fastest) throws {
        try self.init(model, kernels: kernels, modelIsPrivate: false)
    }

    /// `modelIsPrivate`: no other code holds `model` (`Network(contentsOf:)`
    /// read it for this network), so the weights oneDNN's convolutions copy
    /// are released as each copy is made: their pages go back to the system
    /// (the model's memory never holds both) and `model` keeps them unloaded.
    package init(_ model: Model, kernels: KernelChoice, modelIsPrivate: Bool) throws {
        var model = model
        self.kernels = kernels
        try CPUKernels.load()
        let shapes = try model.validate()
        self.shapes = shapes
        kept = Set(model.outputs.map(\.name) + (model.classifier.map { [$0.probabilitiesName] } ?? []))
        steps = try Step.plan(model, shapes: shapes, kernels: kernels, discardingCopiedWeights: modelIsPrivate)
        if modelIsPrivate {
            for step in steps {
                guard step.oneDNN != nil, case .convolution(var conv) = model.nodes[step.node].operation else { continue }
                conv.weights = Weights(unloadedCount: conv.weights.count)
                model.nodes[step.node].operation = .convolution(conv)
            }
        }
        self.model = model
        var lastUse: [String: Int] = [:]
        for (index, step) in steps.enumerated() {
            for input in step.inputs { lastUse[input] = index }
        }
        self.lastUse = lastUse
        let peak = Self.peakBytes(model, steps: steps, shapes: shapes, lastUse: lastUse, kept: kept)
        guard peak <= Self.memoryBudget else {
            throw RuntimeError("the model's tensors need \(Self.gigabytes(peak)) at once, more than this machine can give "
                               + "(\(Self.gigabytes(Self.memoryBudget)): half its memory)")
        }
    }

    /// Half the machine's memory: what one prediction's tensors may hold at
    /// once (a few hundred bytes of model file can ask for far more).
    static let memoryBudget: Int = {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), size = sysconf(Int32(_SC_PAGESIZE))
        guard pages > 0, size > 0 else { return 1 << 32 }
        return Int(pages).multipliedReportingOverflow(by: Int(size) / 2).partialValue
    }()

    /// The most bytes the tensors of one prediction hold at once, as
    /// `predict(_:)` allocates and releases them, plus the largest scratch
    /// memory a kernel needs (one buffer the thread keeps; saturating).
    static func peakBytes(_ model: Model, steps: [Step], shapes: [String: TensorShape], lastUse: [String: Int],
                          kept: Set<String>) -> Int {
        func bytes(_ name: String) -> Int { shapes[name].map { $0.count.multipliedReportingOverflow(by: 4).partialValue } ?? 0 }
        func add(_ a: Int, _ b: Int) -> Int { let (sum, overflow) = a.addingReportingOverflow(b); return overflow ? .max : sum }
        var live = model.inputs.reduce(0) { add($0, bytes($1.name)) }
        var peak = live
        for (index, step) in steps.enumerated() {
            live = step.outputs.reduce(live) { add($0, bytes($1)) }
            peak = max(peak, live)
            for name in Set(step.inputs) where lastUse[name] == index && !kept.contains(name) { live -= bytes(name) }
        }
        return add(peak, steps.map(\.kernel.scratchBytes).max() ?? 0)
    }

    static func gigabytes(_ bytes: Int) -> String {
        String(format: "%.1f GB", Double(bytes) / Double(1 << 30))
    }

    /// Each step's name (a layer, or "conv+relu" for a folded ReLU) and the
    /// kernel that runs it ("oneDNN jit:avx2", or the runtime's own kernel).
    public var kernelNames: [(step: String, kernel: String)] {
        steps.map { step in
            if let fast = step.oneDNN { return (step.name, "oneDNN \(fast.implementation)") }
            return (step.name, String(describing: type(of: step.kernel)))
        }
    }

    /// Runs the model once.
    /// - Parameter profile: when given, receives each layer's name and its
    ///   wall time in seconds, in execution order.
    /// - Parameter inputs: by input name; for a detector also its optional
    ///   `iouThreshold` and `confidenceThreshold` (`.number`).
    /// - Throws: `RuntimeError` when an input is missing, unknown or does not fit.
    public func predict(_ inputs: [String: InputValue], profile: ((String, Double) -> Void)? = nil) throws -> Prediction {
        let optional = model.detector == nil ? [] : [Detector.iouThresholdFeature, Detector.confidenceThresholdFeature]
        if let unknown = inputs.keys.sorted().first(where: { name in !optional.contains(name) && !model.inputs.contains { $0.name == name } }) {
            throw RuntimeError("the model has no input '\(unknown)' (its inputs: \((model.inputs.map(\.name) + optional).joined(separator: ", ")))")
        }
        var tensors: [String: Tensor] = [:]
        for input in model.inputs {
            guard let value = inputs[input.name] else { throw RuntimeError("no value for input '\(input.name)'") }
            tensors[input.name] = try tensor(for: input, from: value)
            if model.computesInFloat16 { tensors[input.name]!.roundToFloat16() }
        }
        var pool = takePool()
        defer { returnPool(pool) }
        for (index, step) in steps.enumerated() {
            let arguments = step.inputs.map { tensors[$0]! }
            var results = step.outputs.map { name in
                Tensor(shape: shapes[name]!, values: pool.take(shapes[name]!.count))
            }
            if let profile {
                let start = DispatchTime.now().uptimeNanoseconds
                step.kernel.run(arguments, &results)
                profile(step.name, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            } else {
                step.kernel.run(arguments, &results)
            }
            if model.computesInFloat16 {
                for index in results.indices { results[index].roundToFloat16() }
            }
            for (name, result) in zip(step.outputs, results) { tensors[name] = result }
            for name in step.inputs where lastUse[name] == index && !kept.contains(name) {
                if let dead = tensors.removeValue(forKey: name) { pool.give(dead.values) }
            }
        }
        var prediction = Prediction(outputs: [:])
        for output in model.outputs { prediction.outputs[output.name] = tensors[output.name] }
        if let detector = model.detector {
            let (kept, detections) = try Self.suppress(
                detector, confidence: tensors[detector.confidenceTensor]!, coordinates: tensors[detector.coordinatesTensor]!, inputs: inputs)
            prediction.outputs.merge(kept) { _, kept in kept }
            prediction.detections = detections
            return prediction
        }
        if let classifier = model.classifier, let probabilities = tensors[classifier.probabilitiesName] {
            prediction.outputs[classifier.probabilitiesName] = probabilities
            let labels = classifier.labels.descriptions
            let pairs = zip(labels, probabilities.values).map { (label: $0, probability: $1) }
            prediction.probabilities = pairs
            prediction.classLabel = pairs.max { $0.probability < $1.probability }?.label
        }
        return prediction
    }

    /// Buffers kept between predictions, so steady-state predictions
    /// neither allocate nor fault in fresh pages.
    private var sparePool = BufferPool()
    private let poolLock = NSLock()

    private func takePool() -> BufferPool {
        poolLock.lock()
        defer { poolLock.unlock() }
        let pool = sparePool
        sparePool = BufferPool()
        return pool
    }

    /// Keeps the pool for the next prediction (the outputs handed to the
    /// caller were never in it).
    private func returnPool(_ pool: BufferPool) {
        poolLock.lock()
        defer { poolLock.unlock() }
        sparePool = pool
    }

    private func tensor(for input: Input, from value: InputValue) throws -> Tensor {
        let expected = shapes[input.name]!
        switch (value, input.kind) {
        case (.image(let image), .image(let format)):
            var tensor = try Preprocessing.tensor(from: image, for: format, name: input.name)
            // [C, H, W], or [1, C, H, W] for a network of tensors (`ImageInput.asTensor`): the same values.
            tensor.shape = expected
            return tensor
        case (.image, .array), (.image, .tensor):
            throw RuntimeError("input '\(input.name)' takes an array, not an image")
        case (.number, _):
            throw RuntimeError("input '\(input.name)' takes \(input.image == nil ? "an array" : "an image"), not a number")
        case (.array(var tensor), _):
            guard tensor.values.count == expected.count else {
                throw RuntimeError("input '\(input.name)' takes \(expected.featureShape) (\(expected.count) values), got \(tensor.shape.featureShape) (\(tensor.values.count))")
            }
            tensor.shape = expected
            return tensor
        }
    }
}

/// One kernel run: a layer, or a convolution or inner product together with
/// the ReLU that alone reads its output (named "conv1+relu1"; the output
/// between them is never stored, and the ReLU costs no pass of its own).
struct Step {
    let name: String
    var kernel: any Kernel
    let inputs: [String]
    let outputs: [String]
    /// The index in the model of the layer whose kernel this is.
    let node: Int

    /// oneDNN's convolution, when this step runs one (it holds its own copy of the weights).
    var oneDNN: FastConvolution? { (kernel as? ConvolutionKernel)?.fast }

    static func plan(_ model: Model, shapes: [String: TensorShape], kernels: KernelChoice,
                     discardingCopiedWeights: Bool) throws -> [Step] {
        let fused = Dictionary(uniqueKeysWithValues: model.soleConsumerPairs { producer, consumer in
            guard case .activation(.relu) = consumer.operation else { return false }
            switch producer.operation {
            case .convolution(let conv): return !conv.isDeconvolution
            case .innerProduct, .add, .multiply, .maximum, .minimum, .average: return true
            default: return false
            }
        })
        let folded = Set(fused.values)
        return try model.nodes.indices.filter { !folded.contains($0) }.map { index in
            let node = model.nodes[index]
            var kernel = try makeKernel(node, inputs: node.inputs.map { shapes[$0]! }, outputs: node.outputs.map { shapes[$0]! })
            var step = Step(name: node.name, kernel: kernel, inputs: node.inputs, outputs: node.outputs, node: index)
            if let reluIndex = fused[index] {
                // makeKernel gives these ops ConvolutionKernel, InnerProductKernel and ElementwiseKernel.
                var fusing = kernel as! any ReLUFusing
                fusing.fusedReLU = true
                kernel = fusing
                let relu = model.nodes[reluIndex]
                step = Step(name: "\(node.name)+\(relu.name)", kernel: kernel, inputs: node.inputs, outputs: relu.outputs, node: index)
            }
            if let preparing = kernel as? any Preparing {
                step.kernel = preparing.prepared(kernels, discardingCopiedWeights: discardingCopiedWeights)
            }
            return step
        }
    }
}

/// Arrays of released tensors, handed out again to later layers of the same size.
struct BufferPool {
    private var free: [Int: [[Float]]] = [:]

    mutating func take(_ count: Int) -> [Float] {
        if let buffer = free[count]?.popLast() { return buffer }
        return [Float](repeating: 0, count: count)
    }

    mutating func give(_ buffer: [Float]) {
        free[buffer.count, default: []].append(buffer)
    }
}

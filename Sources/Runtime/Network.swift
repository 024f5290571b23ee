import CoreMLBackend
import Foundation
import Dispatch
import ModelFormat

/// A value for one model input.
public enum InputValue: Sendable {
    /// Pixels for an image input (sized to the input already).
    case image(Image)
    /// A [C, H, W] (or [C]) array for an array input; for an image input,
    /// already preprocessed values.
    case array(Tensor)
}

/// What one prediction gives: every model output, and for a classifier the
/// top label and the probability of each label.
public struct Prediction: Sendable {
    public var outputs: [String: Tensor]
    /// The most likely label (`classLabel`).
    public var classLabel: String?
    /// Label -> probability (`classLabelProbs`), in label order.
    public var probabilities: [(label: String, probability: Float)]?
}

/// A model compiled for the CPU: shapes inferred, each layer turned into a
/// kernel, tensors released (and their buffers reused) after their last use.
public final class Network: @unchecked Sendable {
    public let model: Model
    /// Shape of every tensor.
    public let shapes: [String: TensorShape]
    private let kernels: [any Kernel]
    /// Index of the last layer that reads each tensor.
    private let lastUse: [String: Int]
    private let kept: Set<String>

    /// Compiles `model`.
    /// - Throws: `ModelError` for an inconsistent model, `RuntimeError` for a
    ///   layer the runtime cannot execute (named) or weights not loaded.
    public init(_ model: Model) throws {
        self.model = model
        let shapes = try model.validate()
        self.shapes = shapes
        kernels = try model.nodes.map { node in
            try makeKernel(node, inputs: node.inputs.map { shapes[$0]! }, outputs: node.outputs.map { shapes[$0]! })
        }
        var lastUse: [String: Int] = [:]
        for (index, node) in model.nodes.enumerated() {
            for input in node.inputs { lastUse[input] = index }
        }
        self.lastUse = lastUse
        kept = Set(model.outputs.map(\.name) + (model.classifier.map { [$0.probabilitiesName] } ?? []))
    }

    /// Reads and compiles the `.mlmodel` at `path`.
    public convenience init(contentsOf path: String) throws {
        try self.init(CoreMLReader.read(from: path).model)
    }

    /// Runs the model once.
    /// - Parameter profile: when given, receives each layer's name and its
    ///   wall time in seconds, in execution order.
    /// - Throws: `RuntimeError` when an input is missing or does not fit.
    public func predict(_ inputs: [String: InputValue], profile: ((String, Double) -> Void)? = nil) throws -> Prediction {
        var tensors: [String: Tensor] = [:]
        for input in model.inputs {
            guard let value = inputs[input.name] else { throw RuntimeError("no value for input '\(input.name)'") }
            tensors[input.name] = try tensor(for: input, from: value)
        }
        var pool = takePool()
        defer { returnPool(pool) }
        for (index, node) in model.nodes.enumerated() {
            let arguments = node.inputs.map { tensors[$0]! }
            var results = node.outputs.map { name in
                Tensor(shape: shapes[name]!, values: pool.take(shapes[name]!.count))
            }
            if let profile {
                let start = DispatchTime.now().uptimeNanoseconds
                kernels[index].run(arguments, &results)
                profile(node.name, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            } else {
                kernels[index].run(arguments, &results)
            }
            for (name, result) in zip(node.outputs, results) { tensors[name] = result }
            for name in node.inputs where lastUse[name] == index && !kept.contains(name) {
                if let dead = tensors.removeValue(forKey: name) { pool.give(dead.values) }
            }
        }
        var prediction = Prediction(outputs: [:])
        for output in model.outputs { prediction.outputs[output.name] = tensors[output.name] }
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
            return try Preprocessing.tensor(from: image, for: format, name: input.name)
        case (.image, .array):
            throw RuntimeError("input '\(input.name)' takes an array, not an image")
        case (.array(var tensor), _):
            guard tensor.values.count == expected.count else {
                throw RuntimeError("input '\(input.name)' takes \(expected.featureShape) (\(expected.count) values), got \(tensor.shape.featureShape) (\(tensor.values.count))")
            }
            tensor.shape = expected
            return tensor
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

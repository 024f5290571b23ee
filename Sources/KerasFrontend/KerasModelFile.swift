import Naming
import Foundation
import Conversion
import HDF5
import ModelFormat

/// A Keras `.h5` model: the `model_config` JSON (never executed: Lambda
/// layers are refused, not decoded) and the weights of each layer, read
/// through `weight_names` as every Keras version writes them.
struct KerasModelFile {
    let path: String
    let config: [String: Any]
    let kerasVersion: String
    /// Whether kernels are read (`KerasWeight.kernel`), or zeros stand in.
    let readsKernels: Bool
    private let file: HDF5File

    init(path: String, readsKernels: Bool = true) throws {
        self.path = path
        self.readsKernels = readsKernels
        do {
            file = try HDF5File(path: path)
        } catch let error as HDF5Error {
            throw KerasError(String(mentioning: error))
        }
        guard let json = try file.stringAttribute("model_config", of: "/") else {
            throw KerasError("\(path): no model_config attribute: not a Keras model saved with its architecture (weights-only files are not enough)")
        }
        guard let data = json.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw KerasError("\(path): model_config is not valid JSON" + (Self.nonFiniteKey(in: json).map {
                " (the value of '\($0)' is not a finite number; Python writes NaN and Infinity, which JSON has no spelling for)"
            } ?? ""))
        }
        config = object
        kerasVersion = (try? file.stringAttribute("keras_version", of: "/")) ?? nil ?? ""
    }

    /// The first key whose value is NaN, Infinity or a number too large for
    /// a Double (1e999): Python's json writes a layer's non-finite epsilon
    /// so, and JSONSerialization refuses the whole text.
    static func nonFiniteKey(in json: String) -> String? {
        let pattern = #""([^"\\]{1,100})"\s*:\s*\[?\s*(-?Infinity|NaN|-?[0-9.]+[eE]\+?[0-9]{3,})"#
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: json, range: NSRange(json.startIndex..., in: json)),
              let key = Range(match.range(at: 1), in: json) else { return nil }
        return String(json[key])
    }

    /// The weights of each of `layers` in the order Keras lists them, with
    /// their shapes; their values are read when asked for. The names of all
    /// are read at once (in one child process: `stringArrayAttributes`).
    func weights(of layers: [String]) throws -> [String: [KerasWeight]] {
        let root = try file.kind(of: "model_weights") == .group ? "model_weights" : "/"
        var groups: [(layer: String, group: String)] = []
        var seen = Set<String>()
        for layer in layers where seen.insert(layer).inserted {
            let group = root == "/" ? layer : "\(root)/\(layer)"
            if try file.kind(of: group) == .group { groups.append((layer, group)) }
        }
        let names = try file.stringArrayAttributes("weight_names", of: groups.map(\.group))
        var weights: [String: [KerasWeight]] = [:]
        for ((layer, group), names) in zip(groups, names) {
            weights[layer] = try (names ?? []).map { name in
                let dataset = "\(group)/\(name)"
                return KerasWeight(name: name, shape: try file.shape(of: dataset), dataset: dataset, file: file,
                                   readsKernel: readsKernels)
            }
        }
        return weights
    }
}

/// One weight tensor of a layer.
struct KerasWeight {
    let name: String
    let shape: [Int]
    let dataset: String
    let file: HDF5File
    let readsKernel: Bool

    /// The number of values (Int.max when the shape's product overflows:
    /// such a tensor is then refused as larger than the layer needs).
    var count: Int { shape.checkedProduct ?? .max }

    /// The values, read from the file now.
    func values() throws -> [Float] {
        try file.readFloats(dataset).values
    }

    /// The values of a kernel, which the layout moves read when the model is
    /// written: read now, or left unread when the file was opened for a summary.
    func kernel() throws -> FloatBytes {
        if readsKernel { return FloatBytes(try values()) }
        // Left unread: the limit a read would apply, all the same.
        guard count <= file.limits.maximumElements else {
            throw KerasError("\(dataset): shape \(shape) has more elements than the limit of \(file.limits.maximumElements)")
        }
        return FloatBytes(unloadedCount: count)
    }
}

/// A Keras model that cannot be converted; the message names the file and layer.
public typealias KerasError = MessageError<KerasErrorKind>
public enum KerasErrorKind {}

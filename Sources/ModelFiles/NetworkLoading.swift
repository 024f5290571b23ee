import Naming
import CoreMLBackend
import ModelFormat
import Runtime

extension Network {
    /// Reads and compiles the `.mlmodel` at `path`: the runtime itself
    /// knows no file format. The weights oneDNN's convolutions copy are
    /// released as they are copied (`model` holds them unloaded).
    /// - Throws: what `CoreMLReader.read` throws, and the model's
    ///   `ModelError` or `RuntimeError` with `path` in front.
    public convenience init(contentsOf path: String, kernels: KernelChoice = .fastest) throws {
        let model = try ValidatedModel.read(path: path)
        do {
            // The model was read for this network alone.
            try self.init(model, kernels: kernels, modelIsPrivate: true)
        } catch let error as ModelError {
            throw RuntimeError("\(path): \(String(mentioning: error))")
        } catch let error as RuntimeError {
            throw RuntimeError("\(path): \(String(mentioning: error))")
        }
    }
}

/// A `.mlmodel` (or an ML Program `.mlpackage`) read for use (predicting, writing again), validated from
/// its structure first (weight counts against their layers, payloads
/// skipped) and only then read whole: a weight array that is not aligned is
/// copied when read, and one declaring gigabytes over a sparse file's hole
/// was (15.6 GB) before its count was found wrong.
public enum ValidatedModel {
    /// The model at `path`, read whole once its structure validates.
    /// - Throws: what `CoreMLReader.read` throws, and `InvalidModelError`
    ///   (`path: ` and the `ModelError`) when the structure does not validate.
    public static func read(path: String) throws -> Model {
        let structure = try CoreMLReader.read(from: path, structureOnly: true)
        do {
            _ = try structure.model.validate()  // typed throws: ModelError alone
        } catch {
            throw InvalidModelError("\(path): \(String(mentioning: error))")
        }
        // A program's weights are read already (its blobs, from the mapped weight file).
        return structure.program != nil ? structure.model : try CoreMLReader.read(from: path).model
    }
}

/// A `.mlmodel` whose structure does not validate, with its path.
public typealias InvalidModelError = MessageError<InvalidModelErrorKind>
public enum InvalidModelErrorKind {}

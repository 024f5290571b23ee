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
        if MLProgramWriter.isPackage(path) {
            // An ML Program package (issue 36: what MLProgramWriter writes, raised back into the IR).
            let model = try MLProgramReader.read(from: path).model
            do {
                _ = try model.validate()  // typed throws: ModelError alone
            } catch {
                throw InvalidModelError("\(path): \(String(mentioning: error))")
            }
            return model
        }
        do {
            _ = try CoreMLReader.read(from: path, structureOnly: true).model.validate()
        } catch let error as ModelError {
            throw InvalidModelError("\(path): \(String(mentioning: error))")
        }
        return try CoreMLReader.read(from: path).model
    }
}

/// A `.mlmodel` whose structure does not validate, with its path.
public typealias InvalidModelError = MessageError<InvalidModelErrorKind>
public enum InvalidModelErrorKind {}

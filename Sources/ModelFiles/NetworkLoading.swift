import CoreMLBackend
import ModelFormat
import Runtime

extension Network {
    /// Reads and compiles the `.mlmodel` at `path`: the runtime itself
    /// knows no file format. The weights oneDNN's convolutions copy are
    /// released as they are copied (`model` holds them unloaded).
    /// - Throws: what `CoreMLReader.read` throws, and the model's
    ///   `ModelError` or `RuntimeError` with `path` in front.
    ///
    /// The model is validated from its structure first (weight counts
    /// against their layers, payloads skipped) and only then read whole: a
    /// weight array declaring gigabytes that are not aligned is copied when
    /// read, and was, out of a sparse file's hole (15.6 GB), before the
    /// count was found wrong.
    public convenience init(contentsOf path: String, kernels: KernelChoice = .fastest) throws {
        do {
            _ = try CoreMLReader.read(from: path, structureOnly: true).model.validate()
        } catch let error as ModelError {
            throw RuntimeError("\(path): \(error)")
        }
        let model = try CoreMLReader.read(from: path).model
        do {
            // The model was read for this network alone.
            try self.init(model, kernels: kernels, modelIsPrivate: true)
        } catch let error as ModelError {
            throw RuntimeError("\(path): \(error)")
        } catch let error as RuntimeError {
            throw RuntimeError("\(path): \(error)")
        }
    }
}

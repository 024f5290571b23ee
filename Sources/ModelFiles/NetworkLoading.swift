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

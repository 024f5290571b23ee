import CoreMLBackend
import ModelFormat
import Runtime

extension Network {
    /// Reads and compiles the `.mlmodel` at `path`: the runtime itself
    /// knows no file format.
    /// - Throws: what `CoreMLReader.read` throws, and the model's
    ///   `ModelError` or `RuntimeError` with `path` in front.
    public convenience init(contentsOf path: String, kernels: KernelChoice = .fastest) throws {
        let model = try CoreMLReader.read(from: path).model
        do {
            try self.init(model, kernels: kernels)
        } catch let error as ModelError {
            throw RuntimeError("\(path): \(error)")
        } catch let error as RuntimeError {
            throw RuntimeError("\(path): \(error)")
        }
    }
}

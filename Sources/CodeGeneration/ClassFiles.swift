#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CoreMLBackend
import FileIO

/// The typed classes of a model file written into a folder: what
/// `coreml-generate` and `coreml-convert --generate-classes` do.
public enum ClassFiles {
    /// Writes the classes of the model at `modelPath` into `folder`
    /// (created if missing, its parent must exist), each file atomically,
    /// never over the model or one of `inputs`. The class is named
    /// `className`, else after the model file (`AgeNet.mlmodel` -> `AgeNet`).
    /// - Returns: the paths written.
    /// - Throws: `FileError`, `ModelFileError` for the model, `GenerationError`.
    @discardableResult
    public static func write(modelAt modelPath: String, to folder: String, language: SourceLanguage,
                             className: String? = nil, isPublic: Bool = false, inputs: [String] = []) throws -> [String] {
        let interface = try CoreMLReader.interface(from: modelPath)
        let resource = resourceName(of: modelPath)
        let generator = try ClassGenerator(interface: interface, className: className ?? ClassGenerator.className(forModelNamed: resource),
                                           resourceName: resource, isPublic: isPublic)
        let files = generator.files(in: language)
        try makeFolder(folder)
        let paths = files.map { path(of: $0.name, in: folder) }
        let protected = inputs + [modelPath]
        for path in paths { try AtomicFile.checkTarget(path, inputs: protected) }  // all, before writing any
        for (file, path) in zip(files, paths) {
            try AtomicFile.write(to: path, inputs: protected) { stream, _ in
                guard fputs(file.text, stream) >= 0 else { throw FileError(path: path, errno: errno, action: "cannot write") }
            }
        }
        return paths
    }

    /// Checks, before a model is made, that its classes can be written
    /// into `folder` (named after `modelPath`) without replacing a device,
    /// a folder or one of `inputs`.
    public static func checkTargets(forModelAt modelPath: String, in folder: String, language: SourceLanguage, inputs: [String]) throws {
        let name = ClassGenerator.className(forModelNamed: resourceName(of: modelPath))
        let names = language == .swift ? [name + ".swift"] : [name + ".h", name + ".m"]
        for file in names { try AtomicFile.checkTarget(path(of: file, in: folder), inputs: inputs + [modelPath]) }
    }

    private static func path(of file: String, in folder: String) -> String {
        (folder.hasSuffix("/") ? folder : folder + "/") + file
    }

    /// `AgeNet` for `models/AgeNet.mlmodel`: the name the compiled model
    /// (`AgeNet.mlmodelc`) has in an app bundle.
    public static func resourceName(of modelPath: String) -> String {
        let file = FileSystem.name(of: modelPath)
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return file }
        return String(file[..<dot])
    }

    private static func makeFolder(_ folder: String) throws {
        try FileSystem.makeFolder(folder)
    }
}

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
    /// (created if missing, its parent must exist), all or nothing
    /// (`AtomicFileSet`: on a failure, a full disk included, no file is
    /// replaced, none left half-written), never over the model or one of
    /// `inputs`. The class is named `className`, else after the model file
    /// (`AgeNet.mlmodel` -> `AgeNet`).
    /// - Returns: the paths written.
    /// - Throws: `FileError`, `ModelFileError` for the model, `GenerationError`.
    @discardableResult
    public static func write(modelAt modelPath: String, to folder: String, language: SourceLanguage,
                             className: String? = nil, isPublic: Bool = false, inputs: [String] = []) throws -> [String] {
        // A package is a folder: classes written into it would change an input of this run.
        if MLProgramWriter.isPackage(modelPath), let package = FileSystem.resolved(modelPath), let target = existingAncestor(of: folder),
           target == package || target.hasPrefix(package + "/") {
            throw FileError(path: folder, message: "lies in the model package \(modelPath), an input of this run; choose another folder")
        }
        let files = try generate(modelAt: modelPath, readingFrom: modelPath, language: language, className: className, isPublic: isPublic)
        let paths = files.map { path(of: $0.name, in: folder) }
        let set = try AtomicFileSet(targets: paths, inputs: inputs + [modelPath])
        try set.createFolder(folder)
        try write(files, to: paths, in: set)
        try set.commit()
        return paths
    }

    /// The resolved path of `folder`, or of its nearest existing ancestor
    /// when it is to be created.
    private static func existingAncestor(of folder: String) -> String? {
        var path = folder
        while true {
            if let resolved = FileSystem.resolved(path) { return resolved }
            let parent = FileSystem.folder(of: path)
            guard parent != path else { return nil }
            path = parent
        }
    }

    /// The paths of the classes of the model at `modelPath` in `folder`,
    /// named after the model file.
    public static func paths(forModelAt modelPath: String, in folder: String, language: SourceLanguage) -> [String] {
        let name = ClassGenerator.className(forModelNamed: resourceName(of: modelPath))
        let names = language == .swift ? [name + ".swift"] : [name + ".h", name + ".m"]
        return names.map { path(of: $0, in: folder) }
    }

    /// Writes the classes of a model that is itself part of `set` (not
    /// yet in place): read from `temporaryModel`, named after `modelPath`,
    /// into the targets `paths(forModelAt:in:language:)` gives, which
    /// `set` must name. Nothing is in place before `set.commit()`.
    /// - Returns: the paths written.
    @discardableResult
    public static func write(modelAt modelPath: String, readingFrom temporaryModel: String, to folder: String,
                             language: SourceLanguage, in set: AtomicFileSet) throws -> [String] {
        let files = try generate(modelAt: modelPath, readingFrom: temporaryModel, language: language, className: nil, isPublic: false)
        let paths = files.map { path(of: $0.name, in: folder) }
        try write(files, to: paths, in: set)
        return paths
    }

    private static func generate(modelAt modelPath: String, readingFrom file: String, language: SourceLanguage,
                                 className: String?, isPublic: Bool) throws -> [GeneratedFile] {
        let interface = try CoreMLReader.interface(from: file)
        let resource = resourceName(of: modelPath)
        let generator = try ClassGenerator(interface: interface, className: className ?? ClassGenerator.className(forModelNamed: resource),
                                           resourceName: resource, modelFileName: FileSystem.name(of: modelPath), isPublic: isPublic)
        return generator.files(in: language)
    }

    private static func write(_ files: [GeneratedFile], to paths: [String], in set: AtomicFileSet) throws {
        for (file, path) in zip(files, paths) {
            try set.write(to: path) { stream, _ in
                guard fputs(file.text, stream) >= 0 else { throw FileError(path: path, errno: errno, action: "cannot write") }
            }
        }
    }

    /// Checks, before a model is made, that its classes can be written
    /// into `folder` (named after `modelPath`) without replacing a device,
    /// a folder or one of `inputs`.
    public static func checkTargets(forModelAt modelPath: String, in folder: String, language: SourceLanguage, inputs: [String]) throws {
        for path in paths(forModelAt: modelPath, in: folder, language: language) {
            try AtomicFile.checkTarget(path, inputs: inputs + [modelPath])
        }
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
}

import CLI
import CodeGeneration
import CoreMLBackend
import ModelFiles
import Naming

/// `generate`: the typed classes Xcode generates for a model, written
/// anywhere (Linux included), also for a model an app downloads.
enum GenerateCommand: Command {
    static let configuration = CommandConfiguration(
        name: "coreml-generate", abstract: "Write the typed Swift or Objective-C classes of a Core ML model, as Xcode generates them.",
        discussion: """
            Writes <Name>Input, <Name>Output and <Name> (Swift: <Name>.swift; Objective-C: <Name>.h and <Name>.m) into \
            the folder, created if missing: typed properties for every feature, loading from the app bundle, a URL or \
            asynchronously, predictions, and compile(downloaded:) for a model the app downloads and compiles on the \
            device. Only the model's description is read (any model type, any layers; not a check that Core ML loads \
            the model: coreml-inspect reads all of it). The class is named after the \
            model file (sanitized as Xcode does: 'age net.mlmodel' -> age_net) unless --class-name says otherwise; \
            the bundled model is looked up by the file's name. Property names are the feature names made identifiers; \
            a name that would collide as the language sees it (x and X share setX: in Objective-C, MInput in model M \
            hides the class, _x hides x's variable, a type or member the classes use) gets _ appended, and the file's \
            header comment lists each such rename. The files are written all or nothing: each to a temporary file next to it, \
            renamed into place once all are complete, so that a failure (a full disk) replaces none; the model is never replaced.
            """,
        versionDetails: "reads Core ML .mlmodel files of any specification version; writes Swift (language modes 5 and 6) or Objective-C (ARC)",
        examples: [
            ("AgeNet.swift into the folder Classes", "coreml-generate AgeNet.mlmodel Classes"),
            ("Objective-C classes for a framework, under another name",
             "coreml-generate AgeNet.mlmodel Classes --language objc --public --class-name AgeClassifier"),
        ])
    static let options = Options {
        Positional("model", valueName: "Model.mlmodel", help: "The Core ML model whose classes to write (an .mlmodel, or an ML Program .mlpackage).")
        Positional("folder", valueName: "OUTDIR", help: "Where to write them (created if missing; its parent must exist).")
        Option("language", valueName: "swift|objc", default: "swift", help: "The classes' language: swift (<Name>.swift) or objc (<Name>.h and <Name>.m).")
        Option("class-name", valueName: "Name", help: "The model class's name (default: the model file's name, sanitized).")
        Flag("public", help: "Declare the classes and members public (Swift) or visible outside the binary (Objective-C), for a framework.")
        Flag("quiet", short: "q", help: "Print nothing when it succeeds.")
    }

    static func run(_ arguments: ParsedArguments) throws {
        let language = try Self.language(arguments.string("language"))
        let model = try arguments.string("model"), folder = try arguments.string("folder")
        let className = arguments.optionalString("class-name")
        if let className { try checkClassName(className) }
        try Frontend.coreML.require(model)
        let written = try ClassFiles.write(modelAt: model, to: folder, language: language, className: className,
                                           isPublic: arguments.flag("public"))
        if !arguments.flag("quiet") {
            for path in written { print("Wrote \(TextEscaping.line(path))") }
        }
    }

    static func language(_ name: String) throws(UsageError) -> SourceLanguage {
        guard let language = SourceLanguage(rawValue: name) else {
            throw UsageError("--language takes swift or objc, not '\(TextEscaping.line(name))'")
        }
        return language
    }

    /// A class name given on the command line: a mistake there is a usage error.
    static func checkClassName(_ name: String) throws(UsageError) {
        do {
            _ = try ClassGenerator(interface: CoreMLInterface(specificationVersion: 1, inputs: [], outputs: []), className: name, resourceName: name)
        } catch {
            throw UsageError("--class-name: \(TextEscaping.line("\(error)"))")
        }
    }
}

import CoreMLBackend
import ModelFormat

/// The languages `ClassGenerator` writes.
public enum SourceLanguage: String, CaseIterable, Sendable {
    case swift, objc
}

/// A source file to write: its name (no folder) and its text.
public struct GeneratedFile: Equatable, Sendable {
    public var name: String
    public var text: String
}

/// The typed classes Xcode generates for a model (`AgeNetInput`,
/// `AgeNetOutput`, `AgeNet`), written from a model file's interface in
/// Swift or Objective-C, also for a model the app downloads and compiles
/// at run time (`AgeNet.compile(downloaded:)`).
public struct ClassGenerator: Sendable {
    public var interface: CoreMLInterface
    /// The model class's name; `Input` and `Output` classes add to it.
    public var className: String
    /// The compiled model's name in the app bundle (`AgeNet` for
    /// `AgeNet.mlmodelc`): the model file's name without its extension.
    public var resourceName: String
    /// The model file the classes were generated from, for their comment
    /// (`AgeNet.mlmodel`, `Detector.mlpackage`).
    public var modelFileName: String
    /// Declare the classes and their members `public` (Swift) or visible
    /// outside the binary (Objective-C); else internal / hidden, as Xcode.
    public var isPublic: Bool

    let inputs: [GeneratedFeature]
    let outputs: [GeneratedFeature]
    let availability: Availability

    /// - Throws: `GenerationError` for a class name that is not an identifier.
    /// `modelFileName` defaults to `resourceName` + ".mlmodel".
    public init(interface: CoreMLInterface, className: String, resourceName: String, modelFileName: String? = nil,
                isPublic: Bool = false) throws {
        guard Self.isIdentifier(className) else {
            throw GenerationError("the class name '\(className)' is not an identifier (letters, digits and _, not starting with a digit)")
        }
        guard !Identifiers.swiftKeywords.contains(className), !Identifiers.isReservedInObjC(className) else {
            throw GenerationError("the class name '\(className)' is a reserved word in Swift or Objective-C")
        }
        guard !Identifiers.typesInUse.contains(className) else {
            throw GenerationError("the class name '\(className)' is a type the generated code uses")
        }
        self.interface = interface
        self.className = className
        self.resourceName = resourceName
        self.modelFileName = modelFileName ?? resourceName + ".mlmodel"
        self.isPublic = isPublic
        availability = .model(specificationVersion: interface.specificationVersion)
        // A parameter or property named like a generated class hides it (`MInput` in model `M`).
        let classes: Set<String> = [className, className + "Input", className + "Output"]
        inputs = Self.features(interface.inputs, reserved: classes.union(["featureNames", "featureValue"]))
        var outputFeatures = interface.outputs
        for index in outputFeatures.indices { outputFeatures[index].isOptional = false }  // Core ML fills every output
        outputs = Self.features(outputFeatures, reserved: classes.union(["featureNames", "featureValue", "provider"]))
    }

    /// The class name Xcode would give a model file: its name without the
    /// extension, sanitized (`age net.mlmodel` -> `age_net`).
    public static func className(forModelNamed name: String) -> String {
        let sanitized = Identifiers.sanitized(name)
        let taken = Identifiers.swiftKeywords.contains(sanitized) || Identifiers.isReservedInObjC(sanitized)
            || Identifiers.typesInUse.contains(sanitized)
        return taken ? sanitized + "_" : sanitized
    }

    /// The files for `language`: `AgeNet.swift`, or `AgeNet.h` and `AgeNet.m`.
    public func files(in language: SourceLanguage) -> [GeneratedFile] {
        switch language {
        case .swift: [GeneratedFile(name: className + ".swift", text: SwiftSource.text(self))]
        case .objc: [GeneratedFile(name: className + ".h", text: ObjCHeader.text(self)),
                     GeneratedFile(name: className + ".m", text: ObjCImplementation.text(self))]
        }
    }

    static func isIdentifier(_ name: String) -> Bool {
        !name.isEmpty && Identifiers.sanitized(name) == name
    }

    /// Property names unique within a class as each language sees them,
    /// none a member the class has already, a type its code names or a
    /// generated class; a name taken is made unique with `_` appended (in
    /// feature order: stable), and the file's header comment says so
    /// (`renameLines`). Swift: a `...ShapedArray` accessor's name is taken
    /// with its array, an image's `set<Name>(with:)` with its capitalized
    /// name. Objective-C: the accessors `x` / `setX:` and the instance
    /// variable `_x` are taken with `x` (`x` and `X` share `setX:`, and a
    /// parameter `_x` would hide the variable of `x`).
    private static func features(_ features: [CoreMLInterface.Feature], reserved: Set<String>) -> [GeneratedFeature] {
        // A property or parameter named `MLFeatureValue` would hide the type
        // from the code that calls it, one named `self` the object itself.
        var swiftTaken = reserved.union(Identifiers.typesInUse).union(["self", "Self", "super", "_", "init", "deinit", "Type", "Protocol"])
        var swiftSetters = Set<String>()
        var objcTaken = swiftTaken
        var objcSetters = Set<String>()
        return features.map { feature in
            let base = Identifiers.sanitized(feature.name)
            let isImage = if case .image = feature.type { true } else { false }
            var swiftName = base
            while swiftTaken.contains(swiftName) || isImage && swiftSetters.contains(ObjCText.capitalized(swiftName))
                    || { if case .multiArray = feature.type { swiftTaken.contains(swiftName + "ShapedArray") } else { false } }() {
                swiftName += "_"
            }
            swiftTaken.formUnion([swiftName, swiftName + "ShapedArray"])
            if isImage { swiftSetters.insert(ObjCText.capitalized(swiftName)) }
            var objcName = Identifiers.isReservedInObjC(base) ? "feature_" + base : base
            while objcTaken.contains(objcName) || objcTaken.contains("_" + objcName) || objcSetters.contains(ObjCText.capitalized(objcName)) {
                objcName += "_"
            }
            objcTaken.formUnion([objcName, "_" + objcName])
            objcSetters.insert(ObjCText.capitalized(objcName))
            return GeneratedFeature(feature, swiftName: swiftName, objcName: objcName)
        }
    }

    /// Comment lines naming each feature whose property is not its name
    /// made an identifier (`x y` is `x_y` as Xcode makes it; a collision
    /// appends `_`), for `language`.
    func renameLines(_ language: SourceLanguage) -> [String] {
        let renamed = (inputs + outputs).compactMap { feature -> String? in
            let name = language == .swift ? feature.swiftName : feature.objcName
            guard name != Identifiers.sanitized(feature.name) else { return nil }
            return "'\(feature.name)' is \(name)"
        }
        guard !renamed.isEmpty else { return [] }
        let reason = language == .swift
            ? "(its name is taken by another feature, a member or a type the code uses)"
            : "(its name, its setter set<Name>: or its variable _<name> is taken by another feature, a member or a type)"
        return Identifiers.commentLines("Features renamed \(reason): " + renamed.joined(separator: ", ") + ".")
    }

    // MARK: What both languages write

    /// The header comment's lines: the model's description and metadata.
    var modelDescriptionLines: [String] {
        let metadata = interface.metadata
        var lines: [String] = []
        if !metadata.shortDescription.isEmpty { lines += Identifiers.commentLines(metadata.shortDescription) }
        for (label, value) in [("Author", metadata.author), ("License", metadata.license), ("Version", metadata.version)] where !value.isEmpty {
            lines += Identifiers.commentLines("\(label): \(value)")
        }
        return lines
    }

    /// The model's description and metadata as comment lines (`//` or `///`).
    func modelComment(_ prefix: String) -> [String] {
        modelDescriptionLines.map { $0.isEmpty ? prefix : prefix + " " + $0 }
    }

    /// The comment every generated file opens with.
    func fileComment(_ file: String) -> [String] {
        var lines = ["//", "// \(file)", "//"] + Identifiers.commentLines(provenance).map { "// " + $0 }
            + ["// Do not edit: generate it again when the model changes."]
            + renameLines(file.hasSuffix(".swift") ? .swift : .objc).map { "// " + $0 }
        if !modelDescriptionLines.isEmpty { lines += ["//"] + modelComment("//") }
        return lines + ["//"]
    }

    /// "Generated by coreml-generate from AgeNet.mlmodel (Core ML specification 1)."
    var provenance: String {
        "Generated by coreml-generate from \(modelFileName) (Core ML specification \(interface.specificationVersion))."
    }

    /// The availability of a member that uses `api`, when the class's own
    /// does not already cover it.
    func memberAvailability(_ api: Availability) -> Availability? {
        let needed = availability.and(api)
        return needed == availability && needed.onWatchOS == availability.onWatchOS ? nil : needed
    }

    var imageInputs: [GeneratedFeature] {
        inputs.filter { if case .image = $0.kind { !$0.isOptional } else { false } }
    }

    /// Every array input has an element type `MLShapedArray` takes (and there is one).
    var takesShapedArrays: Bool {
        let arrays = inputs.filter { if case .array = $0.kind { true } else { false } }
        return !arrays.isEmpty && arrays.allSatisfy { $0.swiftShapedType != nil }
    }
}

/// A model or option the generator cannot write classes for.
public struct GenerationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}

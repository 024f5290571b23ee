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
    /// Declare the classes and their members `public` (Swift) or visible
    /// outside the binary (Objective-C); else internal / hidden, as Xcode.
    public var isPublic: Bool

    let inputs: [GeneratedFeature]
    let outputs: [GeneratedFeature]
    let availability: Availability

    /// - Throws: `GenerationError` for a class name that is not an identifier.
    public init(interface: CoreMLInterface, className: String, resourceName: String, isPublic: Bool = false) throws {
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
        self.isPublic = isPublic
        availability = .model(specificationVersion: interface.specificationVersion)
        inputs = Self.features(interface.inputs, reserved: ["featureNames", "featureValue"])
        var outputFeatures = interface.outputs
        for index in outputFeatures.indices { outputFeatures[index].isOptional = false }  // Core ML fills every output
        outputs = Self.features(outputFeatures, reserved: ["featureNames", "featureValue", "provider"])
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

    /// Property names unique within a class, none a member the class has
    /// already or a type its code names; a `...ShapedArray` accessor's name
    /// is taken with its array.
    private static func features(_ features: [CoreMLInterface.Feature], reserved: Set<String>) -> [GeneratedFeature] {
        // A property or parameter named `MLFeatureValue` would hide the type
        // from the code that calls it, one named `self` the object itself.
        var swiftTaken = reserved.union(Identifiers.typesInUse).union(["self", "Self", "super", "_", "init", "deinit", "Type", "Protocol"])
        var objcTaken = swiftTaken
        return features.map { feature in
            let base = Identifiers.sanitized(feature.name)
            var swiftName = Identifiers.unique(base, in: &swiftTaken)
            if case .multiArray = feature.type, swiftTaken.contains(swiftName + "ShapedArray") { swiftName = Identifiers.unique(swiftName + "_", in: &swiftTaken) }
            swiftTaken.insert(swiftName + "ShapedArray")
            var objcBase = base
            if Identifiers.isReservedInObjC(objcBase) { objcBase = "feature_" + objcBase }
            let objcName = Identifiers.unique(objcBase, in: &objcTaken)
            return GeneratedFeature(feature, swiftName: swiftName, objcName: objcName)
        }
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
        if !modelDescriptionLines.isEmpty { lines += ["//"] + modelComment("//") }
        return lines + ["//"]
    }

    /// "Generated by coreml-generate from AgeNet.mlmodel (Core ML specification 1)."
    var provenance: String {
        "Generated by coreml-generate from \(resourceName).mlmodel (Core ML specification \(interface.specificationVersion))."
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

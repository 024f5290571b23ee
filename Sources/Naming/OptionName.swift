/// An option a library message mentions (an error's hint, a warning, an
/// outline's suggested fix), typed: the library never writes a program's
/// flag spelling. Swift callers read the library's own name (`libraryName`:
/// `inputShapes`, `imageInputNames`); the command-line programs name it by
/// their flag (`--input-shape`), through `String.namingOptions`.
public enum OptionName: String, Sendable, CaseIterable {
    case inputShape, imageInput, yoloAnchors, addSoftmax, classMap, weightStats, probe, allowNonFinite, confidenceThreshold, genericKernels, weights, json, detector, classLabels, rowsPerClass, ignoreTopK, convertTo, computePrecision

    /// How the library's API spells it.
    public var libraryName: String {
        switch self {
        case .inputShape: "inputShapes"
        case .imageInput: "imageInputNames"
        case .yoloAnchors: "yoloAnchors"
        case .addSoftmax: "addSoftmax"
        case .classMap: "classMap"
        case .weightStats: "weightStatistics"
        case .probe: "probes"
        case .allowNonFinite: "skipping NumpyFile.checkFinite"
        case .confidenceThreshold: "NonMaximumSuppression.confidenceThreshold"
        case .genericKernels: "KernelChoice.generic"
        case .weights: "weights"
        case .json: "InspectionJSON"
        case .detector: "detectorOutput"
        case .classLabels: "classLabels"
        case .rowsPerClass: "detectorRowsPerClass"
        case .ignoreTopK: "ignoresCandidateCap"
        case .convertTo: "MLProgramWriter"
        case .computePrecision: "computePrecision"
        }
    }

    /// A mention in text: the case's name between U+E000 and U+E001 (two
    /// private-use characters no message holds), so it stays a mention when
    /// the message is wrapped in another error's (`"\(path): \(error.message)"`).
    static let opening: Character = "\u{E000}", closing: Character = "\u{E001}"
}

extension String.StringInterpolation {
    /// `"\(option: .inputShape) x=1,3"`: a mention of the option, named when
    /// the text is shown (`namingOptions`).
    public mutating func appendInterpolation(option: OptionName) {
        appendLiteral("\(OptionName.opening)\(option.rawValue)\(OptionName.closing)")
    }
}

extension String {
    /// The text with each option mention named by `name`.
    public func namingOptions(_ name: (OptionName) -> String) -> String {
        guard contains(OptionName.opening) else { return self }
        var result = "", rest = self[...]
        while let start = rest.firstIndex(of: OptionName.opening) {
            result += rest[..<start]
            let afterStart = rest.index(after: start)
            guard let end = rest[afterStart...].firstIndex(of: OptionName.closing),
                  let option = OptionName(rawValue: String(rest[afterStart..<end])) else {
                result.append(rest[start])
                rest = rest[afterStart...]
                continue
            }
            result += name(option)
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }

    /// The text with each option mention named as the library's API names it.
    public var namingLibraryOptions: String { namingOptions(\.libraryName) }
}

/// An error whose `message` may mention options: its description names
/// them as the library does; a program names them by its flags from `message`.
public protocol OptionMentioningError: Error, CustomStringConvertible {
    /// The text with option mentions (`String.namingOptions`).
    var message: String { get }
}

extension OptionMentioningError {
    public var description: String { message.namingLibraryOptions }
}

extension String {
    /// An error's text with its option mentions kept (an `OptionMentioningError`'s
    /// message, else its description), for a message that wraps it.
    public init(mentioning error: any Error) {
        self = (error as? any OptionMentioningError)?.message ?? "\(error)"
    }
}

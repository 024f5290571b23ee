/// One declared command-line input of a command: a positional argument, a
/// valued option (`--name value`) or a flag (`--name`).
///
/// A command declares each input once; parsing, the usage line and `--help`
/// are all derived from these declarations.
public struct OptionSpec: Sendable, Equatable {
    /// What kind of input this is.
    public enum Kind: Sendable, Equatable {
        /// A boolean switch: `--is-bgr`. Takes no value.
        case flag
        /// A named option taking one value: `--output path`, `--output=path`, `-o path`.
        case option
        /// A positional argument, matched by position among non-option tokens.
        case positional
    }

    /// Flag, option or positional.
    public var kind: Kind
    /// Long name without dashes (`image-scale`); also the key for `ParsedArguments` lookups.
    public var name: String
    /// Optional one-letter short name (`o` for `-o`). Never set for positionals.
    public var short: Character?
    /// Placeholder shown in usage and help: `<path>`.
    public var valueName: String
    /// One-line help text.
    public var help: String
    /// Value used when the input is absent; shown in help as `(default: ...)`.
    public var defaultValue: String?
    /// Whether the input may be given several times (values are kept in order).
    /// A repeatable positional takes all remaining positional tokens.
    public var isRepeatable: Bool
    /// Whether parsing fails with a usage error when the input is absent.
    public var isRequired: Bool
    /// Names, without dashes, that other tools or older versions use for
    /// this input (coremltools' `image_input_names`, an old `output-file`):
    /// typed as options, they get a did-you-mean to this one.
    public var otherSpellings: [String]
    /// Names, without dashes, this input had in earlier versions of these
    /// programs: typed, they are a usage error saying the new name
    /// (`'--score-threshold' is now '--confidence-threshold'`), never
    /// silently taken.
    public var formerSpellings: [String]
    /// For a flag that once took a value which is now another option's
    /// (`--generate-classes swift` is now `--generate-classes --language
    /// swift`): the flag followed by one of those values, or given one with
    /// `=`, is a usage error saying the new form.
    public var formerValues: FormerValues?
    /// Whether the value is text the program writes (model metadata), not a
    /// path or a name to look up: a byte that is not UTF-8 there is refused
    /// (a path keeps such bytes, `PathBytes`; text written to a model
    /// cannot hold them).
    public var isText: Bool

    /// Creates a declaration; prefer the `Positional`, `Option` and `Flag` helpers.
    public init(
        kind: Kind, name: String, short: Character? = nil, valueName: String? = nil,
        help: String, defaultValue: String? = nil, isRepeatable: Bool = false, isRequired: Bool = false,
        otherSpellings: [String] = [], formerSpellings: [String] = [], formerValues: FormerValues? = nil,
        isText: Bool = false
    ) {
        self.kind = kind
        self.name = name
        self.short = kind == .positional ? nil : short
        self.valueName = valueName ?? name
        self.help = help
        self.defaultValue = kind == .flag ? nil : defaultValue
        self.isRepeatable = isRepeatable
        self.isRequired = kind != .flag && isRequired && defaultValue == nil
        self.otherSpellings = otherSpellings
        self.formerSpellings = formerSpellings
        self.formerValues = kind == .flag ? formerValues : nil
        self.isText = kind != .flag && isText
    }

    /// How the input is named in messages: `--output` or `<prototxt>`.
    public var displayName: String {
        kind == .positional ? "<\(valueName)>" : "--\(name)"
    }
}

/// The values a flag once took, now given to `option` (`OptionSpec.formerValues`).
public struct FormerValues: Sendable, Equatable {
    /// The option, without dashes, that takes them now (`language`).
    public var option: String
    /// The values the flag took (`swift`, `objc`).
    public var values: [String]

    public init(option: String, values: [String]) {
        self.option = option
        self.values = values
    }
}

/// Anything that can appear inside an `Options { ... }` block.
public protocol OptionDeclaration {
    /// The declaration this value stands for.
    var spec: OptionSpec { get }
}

extension OptionSpec: OptionDeclaration {
    public var spec: OptionSpec { self }
}

/// Declares a positional argument. Required unless it has a default or `required: false`.
public struct Positional: OptionDeclaration {
    public let spec: OptionSpec
    public init(
        _ name: String, valueName: String? = nil, default defaultValue: String? = nil,
        required: Bool = true, repeatable: Bool = false, help: String
    ) {
        spec = OptionSpec(
            kind: .positional, name: name, valueName: valueName, help: help,
            defaultValue: defaultValue, isRepeatable: repeatable, isRequired: required)
    }
}

/// Declares a valued option: `--name value`, `--name=value` or `-s value`.
public struct Option: OptionDeclaration {
    public let spec: OptionSpec
    public init(
        _ name: String, short: Character? = nil, valueName: String? = nil, default defaultValue: String? = nil,
        required: Bool = false, repeatable: Bool = false, otherSpellings: [String] = [], formerSpellings: [String] = [],
        text: Bool = false, help: String
    ) {
        spec = OptionSpec(
            kind: .option, name: name, short: short, valueName: valueName, help: help,
            defaultValue: defaultValue, isRepeatable: repeatable, isRequired: required, otherSpellings: otherSpellings,
            formerSpellings: formerSpellings, isText: text)
    }
}

/// Declares a boolean flag: `--name` or `-s`.
public struct Flag: OptionDeclaration {
    public let spec: OptionSpec
    public init(_ name: String, short: Character? = nil, otherSpellings: [String] = [], formerSpellings: [String] = [],
                formerValues: FormerValues? = nil, help: String) {
        spec = OptionSpec(kind: .flag, name: name, short: short, help: help, otherSpellings: otherSpellings,
                          formerSpellings: formerSpellings, formerValues: formerValues)
    }
}

/// Builds the `[OptionSpec]` of an `Options { ... }` block.
@resultBuilder
public enum OptionsBuilder {
    public static func buildExpression(_ declaration: any OptionDeclaration) -> [OptionSpec] { [declaration.spec] }
    public static func buildExpression(_ specs: [OptionSpec]) -> [OptionSpec] { specs }
    public static func buildBlock(_ parts: [OptionSpec]...) -> [OptionSpec] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [OptionSpec]?) -> [OptionSpec] { part ?? [] }
    public static func buildEither(first part: [OptionSpec]) -> [OptionSpec] { part }
    public static func buildEither(second part: [OptionSpec]) -> [OptionSpec] { part }
    public static func buildArray(_ parts: [[OptionSpec]]) -> [OptionSpec] { parts.flatMap { $0 } }
}

/// The ordered declarations of one command.
public struct Options: Sendable, Equatable, ExpressibleByArrayLiteral {
    /// All declarations in declaration order (this is also help order).
    public let specs: [OptionSpec]

    /// Creates the set from a builder block of `Positional`, `Option` and `Flag`.
    public init(@OptionsBuilder _ build: () -> [OptionSpec]) {
        self.init(build())
    }

    /// Creates the set from explicit declarations.
    public init(_ specs: [OptionSpec]) {
        self.specs = specs
        assert(Set(specs.map(\.name)).count == specs.count, "duplicate option name in \(specs.map(\.name))")
        let shorts = specs.compactMap(\.short)
        assert(Set(shorts).count == shorts.count, "duplicate short option in \(shorts)")
        assert(!specs.contains { ["help", "version"].contains($0.name) || $0.short == "h" },
               "'help', 'version' and '-h' are reserved")
    }

    public init(arrayLiteral elements: OptionSpec...) {
        self.init(elements)
    }

    /// No declarations.
    public static let none = Options([])

    /// Positional declarations in order.
    public var positionals: [OptionSpec] { specs.filter { $0.kind == .positional } }
    /// Flag and option declarations in order.
    public var named: [OptionSpec] { specs.filter { $0.kind != .positional } }

    /// The declaration called `name` (any kind).
    public func spec(named name: String) -> OptionSpec? { specs.first { $0.name == name } }
    func named(_ name: String) -> OptionSpec? { named.first { $0.name == name } }
    func named(short: Character) -> OptionSpec? { named.first { $0.short == short } }
}

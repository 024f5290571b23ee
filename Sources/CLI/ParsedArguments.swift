/// A type that can be parsed from one command-line value.
public protocol ArgumentValue {
    /// Parses `argument`, or returns nil when it is not a valid value.
    init?(argument: String)
    /// What a valid value looks like, for error messages: "a number".
    static var expectedValue: String { get }
}

extension String: ArgumentValue {
    public init?(argument: String) { self = argument }
    public static var expectedValue: String { "a string" }
}

extension Int: ArgumentValue {
    public init?(argument: String) { self.init(argument) }
    public static var expectedValue: String { "an integer" }
}

extension Float: ArgumentValue {
    public init?(argument: String) {
        // A double beyond Float's range becomes an infinity: refused too.
        guard let value = Double(argument: argument), Float(value).isFinite else { return nil }
        self = Float(value)
    }
    public static var expectedValue: String { Double.expectedValue }
}

extension Double: ArgumentValue {
    /// A finite decimal number, or a fraction of two (`2/255`, `-1/127.5`),
    /// as tutorials write an image scale. NaN and infinities are refused:
    /// a preprocessing bias of NaN would make every prediction NaN.
    public init?(argument: String) {
        let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let numerator = Double(parts[0]), numerator.isFinite else { return nil }
        if parts.count == 2 {
            guard let denominator = Double(parts[1]), denominator.isFinite, denominator != 0, !parts[1].hasPrefix("-") else { return nil }
            self = numerator / denominator
        } else {
            self = numerator
        }
        guard isFinite else { return nil }
    }
    public static var expectedValue: String { "a finite number, or a fraction such as 2/255" }
}

extension Bool: ArgumentValue {
    public init?(argument: String) {
        switch argument.lowercased() {
        case "true", "yes", "1": self = true
        case "false", "no", "0": self = false
        default: return nil
        }
    }
    public static var expectedValue: String { "true or false" }
}

/// The result of parsing one command's arguments: raw values by declared
/// name, plus typed accessors that throw a `UsageError` naming the option
/// when a value is missing or does not parse.
///
/// Asking for a name that was never declared is a programming error and traps.
public struct ParsedArguments: Sendable {
    /// Names from the root command to this one, e.g. `["convert", "caffe"]`.
    public let commandPath: [String]
    /// The declarations these arguments were parsed against.
    public let options: Options
    /// Values given on the command line, by declaration name, in order.
    private var given: [String: [String]] = [:]
    /// Number of times each flag was given.
    private var flagCounts: [String: Int] = [:]

    init(commandPath: [String], options: Options) {
        self.commandPath = commandPath
        self.options = options
    }

    mutating func record(_ spec: OptionSpec, value: String?) {
        if let value {
            given[spec.name, default: []].append(value)
        } else {
            flagCounts[spec.name, default: 0] += 1
        }
    }

    /// The values given for `name` so far (while parsing).
    func givenValues(_ name: String) -> [String] {
        given[name] ?? []
    }

    private func declared(_ name: String) -> OptionSpec {
        guard let spec = options.spec(named: name) else {
            preconditionFailure("'\(name)' is not declared by command '\(commandPath.joined(separator: " "))'")
        }
        return spec
    }

    // MARK: Raw access

    /// Whether the input was given explicitly (defaults do not count).
    public func isPresent(_ name: String) -> Bool {
        given[name] != nil || flagCounts[name] != nil
    }

    /// Whether the flag `name` was given.
    public func flag(_ name: String) -> Bool {
        _ = declared(name)
        return flagCounts[name, default: 0] > 0
    }

    /// How many times the flag `name` was given (e.g. `-v -v`).
    public func flagCount(_ name: String) -> Int {
        _ = declared(name)
        return flagCounts[name, default: 0]
    }

    /// The value of `name`: the last one given, else the default, else nil.
    public func optionalString(_ name: String) -> String? {
        let spec = declared(name)
        return given[name]?.last ?? spec.defaultValue
    }

    /// Every value given for `name` in order; the default alone when none was given.
    public func strings(_ name: String) -> [String] {
        let spec = declared(name)
        return given[name] ?? spec.defaultValue.map { [$0] } ?? []
    }

    /// The value of `name` (given or default).
    /// - Throws: `UsageError` when there is neither.
    public func string(_ name: String) throws(UsageError) -> String {
        try value(name, as: String.self)
    }

    // MARK: Typed access

    /// The value of `name` as an `Int`. - Throws: `UsageError` when missing or not an integer.
    public func int(_ name: String) throws(UsageError) -> Int { try value(name, as: Int.self) }
    /// The value of `name` as a `Float`. - Throws: `UsageError` when missing or not a number.
    public func float(_ name: String) throws(UsageError) -> Float { try value(name, as: Float.self) }
    /// The value of `name` as a `Double`. - Throws: `UsageError` when missing or not a number.
    public func double(_ name: String) throws(UsageError) -> Double { try value(name, as: Double.self) }

    /// The value of `name` converted to `T`.
    /// - Throws: `UsageError` when missing or when the text does not parse.
    public func value<T: ArgumentValue>(_ name: String, as type: T.Type = T.self) throws(UsageError) -> T {
        try value(name) { (text: String) throws(UsageError) -> T in try Self.convert(text, to: T.self) }
    }

    /// The value of `name` converted to `T`, or nil when absent and without default.
    /// - Throws: `UsageError` when the text does not parse.
    public func optionalValue<T: ArgumentValue>(_ name: String, as type: T.Type = T.self) throws(UsageError) -> T? {
        try optionalValue(name) { (text: String) throws(UsageError) -> T in try Self.convert(text, to: T.self) }
    }

    /// Every value of a repeatable `name` converted to `T`, in order.
    /// - Throws: `UsageError` naming the first value that does not parse.
    public func values<T: ArgumentValue>(_ name: String, as type: T.Type = T.self) throws(UsageError) -> [T] {
        try values(name) { (text: String) throws(UsageError) -> T in try Self.convert(text, to: T.self) }
    }

    // MARK: Custom parsing

    /// The value of `name` converted by `parse` (e.g. `NAME=1,299,299,3` into a shape).
    /// - Throws: `UsageError` when missing, or wrapping whatever `parse` throws
    ///   as `invalid value '<text>' for '--name': <reason>`.
    public func value<T>(_ name: String, parse: (String) throws -> T) throws(UsageError) -> T {
        let spec = declared(name)
        guard let text = optionalString(name) else {
            throw UsageError(spec.kind == .positional
                ? "missing required argument '\(spec.displayName)'"
                : "missing value for option '\(spec.displayName)'")
        }
        return try Self.apply(parse, to: text, for: spec)
    }

    /// Like `value(_:parse:)`, but nil when absent and without default.
    public func optionalValue<T>(_ name: String, parse: (String) throws -> T) throws(UsageError) -> T? {
        guard let text = optionalString(name) else { return nil }
        return try Self.apply(parse, to: text, for: declared(name))
    }

    /// Every value of `name` converted by `parse`, in order.
    public func values<T>(_ name: String, parse: (String) throws -> T) throws(UsageError) -> [T] {
        let spec = declared(name)
        var result: [T] = []
        for text in strings(name) {
            result.append(try Self.apply(parse, to: text, for: spec))
        }
        return result
    }

    private static func convert<T: ArgumentValue>(_ text: String, to type: T.Type) throws(UsageError) -> T {
        guard let value = T(argument: text) else { throw UsageError("expected \(T.expectedValue)") }
        return value
    }

    private static func apply<T>(_ parse: (String) throws -> T, to text: String, for spec: OptionSpec) throws(UsageError) -> T {
        do {
            return try parse(text)
        } catch {
            throw UsageError.invalidValue(text, for: spec, reason: errorLine(for: error))
        }
    }
}

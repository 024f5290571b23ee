import Naming

/// Turns the tokens of one command (after subcommand names are stripped) into
/// `ParsedArguments`, according to that command's `Options`.
///
/// Accepted syntax:
/// - `--name value`, `--name=value`, `-s value`, `-svalue`, `-s=value`
/// - flags `--flag`, `-f`, and bundled short flags `-abc`
/// - repeatable options collect every occurrence in order; a non-repeatable
///   option given twice is a usage error (which of two outputs was meant?)
/// - `--` ends options: every later token is positional
/// - a token that starts with `-` followed by a digit or `.` is a value
///   (a negative number), both as an option value and as a positional
public struct ArgumentParser: Sendable {
    /// The declarations to parse against.
    public let options: Options

    /// Creates a parser for one command's declarations.
    public init(options: Options) {
        self.options = options
    }

    /// Parses `tokens`.
    /// - Parameter commandPath: the command's name path, e.g. `["convert", "caffe"]`, kept in the result.
    /// - Throws: `UsageError` naming the offending option or argument.
    public func parse(_ tokens: [String], commandPath: [String] = []) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments(commandPath: commandPath, options: options)
        var positionals: [String] = []
        var index = 0
        var optionsEnded = false

        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if optionsEnded || !Self.looksLikeOption(token) {
                positionals.append(token)
            } else if token == "--" {
                optionsEnded = true
            } else if token.hasPrefix("--") {
                let body = token.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
                guard let spec = options.named(name) else { throw unknownOption(name) }
                try consume(spec, inline: inline, tokens: tokens, index: &index, into: &result)
            } else {
                try parseShortCluster(token, tokens: tokens, index: &index, into: &result)
            }
        }
        try assignPositionals(positionals, into: &result)
        if let missing = options.named.first(where: { $0.isRequired && !result.isPresent($0.name) }) {
            throw UsageError("missing required option '\(missing.displayName)'")
        }
        return result
    }

    /// `--name` is not an option: an earlier version's name for one
    /// (`formerSpellings`) says the new name; otherwise suggest the one
    /// meant. Another tool's
    /// spelling (coremltools' `--image_input_names`, `--class_labels`)
    /// or an old one (`otherSpellings`), underscores for dashes, a plural
    /// or `-names` suffix, or else the closest name by edit distance.
    func unknownOption(_ name: String) -> UsageError {
        let token = "--\(name)"
        if let renamed = options.named.first(where: { $0.formerSpellings.contains(name) }) {
            return UsageError("'\(token)' is now '--\(renamed.name)'")
        }
        let normalized = name.lowercased().replacingOccurrences(of: "_", with: "-")
        let stems = [normalized] + ["-names", "-name", "s"].compactMap { suffix in
            normalized.hasSuffix(suffix) ? String(normalized.dropLast(suffix.count)) : nil
        }
        let named = options.named
        let match = named.first { spec in spec.otherSpellings.contains { $0.replacingOccurrences(of: "_", with: "-") == normalized } }
            ?? stems.lazy.compactMap { stem in named.first { $0.name == stem } }.first
        if let match { return UsageError("unknown option '\(token)'; did you mean '--\(match.name)'?") }
        return UsageError.unknownOption(token, candidates: named.map { "--\($0.name)" } + ["--help", "--version"])
    }

    /// `-o value`, `-ovalue`, `-o=value`, or bundled flags `-abc`.
    private func parseShortCluster(
        _ token: String, tokens: [String], index: inout Int, into result: inout ParsedArguments
    ) throws(UsageError) {
        var rest = Substring(token.dropFirst())
        while let letter = rest.first {
            rest = rest.dropFirst()
            guard let spec = options.named(short: letter) else {
                throw UsageError.unknownOption("-\(letter)", candidates: [])
            }
            if spec.kind == .flag {
                result.record(spec, value: nil)
                continue
            }
            let inline = rest.isEmpty ? nil : String(rest.hasPrefix("=") ? rest.dropFirst() : rest)
            try consume(spec, inline: inline, tokens: tokens, index: &index, into: &result)
            return
        }
    }

    /// Records one occurrence of a named option or flag, taking its value
    /// from `inline` (`--name=value`) or the next token.
    private func consume(
        _ spec: OptionSpec, inline: String?, tokens: [String], index: inout Int, into result: inout ParsedArguments
    ) throws(UsageError) {
        if spec.kind == .flag {
            let next = inline ?? (index < tokens.count ? tokens[index] : nil)
            if let former = spec.formerValues, let next, former.values.contains(next) {
                throw UsageError("'\(spec.displayName) \(next)' is now '\(spec.displayName) --\(former.option) \(next)'")
            }
            if inline != nil { throw UsageError("flag '\(spec.displayName)' does not take a value") }
            result.record(spec, value: nil)
            return
        }
        let value: String
        if let inline {
            value = inline
        } else {
            guard index < tokens.count, !Self.looksLikeOption(tokens[index]) else {
                throw UsageError("missing value for option '\(spec.displayName)'")
            }
            value = tokens[index]
            index += 1
        }
        if !spec.isRepeatable, let earlier = result.givenValues(spec.name).first {
            throw UsageError("'\(spec.displayName)' given twice ('\(earlier)', then '\(value)'); it takes one value")
        }
        if spec.isText && PathBytes.containsRawBytes(value) {
            throw UsageError("'\(spec.displayName)' takes UTF-8 text, and '\(value)' has bytes that are not UTF-8 (shown as \\xNN)")
        }
        result.record(spec, value: value)
    }

    /// Hands positional tokens to the positional declarations in order.
    private func assignPositionals(_ values: [String], into result: inout ParsedArguments) throws(UsageError) {
        var remaining = values[...]
        for spec in options.positionals {
            if spec.isRepeatable {
                if remaining.isEmpty && spec.isRequired {
                    throw UsageError("missing required argument '\(spec.displayName)'")
                }
                for value in remaining { result.record(spec, value: value) }
                remaining = []
            } else if let value = remaining.popFirst() {
                result.record(spec, value: value)
            } else if spec.isRequired {
                throw UsageError("missing required argument '\(spec.displayName)'")
            }
        }
        if let extra = remaining.first {
            throw UsageError("unexpected argument '\(extra)'")
        }
    }

    /// Whether `token` is an option/flag (or `--`) rather than a value.
    /// `-` alone and negative numbers such as `-123.68` or `-.5` are values.
    static func looksLikeOption(_ token: String) -> Bool {
        guard token.hasPrefix("-"), token.count > 1 else { return false }
        if token.hasPrefix("--") { return true }
        let second = token[token.index(after: token.startIndex)]
        return !(second.isASCII && (second.isNumber || second == "."))
    }
}

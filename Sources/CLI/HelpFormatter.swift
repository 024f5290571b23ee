/// Generates the usage line and `--help` text of a command from its declarations.
public enum HelpFormatter {
    /// Total width help text is wrapped to.
    public static let width = 80
    /// Widest left column (labels such as `-o, --output <path>`) before help moves to its own line.
    static let maxLabelWidth = 30

    /// The usage line, e.g.
    /// `usage: convert caffe <prototxt> <weights> [--image-input <name> ...] -o <path>`,
    /// wrapped with a hanging indent when longer than `width`.
    public static func usage(for command: any Command.Type, path: [String]) -> String {
        var parts = command.options.positionals.map(usagePart)
        if !command.configuration.subcommands.isEmpty { parts.append("<subcommand>") }
        parts += command.options.named.map(usagePart)
        let head = "usage: " + path.joined(separator: " ")
        var lines = [head]
        for part in parts {
            if lines[lines.count - 1].count + 1 + part.count > width, lines[lines.count - 1].count > head.count {
                lines.append(String(repeating: " ", count: head.count))
            }
            lines[lines.count - 1] += " " + part
        }
        return lines.joined(separator: "\n")
    }

    /// The line a usage error ends with, in place of the whole usage block
    /// (which is many lines for a command with many options):
    /// `see 'coreml-convert caffe --help' for its usage`.
    public static func hint(path: [String]) -> String {
        "see '\(path.joined(separator: " ")) --help' for its usage"
    }

    /// The full help text: usage, overview, then ARGUMENTS, OPTIONS and SUBCOMMANDS sections.
    public static func help(for command: any Command.Type, path: [String]) -> String {
        let configuration = command.configuration
        var sections = [([usage(for: command, path: path)]
                         + configuration.otherUsages.map { "       " + path.joined(separator: " ") + " " + $0 })
            .joined(separator: "\n")]
        let overview = [configuration.abstract, configuration.discussion]
            .filter { !$0.isEmpty }
            .map { wrap($0, width: width).joined(separator: "\n") }
        sections += overview

        let arguments = command.options.positionals.map { ($0.displayName, helpText(for: $0)) }
        var options = command.options.named.map { (label(for: $0), helpText(for: $0)) }
        options.append(("--version", "Show the version."))
        options.append(("-h, --help", "Show help information."))
        let subcommands = configuration.subcommands.map { ($0.configuration.name, $0.configuration.abstract) }
        let column = labelColumn(for: arguments + options + subcommands)

        if !arguments.isEmpty { sections.append(section("ARGUMENTS", arguments, column: column)) }
        sections.append(section("OPTIONS", options, column: column))
        if !subcommands.isEmpty {
            let hint = "  See '\(path.joined(separator: " ")) help <subcommand>' for detailed help."
            sections.append(section("SUBCOMMANDS", subcommands, column: column) + "\n\n" + hint)
        }
        if !configuration.examples.isEmpty { sections.append(examples(configuration.examples)) }
        return sections.joined(separator: "\n\n") + "\n"
    }

    /// The EXAMPLES section: `  # task`, then the command wrapped at
    /// `width` with ` \` continuations indented under it, never between
    /// an option and its value.
    static func examples(_ examples: [Example]) -> String {
        var lines = ["EXAMPLES:"]
        for example in examples {
            lines.append("  # " + example.task)
            // The words, each option with the value after it.
            var units: [String] = []
            for word in example.command.split(separator: " ").map(String.init) {
                if let last = units.last, ArgumentParser.looksLikeOption(last), !last.contains(" "), !last.contains("="),
                   !ArgumentParser.looksLikeOption(word) {
                    units[units.count - 1] += " " + word
                } else {
                    units.append(word)
                }
            }
            var line = "  "
            for unit in units {
                if line.count > 2, line.count + 1 + unit.count + 2 > width {
                    lines.append(line + " \\")
                    line = "      " + unit
                } else {
                    line += (line.count > 2 ? " " : "") + unit
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    // MARK: Pieces

    static func usagePart(_ spec: OptionSpec) -> String {
        let more = spec.isRepeatable ? " ..." : ""
        let text: String
        switch spec.kind {
        case .positional:
            text = "<\(spec.valueName)>" + more
        case .flag:
            return "[" + (spec.short.map { "-\($0)" } ?? "--\(spec.name)") + "]"
        case .option:
            text = (spec.short.map { "-\($0)" } ?? "--\(spec.name)") + " <\(spec.valueName)>" + more
        }
        return spec.isRequired ? text : "[\(text)]"
    }

    static func label(for spec: OptionSpec) -> String {
        var label = spec.short.map { "-\($0), --\(spec.name)" } ?? "--\(spec.name)"
        if spec.kind == .option { label += " <\(spec.valueName)>" }
        return label
    }

    static func helpText(for spec: OptionSpec) -> String {
        var notes: [String] = []
        if spec.isRepeatable { notes.append("(repeatable)") }
        if let value = spec.defaultValue { notes.append("(default: \(value))") }
        return ([spec.help] + notes).filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// Where help text starts: after the widest label that fits `maxLabelWidth`.
    static func labelColumn(for rows: [(label: String, help: String)]) -> Int {
        2 + (rows.map(\.label.count).filter { $0 <= maxLabelWidth }.max() ?? 0) + 2
    }

    /// A titled block of two aligned columns; help starts at `column`.
    static func section(_ title: String, _ rows: [(label: String, help: String)], column: Int? = nil) -> String {
        let column = column ?? labelColumn(for: rows)
        var lines = ["\(title):"]
        for row in rows {
            let helpLines = wrap(row.help, width: max(width - column, 20))
            let label = "  " + row.label
            if label.count + 2 > column {
                lines.append(label)
                lines += helpLines.map { String(repeating: " ", count: column) + $0 }
            } else {
                let first = label + String(repeating: " ", count: column - label.count) + (helpLines.first ?? "")
                lines.append(first.trimmingTrailingSpaces())
                lines += helpLines.dropFirst().map { String(repeating: " ", count: column) + $0 }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Greedy word wrap; words longer than `width` stay whole.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                if !line.isEmpty, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = ""
                }
                line += line.isEmpty ? String(word) : " " + word
            }
            lines.append(line)
        }
        return lines
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}

import Foundation
import Naming
import Threads

/// What a command line asks for, once subcommands are resolved and arguments parsed.
public enum Invocation: Sendable {
    /// Run `command` with the parsed arguments.
    case run(any Command.Type, ParsedArguments)
    /// Print this help text (from `--help`, `-h` or `help <subcommand>`).
    case help(String)
    /// Print the program's name and the toolkit version.
    case version
}

/// A usage error together with the hint line of the command it concerns.
public struct CommandLineError: Error, Equatable, Sendable {
    /// The underlying one-line message.
    public var error: UsageError
    /// The hint line of the command being parsed (`HelpFormatter.hint`):
    /// one line, not the whole usage block, after each mistake.
    public var usage: String
}

/// How a program invocation ended: everything needed to write its output
/// and choose its exit status, with no side effects.
public enum Outcome: Equatable, Sendable {
    /// The command ran successfully.
    case success
    /// Help or version text to print on stdout; exit 0.
    case output(String)
    /// Malformed command line: message and hint line for stderr; exit 64.
    case usageError(message: String, usage: String)
    /// The command threw: one-line message for stderr; exit 1.
    case failure(message: String)
    /// The command failed and has printed why itself; exit 1.
    case reportedFailure

    /// The process exit status for this outcome.
    public var exitCode: ExitCode {
        switch self {
        case .success, .output: .success
        case .usageError: .usage
        case .failure, .reportedFailure: .failure
        }
    }

    /// Text for stdout (help and version).
    public var standardOutput: String {
        if case .output(let text) = self { return text.hasSuffix("\n") ? text : text + "\n" }
        return ""
    }

    /// Text for stderr: `error: <message>` and, for usage errors, the hint line.
    public var standardError: String {
        switch self {
        case .success, .output, .reportedFailure: ""
        case .usageError(let message, let usage): "error: \(TextEscaping.line(message))\n\(usage)\n"
        case .failure(let message): "error: \(TextEscaping.line(message))\n"
        }
    }

    /// Writes `standardOutput` and `standardError` to the process streams
    /// and returns the exit status: `exitCode`, or 1 with one error line
    /// when stdout could not take what was printed (`StandardStreams.finish`).
    public func write() -> Int32 {
        StandardStreams.finish(output: standardOutput.isEmpty ? "" : terminated(standardOutput),
                               errors: standardError.isEmpty ? "" : terminated(standardError), status: exitCode.rawValue)
    }

    private func terminated(_ text: String) -> String {
        text.hasSuffix("\n") ? text : text + "\n"
    }
}

/// Resolves subcommands, parses arguments and runs commands.
public enum CommandRunner {
    /// Parses `arguments` (without the program name) for `root` and its subcommands.
    ///
    /// `--help`/`-h` anywhere before `--` wins over parse errors, as does `--version`.
    /// - Throws: `CommandLineError` for unknown subcommands and malformed arguments.
    public static func parse(_ root: any Command.Type, arguments: [String]) throws(CommandLineError) -> Invocation {
        var command = root
        var path = [root.configuration.name]
        var rest = arguments[...]

        while let first = rest.first, let sub = subcommand(named: first, of: command) {
            command = sub
            path.append(first)
            rest = rest.dropFirst()
        }

        func fail(_ error: UsageError) -> CommandLineError {
            CommandLineError(error: error, usage: HelpFormatter.hint(path: path))
        }

        let subcommands = command.configuration.subcommands
        if !subcommands.isEmpty, rest.first == "help" {
            // `convert help caffe` is `convert caffe --help`.
            for name in rest.dropFirst() {
                guard let sub = subcommand(named: name, of: command) else {
                    throw fail(unknownSubcommand(name, of: command))
                }
                command = sub
                path.append(name)
            }
            return .help(HelpFormatter.help(for: command, path: path))
        }

        for token in rest.prefix(while: { $0 != "--" }) {
            if token == "--help" || token == "-h" { return .help(HelpFormatter.help(for: command, path: path)) }
            if token == "--version" { return .version }
        }

        if !subcommands.isEmpty, command.options.positionals.isEmpty,
           let first = rest.first, !ArgumentParser.looksLikeOption(first) {
            throw fail(unknownSubcommand(first, of: command))
        }

        do {
            return .run(command, try ArgumentParser(options: command.options).parse(Array(rest), commandPath: path))
        } catch {
            throw fail(error)
        }
    }

    /// Parses and runs; never exits and never writes (but for the progress
    /// line, with `showsProgress`). Use `Command.main` to do both.
    /// - Parameter showsProgress: draw long work's progress on stderr when it
    ///   is a terminal and neither --quiet nor --json is given (`ProgressLine`).
    public static func execute(_ root: any Command.Type, arguments: [String], showsProgress: Bool = false) -> Outcome {
        let invocation: Invocation
        do {
            invocation = try parse(root, arguments: arguments)
        } catch {
            return .usageError(message: error.error.message, usage: error.usage)
        }
        switch invocation {
        case .help(let text):
            return .output(text)
        case .version:
            return .output(ToolkitVersion.text(for: root))
        case .run(let command, let arguments):
            let line = showsProgress ? ProgressLine.forStandardError(quiet: arguments.isPresent("quiet") || arguments.isPresent("json")) : nil
            WorkProgress.listener = line
            // Cleared before the outcome is written: an error line starts at the left edge.
            defer {
                line?.finished()
                WorkProgress.listener = nil
            }
            do {
                try command.run(arguments)
                return .success
            } catch let error as UsageError {
                return .usageError(message: error.message, usage: HelpFormatter.hint(path: arguments.commandPath))
            } catch is ReportedFailure {
                return .reportedFailure
            } catch {
                return .failure(message: errorLine(for: error))
            }
        }
    }

    private static func subcommand(named name: String, of command: any Command.Type) -> (any Command.Type)? {
        command.configuration.subcommands.first { $0.configuration.name == name }
    }

    private static func unknownSubcommand(_ name: String, of command: any Command.Type) -> UsageError {
        let names = command.configuration.subcommands.map { $0.configuration.name }
        if let match = closestMatch(to: name, in: names) {
            return UsageError("unknown subcommand '\(name)'; did you mean '\(match)'?")
        }
        return UsageError("unknown subcommand '\(name)'; expected one of: \(names.joined(separator: ", "))")
    }
}

import Naming

/// Version of the conversion toolkit, printed by `--version` of every program.
public enum ToolkitVersion {
    /// Semantic version string.
    public static let string = "0.2.0"

    /// What `--version` prints: `coreml-convert 0.2.0 (ModelToolkit)` and
    /// the program's own lines (the Core ML versions it writes or reads).
    public static func text(for command: any Command.Type) -> String {
        let details = command.configuration.versionDetails
        return "\(command.configuration.name) \(string) (ModelToolkit)" + (details.isEmpty ? "" : "\n" + details)
    }
}

/// Name, help text and subcommands of a command.
public struct CommandConfiguration: Sendable {
    /// The word that invokes the command (`convert`, `caffe`).
    public var name: String
    /// One-line summary, shown in help and in the parent's subcommand list.
    public var abstract: String
    /// Optional longer text shown in help after the abstract.
    public var discussion: String
    /// Child commands, dispatched on the first argument (`convert caffe ...`).
    public var subcommands: [any Command.Type]
    /// Lines `--version` prints after the program name and version (a
    /// program's root command sets them).
    public var versionDetails: String
    /// Further forms for the usage block, after the command's name
    /// (`<model file> [<weights file>] [<options>]`).
    public var otherUsages: [String]
    /// The EXAMPLES section that ends `--help`: one short, real command
    /// per common task.
    public var examples: [Example]

    /// Creates a configuration.
    public init(name: String, abstract: String, discussion: String = "", subcommands: [any Command.Type] = [],
                versionDetails: String = "", otherUsages: [String] = [], examples: [Example] = []) {
        self.otherUsages = otherUsages
        self.examples = examples
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.subcommands = subcommands
        self.versionDetails = versionDetails
    }
}

/// One entry of a command's EXAMPLES: what it does, one line ("An image
/// classifier with its labels"), and the full command line as a user types
/// it, program name first (words separated by single spaces, none quoted).
/// Help prints `# task` and then the command, wrapped with `\`
/// continuations so that it can be pasted into a shell.
public typealias Example = (task: String, command: String)

/// A command-line command: a static declaration of its inputs plus a `run` function.
///
/// ```swift
/// struct CaffeCommand: Command {
///     static let configuration = CommandConfiguration(name: "caffe", abstract: "Convert a Caffe model to Core ML.")
///     static let options = Options {
///         Positional("prototxt", help: "Deploy definition (.prototxt).")
///         Option("image-scale", valueName: "scale", default: "1.0", help: "Multiply pixels by this.")
///         Option("output", short: "o", valueName: "path", required: true, help: "Where to write the model.")
///     }
///     static func run(_ args: ParsedArguments) throws {
///         let scale = try args.float("image-scale")
///         ...
///     }
/// }
/// // main.swift of the executable:
/// exit(ConvertCommand.main())
/// ```
///
/// A command with subcommands may omit `options` and `run`; run without a
/// subcommand it then reports a usage error listing the subcommands.
public protocol Command: SendableMetatype {
    /// Name, abstract and subcommands.
    static var configuration: CommandConfiguration { get }
    /// Declared positionals, options and flags. Defaults to none.
    static var options: Options { get }
    /// Does the work. Throw `UsageError` for invocation mistakes (exit 64);
    /// any other error is reported as one `error:` line with exit 1.
    static func run(_ arguments: ParsedArguments) throws
}

extension Command {
    public static var options: Options { .none }

    public static func run(_ arguments: ParsedArguments) throws {
        let names = configuration.subcommands.map { $0.configuration.name }
        guard !names.isEmpty else { return }
        throw UsageError("missing subcommand; expected one of: \(names.joined(separator: ", "))")
    }

    /// Parses `arguments`, runs the selected command, writes help, version or
    /// error text, and returns the process exit status for `exit(_:)`:
    /// 0 on success, 1 when the command failed or stdout could not be
    /// written, 64 for usage errors.
    ///
    /// - Parameter arguments: the command line without the program name.
    public static func main(arguments: [String] = ProgramArguments.current()) -> Int32 {
        CommandRunner.execute(self, arguments: arguments, showsProgress: true).write()
    }
}

/// The program's arguments as the bytes it was given.
public enum ProgramArguments {
    /// The command line without the program name, each argument decoded
    /// losslessly (`PathBytes`): `CommandLine.arguments` replaces a byte
    /// that is not UTF-8 with U+FFFD, which would make `-o $'out\xff'`
    /// write another file.
    public static func current() -> [String] {
        (1..<Int(CommandLine.argc)).map { index in
            CommandLine.unsafeArgv[index].map { PathBytes.string(cString: $0) } ?? ""
        }
    }
}

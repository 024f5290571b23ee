import Foundation
import Naming

/// A mistake in how the program was invoked: unknown option, missing or
/// malformed value, missing required argument, extra argument.
///
/// Reported as `error: <message>` followed by the usage line, exit code 64.
/// Commands may throw it themselves (e.g. for mutually exclusive options).
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// One-line description, without the `error:` prefix.
    public var message: String

    /// Creates a usage error with a one-line message.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }

    /// Refuses a name given twice to a repeatable option (`--input x=a.npy
    /// --input x=b.npy`): one of the two values would be dropped silently.
    /// `key` maps a name to what identifies it (TensorFlow's `x` and `x:0`
    /// are one tensor, and one feature).
    /// - Throws: `UsageError` naming the option and the name.
    public static func checkDistinct(_ names: [String], option: String, key: (String) -> String = { $0 }) throws(UsageError) {
        var seen: [String: String] = [:]
        for name in names {
            if let first = seen.updateValue(name, forKey: key(name)) {
                let same = first == name ? "'\(name)'" : "'\(first)' and '\(name)' (one input)"
                throw UsageError("--\(option) names \(same) twice: give each input once")
            }
        }
    }

    static func unknownOption(_ token: String, candidates: [String]) -> UsageError {
        guard let match = closestMatch(to: token, in: candidates) else {
            return UsageError("unknown option '\(token)'")
        }
        return UsageError("unknown option '\(token)'; did you mean '\(match)'?")
    }

    static func invalidValue(_ value: String, for spec: OptionSpec, reason: String) -> UsageError {
        UsageError("invalid value '\(value)' for '\(spec.displayName)': \(reason)")
    }
}

/// A command that failed and has already said why on stderr (one line per
/// failed item, say, after finishing the rest): exit status 1, nothing more
/// printed.
public struct ReportedFailure: Error, Equatable, Sendable {
    public init() {}
}

/// Process exit status of a command-line program.
public enum ExitCode: Int32, Sendable {
    /// The command ran (or printed help/version) successfully.
    case success = 0
    /// The command was run and threw an error.
    case failure = 1
    /// The command line was malformed (`EX_USAGE` from sysexits.h).
    case usage = 64

    /// Maps the error a command finished with to its exit status:
    /// `nil` is success, a `UsageError` is 64, anything else is 1.
    public init(error: (any Error)?) {
        switch error {
        case nil: self = .success
        case is UsageError: self = .usage
        default: self = .failure
        }
    }
}

/// Turns any error into the single line printed after `error: `.
///
/// Uses an `OptionMentioningError`'s message with options named by their
/// flags, else `LocalizedError.errorDescription` when present, otherwise
/// `String(describing:)` (which honours `CustomStringConvertible`), except that
/// Foundation errors become `<path>: <reason>`; newlines
/// are folded into spaces, a leading `error:` is dropped so it is not doubled,
/// and other control characters are escaped (`TextEscaping`).
public func errorLine(for error: any Error) -> String {
    var text: String
    if let mentioning = error as? any OptionMentioningError {
        // The library's message, each option it mentions named by this program's flag.
        text = mentioning.message.namingOptions(\.flag)
    } else if let localized = error as? any LocalizedError, let description = localized.errorDescription {
        text = description
    } else {
        text = String(describing: error)
        if text.hasPrefix("Error Domain=") { text = foundationErrorText(error as NSError) }
    }
    text = text.split(whereSeparator: \.isNewline)
        .map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
        .joined(separator: " ")
    while text.lowercased().hasPrefix("error:") {
        text = String(text.dropFirst("error:".count)).trimmingCharacters(in: .whitespaces)
    }
    // Names from model files may hold terminal control sequences.
    return text.isEmpty ? "unknown error" : TextEscaping.line(text)
}

/// Readable text for a Foundation error (`CocoaError`, `POSIXError`, `NSError`),
/// whose default description is `Error Domain=... Code=... UserInfo={...}`:
/// `<path>: <reason>`, preferring the underlying POSIX reason when there is one.
private func foundationErrorText(_ error: NSError) -> String {
    func reason(_ error: NSError) -> String {
        let text = error.userInfo[NSLocalizedDescriptionKey] as? String ?? error.localizedDescription
        let boilerplate = "The operation could not be completed. "
        return text.hasPrefix(boilerplate) ? String(text.dropFirst(boilerplate.count)) : text
    }
    let underlying = (error.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
    let text = reason(underlying ?? error)
    guard let path = error.userInfo[NSFilePathErrorKey] as? String else { return text }
    return "\(path): \(text)"
}

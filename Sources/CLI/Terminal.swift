import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Facts about the terminal, for deciding on colored output and progress bars.
public enum Terminal {
    /// An output stream identified by its file descriptor.
    public struct Stream: Sendable, Equatable {
        /// The underlying file descriptor.
        public var fileDescriptor: Int32
        /// Wraps an arbitrary file descriptor.
        public init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }
        /// Standard output (fd 1).
        public static let stdout = Stream(fileDescriptor: 1)
        /// Standard error (fd 2).
        public static let stderr = Stream(fileDescriptor: 2)
    }

    /// Whether `stream` is connected to a terminal (`isatty`).
    public static func isInteractive(_ stream: Stream) -> Bool {
        isatty(stream.fileDescriptor) == 1
    }

    /// Whether to emit ANSI colors on `stream`: only when it is a terminal,
    /// `NO_COLOR` is unset or empty (https://no-color.org) and `TERM` is not `dumb`.
    public static func useColor(
        for stream: Stream, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        useColor(isInteractive: isInteractive(stream), environment: environment)
    }

    /// The decision behind `useColor(for:environment:)`, without touching the process.
    public static func useColor(isInteractive: Bool, environment: [String: String]) -> Bool {
        guard isInteractive else { return false }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }
}

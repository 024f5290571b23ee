import FileIO
import Foundation
import ModelFormat

/// Reads a class-label file: one label per line, in class order, UTF-8.
/// Trailing whitespace and a final empty line are ignored; blank lines in
/// between are errors (they would shift every later label).
public enum LabelFile {
    /// The largest label file read (64 MB: millions of labels).
    public static let maximumBytes = 64 << 20

    /// - Parameter expectedCount: when known, the number of classes the model gives.
    /// - Throws: `LabelFileError` naming the file and the line.
    public static func read(path: String, expectedCount: Int? = nil) throws -> [String] {
        let data: [UInt8]
        do {
            data = try ReadableFile.bytes(path, limit: maximumBytes)
        } catch {
            throw LabelFileError(path: path, message: error.message)
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw LabelFileError(path: path, message: "not UTF-8 text")
        }
        // "\r\n" is one Character in Swift: split on both line ends.
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        while lines.last == "" { lines.removeLast() }
        guard !lines.isEmpty else { throw LabelFileError(path: path, message: "no labels (the file is empty)") }
        if let blank = lines.firstIndex(of: "") {
            throw LabelFileError(path: path, message: "line \(blank + 1) is empty")
        }
        if let expectedCount, lines.count != expectedCount {
            throw LabelFileError(path: path, message: "\(lines.count) labels, but the model gives \(expectedCount) class probabilities")
        }
        return lines
    }
}

public struct LabelFileError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var message: String

    public var description: String { "\(path): \(message)" }
}

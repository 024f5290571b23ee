import FileIO
import Foundation
import ModelFormat

/// Reads a class-label file: one label per line, in class order, UTF-8
/// (a leading byte-order mark is dropped; a line that is not UTF-8 is an
/// error naming it). Trailing whitespace and a final empty line are ignored; blank lines in
/// between are errors (they would shift every later label), and so is a
/// label on two lines (named with both).
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
        return try parse(data[...], path: path, expectedCount: expectedCount)
    }

    /// The labels in `data` (a file read already, or one inside another:
    /// a TFLite model's zipped labels), `path` naming it in errors.
    public static func parse(_ data: ArraySlice<UInt8>, path: String, expectedCount: Int? = nil) throws -> [String] {
        // A UTF-8 byte-order mark (Windows editors write one) is not part of the first label.
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        // Line by line, so that a line that is not UTF-8 is named (split on "\n"; "\r\n" leaves a "\r" trimmed below).
        var lines: [String] = []
        for (index, bytes) in body.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            guard let line = String(validating: bytes, as: UTF8.self) else {
                throw LabelFileError(path: path, line: index + 1, message: "not UTF-8 text (labels are read as UTF-8)")
            }
            lines.append(line.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        while lines.last == "" { lines.removeLast() }
        guard !lines.isEmpty else { throw LabelFileError(path: path, message: "no labels (the file is empty)") }
        if let blank = lines.firstIndex(of: "") {
            throw LabelFileError(path: path, message: "line \(blank + 1) is empty")
        }
        // Named here, by line, rather than later by the model: a classifier gives one probability a label.
        var seen: [String: Int] = [:]
        for (index, line) in lines.enumerated() {
            if let first = seen.updateValue(index, forKey: line) {
                throw LabelFileError(path: path, line: index + 1,
                                     message: "label '\(line.count <= 80 ? line : line.prefix(77) + "...")' is also on line \(first + 1): "
                                     + "each class needs a label of its own")
            }
        }
        if let expectedCount, lines.count != expectedCount {
            throw LabelFileError(path: path, message: "\(lines.count) labels, but the model gives \(expectedCount) class probabilities")
        }
        return lines
    }
}

public struct LabelFileError: Error, CustomStringConvertible, Sendable {
    public var path: String
    /// The line (from 1) the message is about, when it is about one.
    public var line: Int?
    public var message: String

    public init(path: String, line: Int? = nil, message: String) {
        (self.path, self.line, self.message) = (path, line, message)
    }

    public var description: String { "\(path):\(line.map { "\($0):" } ?? "") \(message)" }
}

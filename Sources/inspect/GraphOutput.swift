import CLI
import FileIO
import Foundation
import Inspection
import ModelFiles

/// `--graph dot|svg|png`: the picture of one model, as DOT text or laid out
/// by Graphviz's `dot`, and where it goes.
enum GraphOutput {
    static let formats = ["dot", "svg", "png"]

    /// The picture's bytes: the DOT text, or what `dot -Tsvg` / `dot -Tpng` makes of it.
    static func render(_ inspected: InspectedModel, format: String, timeout: Double) throws -> [UInt8] {
        let dot = try GraphDot.render(inspected)
        let layers = switch inspected.content {
        case .network(let model): model.nodes.count
        case .weightsOnly(let file): file.layers.count
        }
        return format == "dot" ? Array(dot.utf8) : try layOut(dot, format: format, layers: layers, timeout: timeout)
    }

    /// Where the picture of `request` goes without --graph-output: next to
    /// the model, its name with the format's extension for its own
    /// (`Samples/AgeNet.mlmodel` -> `Samples/AgeNet.svg`).
    static func defaultPath(for request: InspectRequest, format: String) -> String {
        let path = request.path
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        var stem = path[..<path.endIndex]
        if let dot = path[slash...].lastIndex(of: "."), dot > slash { stem = path[..<dot] }
        return stem + "." + format
    }

    /// Lays DOT out through Graphviz's `dot -Tsvg` or `-Tpng` (text in,
    /// picture out: no temporary files), killed after `timeout` seconds.
    static func layOut(_ dot: String, format: String, layers: Int, timeout: Double) throws -> [UInt8] {
        guard let program = executable(named: "dot") else {
            throw InspectError("--graph \(format) needs Graphviz's dot program, which is not on PATH "
                               + "(Debian: apt-get install graphviz); --graph dot writes the DOT text instead")
        }
        let result: ChildProcess.Result
        do {
            result = try ChildProcess.run(program, arguments: ["-T\(format)"], input: Array(dot.utf8), timeout: timeout)
        } catch .timedOut {
            throw InspectError("Graphviz's dot took over \(seconds(timeout)) s to lay out \(layers) layers and was stopped; "
                               + "allow it longer with --graph-timeout, or write the DOT text with --graph dot and lay it out "
                               + "yourself (sfdp -T\(format) is faster on large graphs)")
        } catch .tooMuchOutput {
            throw InspectError("Graphviz's dot (\(program)) wrote more than 1 GB of \(format.uppercased()) and was stopped")
        } catch .system(let code) {
            throw InspectError("cannot run Graphviz's dot (\(program)): \(String(cString: strerror(code)))")
        }
        guard result.status == 0 else {
            let message = String(decoding: result.errors, as: UTF8.self)
            let detail = message.split(separator: "\n").first.map { ": \($0)" } ?? ""
            throw InspectError("Graphviz's dot (\(program)) failed with status \(result.status)\(detail)")
        }
        return result.output
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    static func executable(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            if FileSystem.isExecutableFile(candidate) { return candidate }
        }
        return nil
    }

    /// Writes the picture atomically; never over one of `inputs`, the files inspected.
    static func write(_ bytes: [UInt8], to path: String, inputs: [String]) throws {
        try AtomicFile.write(bytes, to: path, inputs: inputs)
    }

    /// The picture on stdout (`--graph-output -`), all of it or an error.
    static func print(_ bytes: [UInt8]) throws {
        do {
            try FileHandle.standardOutput.write(contentsOf: Data(bytes))
        } catch {
            throw InspectError("cannot write the graph to stdout: \(error.localizedDescription)")
        }
    }
}

/// A failure of `inspect` itself (Graphviz): one line.
struct InspectError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

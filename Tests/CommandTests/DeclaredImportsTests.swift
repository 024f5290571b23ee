import Foundation
import TestSupport
import XCTest

/// Every module a target's Swift files import is among the dependencies
/// Package.swift declares for that target: a module that arrives only
/// through another target's dependencies (transitively) builds today and
/// breaks when that other target drops it.
final class DeclaredImportsTests: XCTestCase {
    struct Target {
        var name: String
        var dependencies: Set<String>
        var directory: URL
    }

    /// The targets of Package.swift: name, declared dependencies, folder.
    static func packageTargets() throws -> [Target] {
        let manifest = try String(contentsOf: repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declaration = #/\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"(\w+)"((?:[^()]|\([^()]*\))*)\)/#
        return manifest.matches(of: declaration).map { match in
            let kind = String(match.output.1), name = String(match.output.2), rest = String(match.output.3)
            var dependencies = Set<String>()
            if let list = rest.firstMatch(of: #/dependencies:\s*\[([^\]]*)\]/#) {
                dependencies = Set(list.output.1.matches(of: #/"(\w+)"/#).map { String($0.output.1) })
            }
            let path = rest.firstMatch(of: #/path:\s*"([^"]+)"/#).map { String($0.output.1) }
                ?? (kind == "testTarget" ? "Tests/\(name)" : "Sources/\(name)")
            return Target(name: name, dependencies: dependencies, directory: repositoryRoot.appendingPathComponent(path))
        }
    }

    /// The modules a folder's Swift files import (`import X`, `@testable
    /// import X`, `import struct X.Y`), each with the first file naming it.
    static func imports(in directory: URL) -> [String: String] {
        var found: [String: String] = [:]
        let line = #/^\s*(?:@\w+\s+)*(?:public\s+|internal\s+|package\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)/#
        guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { return [:] }
        for case let file as URL in files where file.pathExtension == "swift" {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for row in text.split(separator: "\n", omittingEmptySubsequences: true) {
                if let match = row.firstMatch(of: line) {
                    let module = String(match.output.1)
                    if found[module] == nil { found[module] = file.lastPathComponent }
                }
            }
        }
        return found
    }

    func testEveryImportedTargetIsADeclaredDependency() throws {
        let targets = try Self.packageTargets()
        let names = Set(targets.map(\.name))
        XCTAssertTrue(names.isSuperset(of: ["ModelFormat", "CoreMLBackend", "convert", "CommandTests", "TestSupport"]),
                      "Package.swift's targets were not read: \(names.sorted())")
        var missing: [String] = []
        for target in targets {
            for (module, file) in Self.imports(in: target.directory).sorted(by: { $0.key < $1.key })
            where names.contains(module) && module != target.name && !target.dependencies.contains(module) {
                missing.append("\(target.name) imports \(module) (\(file)) without declaring it in Package.swift")
            }
        }
        XCTAssertEqual(missing, [], missing.joined(separator: "\n"))
    }

    /// The check itself finds an undeclared import.
    func testAnUndeclaredImportIsFound() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("declared-imports-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "import Foundation\n@testable import Threads\nimport struct Naming.PathBytes\n// import Nothing\n"
            .write(to: folder.appendingPathComponent("A.swift"), atomically: true, encoding: .utf8)
        XCTAssertEqual(Set(Self.imports(in: folder).keys), ["Foundation", "Threads", "Naming"])
    }
}

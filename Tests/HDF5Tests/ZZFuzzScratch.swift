import Foundation
import HDF5
import XCTest

final class ZZFuzzScratch: XCTestCase {
    func walk(_ file: HDF5File, _ group: String, depth: Int) {
        guard depth < 6, let names = try? file.children(of: group) else { return }
        for name in names {
            let path = group == "/" ? name : group + "/" + name
            _ = try? file.stringAttribute("model_config", of: path)
            _ = try? file.stringArrayAttribute("weight_names", of: path)
            switch try? file.kind(of: path) {
            case .group: walk(file, path, depth: depth + 1)
            case .dataset: _ = try? file.shape(of: path); _ = try? file.readFloats(path)
            default: break
            }
        }
    }

    func testFuzz() throws {
        guard let dir = ProcessInfo.processInfo.environment["H8FUZZ"] else { return }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        var opened = 0
        for name in names {
            FileHandle.standardError.write("\(name)\n".data(using: .utf8)!)
            guard let file = try? HDF5File(path: dir + "/" + name) else { continue }
            opened += 1
            _ = try? file.stringAttribute("model_config", of: "/")
            _ = try? file.stringAttribute("backend", of: "/")
            walk(file, "/", depth: 0)
        }
        print("FUZZ opened \(opened) of \(names.count)")
    }
}

import Foundation
import HDF5
import XCTest

/// Tests/Fixtures/hdf5, written by scripts/fixtures/make_hdf5_fixtures.py.
let hdf5Fixtures = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/hdf5")

/// The path of fixture `name`.
func fixture(_ name: String) -> String { hdf5Fixtures.appendingPathComponent(name).path }

/// What the fixture script stores in every numeric dataset: value(i) = i * 0.25 - 3.
func expectedValues(_ count: Int) -> [Float] { (0..<count).map { Float($0) * 0.25 - 3 } }

/// The `HDF5Error` that `body` throws, checked to be one line starting with
/// the file's path and (if given) the object; nil (and a failure) if none.
func hdf5Error<T>(_ path: String, object: String?, file: StaticString = #filePath, line: UInt = #line,
                  _ body: () throws -> T) -> HDF5Error? {
    do {
        let result = try body()
        XCTFail("expected an error, got \(result)", file: file, line: line)
        return nil
    } catch let error as HDF5Error {
        XCTAssertEqual(error.path, path, file: file, line: line)
        XCTAssertEqual(error.object, object, file: file, line: line)
        XCTAssertFalse(error.description.contains("\n"), "one line: \(error)", file: file, line: line)
        XCTAssertTrue(error.description.hasPrefix(object.map { "\(path): \($0): " } ?? "\(path): "),
                      "\(error)", file: file, line: line)
        return error
    } catch {
        XCTFail("not an HDF5Error: \(error)", file: file, line: line)
        return nil
    }
}

/// Asserts that `error` exists and its message contains `text`.
func assertMessage(_ error: HDF5Error?, contains text: String, file: StaticString = #filePath, line: UInt = #line) {
    guard let error else { return }
    XCTAssertTrue(error.message.contains(text), "\(error) should mention \"\(text)\"", file: file, line: line)
}

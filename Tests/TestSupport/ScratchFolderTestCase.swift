// `swift build` builds every target, this one too, and XCTest is not there
// in every build (none with --static-swift-stdlib, the README's): the test
// case exists only where XCTest does, which the test targets always have.
#if canImport(XCTest)
import Foundation
import XCTest

/// A test case with a fresh empty folder per test (`temporaryFolder()`,
/// removed afterwards), and what the file tests ask of it.
open class ScratchFolderTestCase: XCTestCase {
    /// The folder's path.
    public var folder = ""

    override open func setUpWithError() throws {
        folder = try temporaryFolder().path
    }

    override open func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The bytes of the file at `path`, or nil.
    public func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map(Array.init)
    }

    /// The names in the folder, sorted.
    public func folderListing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }
}
#endif

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

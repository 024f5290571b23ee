import FileIO
import Foundation
import TestSupport
import XCTest

/// MappedFile and ReadableFile against a scratch folder.
final class ReadableFileTests: ScratchFolderTestCase {
    func testMappedFileReadsTheBytes() throws {
        let path = folder + "/data.bin"
        let bytes: [UInt8] = Array(0...255)
        try AtomicFile.write(bytes, to: path)
        let file = try MappedFile(path: path)
        XCTAssertEqual(file.path, path)
        XCTAssertEqual(Array(file.bytes), bytes)
    }

    func testDirectoryAndMissingPathThrowFileError() {
        XCTAssertThrowsError(try MappedFile(path: folder)) { error in
            guard let error = error as? FileError else { return XCTFail("not a FileError: \(error)") }
            XCTAssertEqual(error.path, self.folder)
            XCTAssertEqual(error.message, "not a regular file (a folder)")
        }
        let missing = folder + "/nothing-here"
        XCTAssertThrowsError(try MappedFile(path: missing)) { error in
            guard let error = error as? FileError else { return XCTFail("not a FileError: \(error)") }
            XCTAssertEqual(error.path, missing)
            XCTAssertTrue(error.message.hasPrefix("cannot open"), error.message)
        }
    }

    func testEmptyFileGivesAnEmptyBuffer() throws {
        let path = folder + "/empty.bin"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        let file = try MappedFile(path: path)
        XCTAssertEqual(file.bytes.count, 0)
        XCTAssertTrue(file.bytes.isEmpty)
    }

    /// A FIFO, a device or a folder is refused at once: opening a FIFO to
    /// read once blocked the program forever, waiting for a writer.
    func testOnlyRegularFilesAreRead() throws {
        let fifo = folder + "/pipe.png"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        var cases = [(fifo, "a FIFO"), (folder, "a folder")]
        let device = folder + "/zero"
        if mknod(device, S_IFCHR | 0o666, 0x105) == 0 {  // major 1, minor 5 (zero); needs root, as CI has
            cases.append((device, "a character device"))
        }
        for (path, name) in cases {
            let expected = "\(path): not a regular file (\(name))"
            XCTAssertThrowsError(try MappedFile(path: path)) { XCTAssertEqual("\($0)", expected) }
            XCTAssertThrowsError(try ReadableFile.bytes(path)) { XCTAssertEqual("\($0)", expected) }
            XCTAssertThrowsError(try ReadableFile.check(path)) { XCTAssertEqual("\($0)", expected) }
        }
        let link = folder + "/link"
        XCTAssertEqual(symlink(fifo, link), 0)
        XCTAssertThrowsError(try ReadableFile.check(link)) { XCTAssertEqual("\($0)", "\(link): not a regular file (a FIFO)") }
    }

    func testBytesReadsTheWholeFileUpToALimit() throws {
        let path = folder + "/labels.txt"
        try AtomicFile.write(Array("cat\ndog\n".utf8), to: path)
        XCTAssertEqual(try ReadableFile.bytes(path), Array("cat\ndog\n".utf8))
        XCTAssertThrowsError(try ReadableFile.bytes(path, limit: 4)) {
            XCTAssertEqual("\($0)", "\(path): the file has 8 bytes, more than the limit of 4")
        }
        try ReadableFile.check(path)
    }
}

@testable import FileIO
import Foundation
import TestSupport
import XCTest

/// AtomicFileSet against a scratch folder: nothing is in place before the
/// commit, and a set that fails or is dropped leaves nothing behind.
final class AtomicFileSetTests: ScratchFolderTestCase {
    struct Refusal: Error {}

    func testFilesAppearOnlyAtTheCommitWithTheirPermissions() throws {
        try Data("old".utf8).write(to: URL(fileURLWithPath: folder + "/a.txt"))
        XCTAssertEqual(chmod(folder + "/a.txt", 0o640), 0)
        let set = try AtomicFileSet(targets: [folder + "/a.txt", folder + "/b.txt"])
        let temporary = try set.write(Array("new a".utf8), to: folder + "/a.txt")
        XCTAssertEqual(contents(temporary), Array("new a".utf8), "the temporary file is complete and readable")
        try set.write(to: folder + "/b.txt") { stream, commit in
            XCTAssertEqual(commit, .synced, "a set with an existing target is synced")
            fputs("new b", stream)
        }
        XCTAssertEqual(contents(folder + "/a.txt"), Array("old".utf8), "nothing is in place before the commit")
        XCTAssertNil(contents(folder + "/b.txt"))
        try set.commit()
        XCTAssertEqual(contents(folder + "/a.txt"), Array("new a".utf8))
        XCTAssertEqual(contents(folder + "/b.txt"), Array("new b".utf8))
        XCTAssertEqual(try folderListing(), ["a.txt", "b.txt"])
        var info = stat()
        XCTAssertEqual(stat(folder + "/a.txt", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o640, "a replaced file keeps its permissions")
    }

    func testAFailedWriteDiscardsTheWholeSet() throws {
        let set = try AtomicFileSet(targets: [folder + "/a", folder + "/b"])
        try set.createFolder(folder + "/x/y", intermediates: true)
        try set.write(Array("a".utf8), to: folder + "/a")
        XCTAssertThrowsError(try set.write(to: folder + "/b") { _, commit in
            XCTAssertEqual(commit, .cached, "a set of new files is left to the write-back")
            throw Refusal()
        })
        XCTAssertEqual(try folderListing(), [], "no temporary and no folder the set made is left")
    }

    func testADroppedSetLeavesNothing() throws {
        do {
            let set = try AtomicFileSet(targets: [folder + "/a", folder + "/b"])
            try set.write(Array("a".utf8), to: folder + "/a")
        }
        XCTAssertEqual(try folderListing(), [])
    }

    func testATargetThatChangedBeforeTheCommitReplacesNothing() throws {
        try Data("old".utf8).write(to: URL(fileURLWithPath: folder + "/a"))
        let set = try AtomicFileSet(targets: [folder + "/a", folder + "/b"])
        try set.write(Array("new".utf8), to: folder + "/a")
        try set.write(Array("new".utf8), to: folder + "/b")
        XCTAssertEqual(mkdir(folder + "/b", 0o755), 0)  // a folder appeared where b goes
        XCTAssertThrowsError(try set.commit()) { error in
            XCTAssertEqual("\(error)", "\(folder)/b: is a folder, not a regular file: the output must be a new file or a regular file to replace")
        }
        XCTAssertEqual(contents(folder + "/a"), Array("old".utf8))
        XCTAssertEqual(try folderListing(), ["a", "b"])
    }

    func testTargetsAreCheckedBeforeAnyIsWritten() throws {
        XCTAssertEqual(mkfifo(folder + "/b", 0o644), 0)
        XCTAssertThrowsError(try AtomicFileSet(targets: [folder + "/a", folder + "/b"])) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(folder)/b: is a FIFO"), "\(error)")
        }
        try Data("in".utf8).write(to: URL(fileURLWithPath: folder + "/input"))
        XCTAssertThrowsError(try AtomicFileSet(targets: [folder + "/a", folder + "/input"], inputs: [folder + "/input"]))
        // Two spellings of one name: the second rename would undo the first.
        XCTAssertThrowsError(try AtomicFileSet(targets: [folder + "/a", folder + "//a"])) { error in
            XCTAssertEqual("\(error)", "\(folder)//a: is the same file as \(folder)/a, another output of this run")
        }
        XCTAssertEqual(try folderListing(), ["b", "input"])
    }
}

/// The documented window: the renames are separate steps. Targets on two
/// tmpfs mounts, the second made read-only between the writes and the
/// commit: the first is replaced, the second is not, and the error says so.
/// Skipped where tmpfs cannot be mounted (not root, not Linux).
final class AtomicFileSetRenameWindowTests: ScratchFolderTestCase {
    var mounts: [String] = []

    override func tearDownWithError() throws {
        #if os(Linux)
        for mount in mounts.reversed() { umount2(mount, Int32(MNT_DETACH)) }
        #endif
        try super.tearDownWithError()
    }

    func mountTmpfs(_ name: String) throws -> String {
        let path = folder + "/" + name
        XCTAssertEqual(mkdir(path, 0o755), 0)
        #if os(Linux)
        guard mount("tmpfs", path, "tmpfs", 0, "size=64k") == 0 else {
            throw XCTSkip("mount -t tmpfs failed here: \(String(cString: strerror(errno)))")
        }
        mounts.append(path)
        return path
        #else
        throw XCTSkip("needs a Linux tmpfs")
        #endif
    }

    func testARenameThatFailsNamesWhatWasAlreadyReplaced() throws {
        let first = try mountTmpfs("first"), second = try mountTmpfs("second")
        for path in [first + "/a", second + "/b"] { try Data("old".utf8).write(to: URL(fileURLWithPath: path)) }
        let set = try AtomicFileSet(targets: [first + "/a", second + "/b"])
        try set.write(Array("new".utf8), to: first + "/a")
        try set.write(Array("new".utf8), to: second + "/b")
        #if os(Linux)
        XCTAssertEqual(mount("tmpfs", second, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), "size=64k"), 0, String(cString: strerror(errno)))
        #endif
        XCTAssertThrowsError(try set.commit()) { error in
            XCTAssertEqual("\(error)", "\(second)/b: cannot replace: Read-only file system (already replaced: \(first)/a)")
        }
        XCTAssertEqual(contents(first + "/a"), Array("new".utf8))
        XCTAssertEqual(contents(second + "/b"), Array("old".utf8))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: first), ["a"])
    }
}

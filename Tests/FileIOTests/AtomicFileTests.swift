@testable import FileIO
import Foundation
import TestSupport
import XCTest

/// AtomicFile against a scratch folder.
final class AtomicFileTests: ScratchFolderTestCase {
    struct Refusal: Error {}

    func testWriteCreatesTheFileWithItsContent() throws {
        let path = folder + "/out.bin"
        try AtomicFile.write(to: path) { stream, _ in
            fputs("hello, ", stream)
            fputs("world", stream)
        }
        XCTAssertEqual(contents(path), Array("hello, world".utf8))
        XCTAssertEqual(try folderListing(), ["out.bin"], "no temporary file is left behind")

        let bytes: [UInt8] = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try AtomicFile.write(bytes, to: path)
        XCTAssertEqual(contents(path), bytes, "replaces the previous content")
        try AtomicFile.write([UInt8](), to: path)
        XCTAssertEqual(contents(path), [])
        XCTAssertEqual(try folderListing(), ["out.bin"])
    }

    func testOnlyAFileThatReplacesAnotherIsSynced() throws {
        let path = folder + "/model.bin"
        var commits: [AtomicFile.Commit] = []
        try AtomicFile.write(to: path) { stream, commit in
            commits.append(commit)
            fputs("first", stream)
        }
        try AtomicFile.write(to: path) { stream, commit in
            commits.append(commit)
            fputs("second", stream)
        }
        XCTAssertEqual(commits, [.cached, .synced])
        XCTAssertEqual(contents(path), Array("second".utf8))

        XCTAssertEqual(AtomicFile.commit(for: folder + "/absent.bin"), .cached)
        XCTAssertEqual(AtomicFile.commit(for: folder), .synced, "a folder is something rename would replace or refuse")
        let link = folder + "/dangling.bin"
        XCTAssertEqual(symlink(folder + "/nowhere", link), 0)
        XCTAssertEqual(AtomicFile.commit(for: link), .synced, "a link is replaced, even one that points nowhere")
    }

    func testBeforeCommitSeesTheCompleteFileWhetherSyncedOrNot() throws {
        let path = folder + "/checked.bin"
        for content in ["new file", "replacing it"] {
            var seen: [UInt8]?
            try AtomicFile.write(to: path, beforeCommit: { temporary in
                XCTAssertNotEqual(temporary, path)
                seen = self.contents(temporary)
            }) { stream, _ in fputs(content, stream) }
            XCTAssertEqual(seen, Array(content.utf8))
        }
        XCTAssertThrowsError(try AtomicFile.write(to: path, beforeCommit: { _ in throw Refusal() }) { stream, _ in
            fputs("refused", stream)
        }) { error in XCTAssertTrue(error is Refusal, "\(error)") }
        XCTAssertEqual(contents(path), Array("replacing it".utf8))
        XCTAssertEqual(try folderListing(), ["checked.bin"])
    }

    func testWrittenFileGetsThePermissionsOfAPlainCreate() throws {
        let path = folder + "/mode.bin"
        try AtomicFile.write([1, 2, 3], to: path)
        let mask = umask(0)
        umask(mask)
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o666 & ~mask)
    }

    func testFailedWriteLeavesNoFileAndNoTemporaryFile() throws {
        let path = folder + "/never.bin"
        XCTAssertThrowsError(try AtomicFile.write(to: path) { stream, _ in
            fputs("partial content", stream)
            throw Refusal()
        }) { error in
            XCTAssertTrue(error is Refusal, "the closure's own error comes through: \(error)")
        }
        XCTAssertNil(contents(path))
        XCTAssertEqual(try folderListing(), [], "no temporary file is left behind")
    }

    func testFailedWriteLeavesAnExistingFileByteForByteUnchanged() throws {
        let path = folder + "/keep.bin"
        let original: [UInt8] = Array("original content\n".utf8) + [0, 255, 7]
        try AtomicFile.write(original, to: path)
        XCTAssertThrowsError(try AtomicFile.write(to: path) { stream, _ in
            fputs(String(repeating: "new content ", count: 10_000), stream)
            fflush(stream)
            throw Refusal()
        })
        XCTAssertEqual(contents(path), original)
        XCTAssertEqual(try folderListing(), ["keep.bin"])
    }

    func testWritingIntoAMissingFolderThrowsFileErrorNamingThePath() throws {
        let path = folder + "/missing/sub/out.bin"
        XCTAssertThrowsError(try AtomicFile.write([1], to: path)) { error in
            guard let error = error as? FileError else { return XCTFail("not a FileError: \(error)") }
            XCTAssertEqual(error.path, path)
            XCTAssertTrue(error.message.contains(self.folder + "/missing/sub"), error.message)
            XCTAssertTrue(error.description.hasPrefix(path + ": "), error.description)
        }
        XCTAssertEqual(try folderListing(), [])
    }

    func testReplacingADirectoryFailsAndCleansUp() throws {
        let path = folder + "/occupied"
        try FileManager.default.createDirectory(atPath: path + "/inside", withIntermediateDirectories: true)
        XCTAssertThrowsError(try AtomicFile.write([1, 2], to: path)) { error in
            XCTAssertEqual((error as? FileError)?.path, path)
            XCTAssertEqual((error as? FileError)?.message,
                           "is a folder, not a regular file: the output must be a new file or a regular file to replace")
        }
        XCTAssertEqual(try folderListing(), ["occupied"])
    }

    // MARK: What may be replaced

    /// The kind of what is at `path` (S_IFIFO, S_IFCHR, ...), without following a link.
    func kind(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    /// A FIFO or a device node stays what it was: writing `-o /dev/null` as
    /// root once replaced the machine's /dev/null with a regular file. (The
    /// device is a node made in the scratch folder, never the real one.)
    func testAFIFOOrADeviceIsNeverReplaced() throws {
        let fifo = folder + "/pipe"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        var targets = [(fifo, "a FIFO", S_IFIFO)]
        let device = folder + "/null"
        if mknod(device, S_IFCHR | 0o666, 0x103) == 0 {  // major 1, minor 3 (null); needs root, as CI has
            targets.append((device, "a character device", S_IFCHR))
        }
        for (path, name, type) in targets {
            XCTAssertThrowsError(try AtomicFile.write([1, 2, 3], to: path)) { error in
                XCTAssertEqual("\(error)", "\(path): is \(name), not a regular file: the output must be a new file or a regular file to replace")
            }
            XCTAssertEqual(kind(path), type, "\(path) is still \(name)")
        }
        XCTAssertEqual(try folderListing(), targets.map { $0.0.split(separator: "/").last.map(String.init)! }.sorted())
    }

    /// A link is replaced by the new file; what it pointed to stays as it was.
    func testALinkIsReplacedAndItsTargetKept() throws {
        let original = folder + "/original.bin", link = folder + "/link.bin"
        try AtomicFile.write([9, 9], to: original)
        XCTAssertEqual(symlink(original, link), 0)
        try AtomicFile.write([1], to: link)
        XCTAssertEqual(kind(link), S_IFREG)
        XCTAssertEqual(contents(link), [1])
        XCTAssertEqual(contents(original), [9, 9])
    }

    /// An output that is one of the run's inputs, by name, through a link to
    /// it, as a second (hard) link, or named through a link given as input.
    func testAnInputIsNeverReplaced() throws {
        let input = folder + "/deploy.prototxt"
        try AtomicFile.write(Array("layer {}".utf8), to: input)
        let soft = folder + "/soft.prototxt", hard = folder + "/hard.prototxt"
        XCTAssertEqual(symlink(input, soft), 0)
        XCTAssertEqual(link(input, hard), 0)
        let cases: [(output: String, inputs: [String])] = [
            (input, [input]), (folder + "/./deploy.prototxt", [input]), (hard, [input]),
            (input, [soft]), (soft, [soft]), (input, ["other.bin", input]),
        ]
        for (output, inputs) in cases {
            XCTAssertThrowsError(try AtomicFile.write([0], to: output, inputs: inputs), "\(output) \(inputs)") { error in
                XCTAssertTrue("\(error)".hasPrefix("\(output): is an input of this run"), "\(error)")
                XCTAssertTrue("\(error)".hasSuffix("; choose another output file"), "\(error)")
            }
        }
        XCTAssertEqual(contents(input), Array("layer {}".utf8))
        XCTAssertEqual(kind(soft), S_IFLNK)
        // A link to an input, replaced as a link, loses nothing.
        try AtomicFile.write([7], to: soft, inputs: [input])
        XCTAssertEqual(contents(input), Array("layer {}".utf8))
        XCTAssertEqual(contents(soft), [7])
        try AtomicFile.write([8], to: folder + "/new.bin", inputs: [input, folder + "/missing"])
    }

    func testAReplacedFileKeepsItsPermissions() throws {
        let path = folder + "/private.bin"
        for mode: mode_t in [0o600, 0o640, 0o755] {
            try AtomicFile.write([1], to: path)
            XCTAssertEqual(chmod(path, mode), 0)
            try AtomicFile.write([2], to: path)
            var info = stat()
            XCTAssertEqual(stat(path, &info), 0)
            XCTAssertEqual(info.st_mode & 0o777, mode)
        }
    }

    /// Names up to NAME_MAX (255 bytes) work: the temporary name is shortened.
    func testTheLongestNamesWork() throws {
        for name in [String(repeating: "a", count: 252) , String(repeating: "b", count: 255),
                     String(repeating: "é", count: 127) + "x"] {
            try AtomicFile.write([5], to: folder + "/" + name)
            XCTAssertEqual(contents(folder + "/" + name), [5])
        }
        XCTAssertEqual(try folderListing().count, 3, "no temporary file is left behind")
        XCTAssertEqual(AtomicFile.temporaryStem(String(repeating: "é", count: 127) + "x").utf8.count, 246,
                       "cut before a character that would not fit whole")
    }

    // MARK: Signals

    /// SIGINT, SIGTERM and SIGHUP in the middle of a write: the temporary file
    /// is removed and the process ends by that signal (a shell sees 128+n).
    /// The writer is this test binary run again as a child
    /// (`SignalChild.testWriteUntilSignalled`), which waits inside the write.
    func testASignalDuringAWriteRemovesTheTemporaryFile() throws {
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            let target = folder + "/interrupted-\(signal).bin"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["FileIOTests.SignalChild/testWriteUntilSignalled"]
            process.environment = ProcessInfo.processInfo.environment.merging(["ATOMIC_FILE_SIGNAL_CHILD": target]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // The child writes its temporary file, then waits to be signalled.
            let deadline = Date().addingTimeInterval(30)
            while try folderListing().filter({ $0.hasPrefix(".interrupted-\(signal).bin.") }).isEmpty && Date() < deadline {
                usleep(10_000)
            }
            XCTAssertFalse(try folderListing().isEmpty, "the child started writing")
            usleep(100_000)
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal)
            XCTAssertEqual(process.terminationStatus, signal)
            XCTAssertEqual(try folderListing(), [], "neither the temporary file nor the target is left")
        }
    }

    /// A new package is left to the system's write-back, a replaced one is
    /// synced before the swap (as `AtomicFile` commits files): the writer is
    /// told which, so that it starts the disk early only when it will wait for it.
    func testAFolderIsSyncedOnlyWhenItReplacesOne() throws {
        let target = folder + "/commit.mlpackage"
        var commits: [AtomicFile.Commit] = []
        for _ in 0..<2 {
            try AtomicFolder.write(to: target, isReplaceable: { _ in true }) { temporary, commit in
                commits.append(commit)
                FileManager.default.createFile(atPath: temporary + "/Manifest.json", contents: Data("{}".utf8))
            }
        }
        XCTAssertEqual(commits, [.cached, .synced])
        XCTAssertEqual(try String(contentsOfFile: target + "/Manifest.json", encoding: .utf8), "{}")
    }

    /// A link to a package is never followed: refused by what it is (it was
    /// "exists and is not a folder", while it led to one), the package intact.
    func testALinkToAPackageIsRefusedAsALink() throws {
        let package = folder + "/real.mlpackage", link = folder + "/link.mlpackage"
        try AtomicFolder.write(to: package, isReplaceable: { _ in true }) { temporary, _ in
            FileManager.default.createFile(atPath: temporary + "/Manifest.json", contents: Data("old".utf8))
        }
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: package)
        XCTAssertThrowsError(try AtomicFolder.write(to: link, isReplaceable: { _ in true }) { _, _ in XCTFail("written through a link") }) { error in
            XCTAssertTrue("\(error)".contains("is a symbolic link, which is not followed"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOfFile: package + "/Manifest.json", encoding: .utf8), "old")
    }

    /// The same for a package folder (`AtomicFolder`): the temporary folder
    /// goes with everything in it, three levels down (`fileio_remember_tree`).
    func testASignalDuringAFolderWriteRemovesTheTemporaryFolder() throws {
        for signal in [SIGINT, SIGTERM] {
            let target = folder + "/interrupted-\(signal).mlpackage"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["FileIOTests.SignalChild/testWriteFolderUntilSignalled"]
            process.environment = ProcessInfo.processInfo.environment.merging(["ATOMIC_FILE_SIGNAL_CHILD": target]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // The child fills its temporary folder, then leaves a mark inside it and waits to be signalled.
            let deadline = Date().addingTimeInterval(30)
            func marked() throws -> Bool {
                try folderListing().contains { FileManager.default.fileExists(atPath: folder + "/" + $0 + "/Data/ready") }
            }
            while try !marked() && Date() < deadline { usleep(10_000) }
            XCTAssertTrue(try marked(), "the child started writing")
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal)
            XCTAssertEqual(process.terminationStatus, signal)
            XCTAssertEqual(try folderListing(), [], "neither the temporary folder nor the target is left")
        }
    }
}

/// Run only as the child of `testASignalDuringAWriteRemovesTheTemporaryFile`.
final class SignalChild: XCTestCase {
    func testWriteFolderUntilSignalled() throws {
        guard let target = ProcessInfo.processInfo.environment["ATOMIC_FILE_SIGNAL_CHILD"] else { return }
        try AtomicFolder.write(to: target, isReplaceable: { _ in false }) { temporary, _ in
            let weights = temporary + "/Data/com.apple.CoreML/weights"
            try FileManager.default.createDirectory(atPath: weights, withIntermediateDirectories: true)
            for (path, text) in [(temporary + "/Manifest.json", "{}"), (weights + "/weight.bin", "weights"), (temporary + "/Data/ready", "")] {
                FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
            }
            while true { sleep(1) }
        }
    }

    func testWriteUntilSignalled() throws {
        guard let target = ProcessInfo.processInfo.environment["ATOMIC_FILE_SIGNAL_CHILD"] else { return }
        try AtomicFile.write(to: target) { stream, _ in
            fputs("partial", stream)
            fflush(stream)
            while true { sleep(1) }
        }
    }
}

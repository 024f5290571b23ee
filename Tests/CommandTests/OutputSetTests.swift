import Foundation
import TestSupport
import XCTest

/// Multi-file outputs are all or nothing on a really full disk: a tiny
/// tmpfs mounted for the test (the tests run as root on Linux; elsewhere,
/// or where mounting is not allowed, each test is skipped and says why),
/// filled so that the first files of a set fit and a later one does not.
/// Each run must exit 1 with one `error:` line naming the file that did not
/// fit, leave every old file byte for byte, and leave no temporary file.
final class OutputSetTests: XCTestCase {
    let fixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures")
    var disk: TinyDisk?

    override func tearDown() {
        disk?.unmount()
        disk = nil
    }

    /// A tmpfs of `kilobytes` for this test, or a skip saying why not.
    func mountDisk(kilobytes: Int) throws -> TinyDisk {
        let mounted = try TinyDisk(kilobytes: kilobytes)
        disk = mounted
        return mounted
    }

    func pages(_ bytes: Int) -> Int { (bytes + 4095) / 4096 }

    func size(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
    }

    func assertFailed(_ result: ProgramRunner.Result, naming file: String, line: UInt = #line) {
        XCTAssertEqual(result.status, 1, result.standardError, line: line)
        let errors = result.standardError.split(separator: "\n")
        XCTAssertEqual(errors.count, 1, result.standardError, line: line)
        XCTAssertEqual(errors.first.map(String.init), "error: \(file): cannot write: No space left on device", line: line)
    }

    /// Writes "old NAME" into each of `names` in `folder`: what must survive.
    func oldFiles(_ names: [String], in folder: String) throws -> [String: Data] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var files: [String: Data] = [:]
        for name in names {
            let data = Data("old \(name)\n".utf8)
            try data.write(to: URL(fileURLWithPath: folder + "/" + name))
            files[name] = data
        }
        return files
    }

    func assertKept(_ files: [String: Data], in folder: String, line: UInt = #line) throws {
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), files.keys.sorted(),
                       "a temporary file was left, or a file added", line: line)
        for (name, data) in files {
            XCTAssertEqual(FileManager.default.contents(atPath: folder + "/" + name), data, "\(name) was replaced", line: line)
        }
    }

    /// The case: the new .h fitted, the .m did not; the old .h was replaced. Now neither is.
    func testGenerateObjectiveCOnAFullDiskReplacesNeither() throws {
        let scratch = try temporaryFolder()
        let model = scratch.appendingPathComponent("Sample.mlmodel").path
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ["sample", "-o", model, "-q"]).status, 0)
        let sizes = scratch.appendingPathComponent("sizes").path
        XCTAssertEqual(try ProgramRunner.run("coreml-generate", [model, sizes, "--language", "objc", "-q"]).status, 0)
        let header = try size(sizes + "/Sample.h"), implementation = try size(sizes + "/Sample.m")

        let disk = try mountDisk(kilobytes: 64)
        let folder = disk.path + "/out"
        let old = try oldFiles(["Sample.h", "Sample.m"], in: folder)
        try disk.fill(leavingPages: pages(header))
        XCTAssertLessThan(pages(header), pages(header) + pages(implementation))
        let result = try ProgramRunner.run("coreml-generate", [model, folder, "--language", "objc"])
        assertFailed(result, naming: folder + "/Sample.m")
        XCTAssertEqual(result.standardOutput, "")
        try assertKept(old, in: folder)

        // With room for both, both are replaced.
        try disk.fill(leavingPages: pages(header) + pages(implementation))
        XCTAssertEqual(try ProgramRunner.run("coreml-generate", [model, folder, "--language", "objc", "-q"]).status, 0)
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/Sample.m"), FileManager.default.contents(atPath: sizes + "/Sample.m"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["Sample.h", "Sample.m"])
    }

    /// A folder generate made for classes it could not write is removed again.
    func testGenerateIntoANewFolderOnAFullDiskLeavesNoFolder() throws {
        let scratch = try temporaryFolder()
        let model = scratch.appendingPathComponent("Sample.mlmodel").path
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ["sample", "-o", model, "-q"]).status, 0)
        let disk = try mountDisk(kilobytes: 64)
        try disk.fill(leavingPages: 1)
        let folder = disk.path + "/classes"
        let result = try ProgramRunner.run("coreml-generate", [model, folder, "--language", "objc"])
        XCTAssertEqual(result.status, 1, result.standardError)
        XCTAssertTrue(result.standardError.hasPrefix("error: \(folder)/Sample."), result.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder), "the new folder was left")
    }

    /// `convert --generate-classes`: the model and its classes are one set. The
    /// model fitted and the .m did not: the old model is kept too.
    func testConvertWithClassesOnAFullDiskKeepsTheOldModelAndClasses() throws {
        let scratch = try temporaryFolder()
        let sizes = scratch.appendingPathComponent("Sample.mlmodel").path
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ["sample", "-o", sizes, "-q", "--generate-classes", "--language", "objc"]).status, 0)
        let needed = try pages(size(sizes)) + pages(size(scratch.appendingPathComponent("Sample.h").path))

        let disk = try mountDisk(kilobytes: 1024)
        let folder = disk.path + "/app"
        let old = try oldFiles(["Sample.mlmodel", "Sample.h", "Sample.m"], in: folder)
        try disk.fill(leavingPages: needed)
        let result = try ProgramRunner.run("coreml-convert", ["sample", "-o", folder + "/Sample.mlmodel", "--generate-classes", "--language", "objc"])
        assertFailed(result, naming: folder + "/Sample.m")
        XCTAssertEqual(result.standardOutput, "")
        try assertKept(old, in: folder)
        // The model alone (no classes) still fits and is written.
        let alone = try ProgramRunner.run("coreml-convert", ["sample", "-o", folder + "/Sample.mlmodel", "-q"])
        XCTAssertEqual(alone.status, 0, alone.standardError)
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/Sample.mlmodel"), FileManager.default.contents(atPath: sizes))
    }

    /// The case: the first output's array was left new, the second
    /// failed. Now none is replaced; a folder made for them is removed.
    func testPredictOutputNpyOnAFullDiskReplacesNone() throws {
        let split = fixtures.appendingPathComponent("runtime/split")
        let arguments = [split.appendingPathComponent("model.mlmodel").path, "--input", "x=" + split.appendingPathComponent("input_x.npy").path]
        let disk = try mountDisk(kilobytes: 64)
        let folder = disk.path + "/out"
        let old = try oldFiles(["y0.npy", "y1.npy", "y2.npy"], in: folder)
        try disk.fill(leavingPages: 1)  // each array is 224 bytes: one page
        let result = try ProgramRunner.run("coreml-predict", arguments + ["--output-npy", folder])
        assertFailed(result, naming: folder + "/y1.npy")
        XCTAssertEqual(result.standardOutput, "")
        try assertKept(old, in: folder)

        let fresh = disk.path + "/new/arrays"
        let again = try ProgramRunner.run("coreml-predict", arguments + ["--output-npy", fresh])
        assertFailed(again, naming: fresh + "/y1.npy")
        XCTAssertFalse(FileManager.default.fileExists(atPath: disk.path + "/new"), "the folders made for the arrays were left")

        try disk.fill(leavingPages: 3)
        let written = try ProgramRunner.run("coreml-predict", arguments + ["--output-npy", folder])
        XCTAssertEqual(written.status, 0, written.standardError)
        for name in ["y0", "y1", "y2"] {
            XCTAssertEqual(FileManager.default.contents(atPath: "\(folder)/\(name).npy"),
                           FileManager.default.contents(atPath: split.appendingPathComponent("output_\(name).npy").path), name)
        }
    }

    /// A second file that may not be replaced (a FIFO where y1.npy goes)
    /// was found after y0.npy was written; now before any is.
    func testPredictChecksEveryArrayBeforeWritingAny() throws {
        let split = fixtures.appendingPathComponent("runtime/split")
        let folder = try temporaryFolder().path
        XCTAssertEqual(mkfifo(folder + "/y1.npy", 0o644), 0)
        try ProgramRunner.assertOneError("coreml-predict", [split.appendingPathComponent("model.mlmodel").path, "--input",
                                                            "x=" + split.appendingPathComponent("input_x.npy").path, "--output-npy", folder],
                                         "error: \(folder)/y1.npy: is a FIFO, not a regular file")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["y1.npy"], "y0.npy was written")
    }

    /// `predict --output-npy --draw` on a detector: the arrays and the picture
    /// are one set. The arrays fitted and the picture did not: none replaced.
    func testPredictDrawingAndArraysOnAFullDiskReplaceNone() throws {
        let fixture = fixtures.appendingPathComponent("darknet/detector")
        let scratch = try temporaryFolder()
        let model = scratch.appendingPathComponent("Detector.mlmodel").path
        let convert = try ProgramRunner.run("coreml-convert", ["darknet", fixture.appendingPathComponent("model.cfg").path,
                                                               fixture.appendingPathComponent("model.weights").path, "-o", model, "-q"])
        XCTAssertEqual(convert.status, 0, convert.standardError)
        let picture = fixture.appendingPathComponent("detect_1.png").path
        let reference = scratch.appendingPathComponent("reference").path
        let first = try ProgramRunner.run("coreml-predict", [model, picture, "--output-npy", reference, "--draw", reference + "/boxes.png"])
        XCTAssertEqual(first.status, 0, first.standardError)
        let arrays = try FileManager.default.contentsOfDirectory(atPath: reference).filter { $0.hasSuffix(".npy") }.sorted()
        XCTAssertGreaterThan(arrays.count, 1)
        let arrayPages = try arrays.map { try pages(size(reference + "/" + $0)) }.reduce(0, +)

        let disk = try mountDisk(kilobytes: 4096)
        let folder = disk.path + "/out"
        let old = try oldFiles(arrays + ["boxes.png"], in: folder)
        try disk.fill(leavingPages: arrayPages)
        let result = try ProgramRunner.run("coreml-predict", [model, picture, "--output-npy", folder, "--draw", folder + "/boxes.png"])
        assertFailed(result, naming: folder + "/boxes.png")
        try assertKept(old, in: folder)
    }
}

/// A tmpfs mounted for one test, filled on demand.
final class TinyDisk {
    let path: String
    private var filler: Int32 = -1

    /// Mounts a tmpfs of `kilobytes` on a new folder.
    /// - Throws: `XCTSkip` where it cannot be mounted (not root, not Linux, not allowed).
    init(kilobytes: Int) throws {
        path = try temporaryFolder().path
        #if os(Linux)
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(kilobytes)k,mode=755") == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: path)
            print("OutputSetTests: skipped, mount -t tmpfs failed: \(reason)")
            throw XCTSkip("a full disk needs a tmpfs, and mount -t tmpfs failed here: \(reason)")
        }
        #else
        throw XCTSkip("a full disk needs a Linux tmpfs")
        #endif
    }

    /// Allocates (not sparse) a filler file so that `pages` pages of 4 KiB stay free.
    func fill(leavingPages pages: Int) throws {
        if filler < 0 { filler = open(path + "/.filler", O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        XCTAssertGreaterThanOrEqual(filler, 0)
        XCTAssertEqual(ftruncate(filler, 0), 0)
        var info = statvfs()
        XCTAssertEqual(statvfs(path, &info), 0)
        let free = Int(info.f_bavail) * Int(info.f_bsize)
        let keep = pages * 4096
        guard free > keep else { return XCTFail("the disk has \(free) bytes free, fewer than the \(keep) to keep") }
        XCTAssertEqual(posix_fallocate(filler, 0, off_t(free - keep)), 0)
        XCTAssertEqual(statvfs(path, &info), 0)
        XCTAssertEqual(Int(info.f_bavail) * Int(info.f_bsize), keep)
    }

    func unmount() {
        if filler >= 0 { close(filler) }
        #if os(Linux)
        umount2(path, Int32(MNT_DETACH))
        #endif
        try? FileManager.default.removeItem(atPath: path)
    }
}

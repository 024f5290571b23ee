import Foundation
import TestSupport
import XCTest

/// No lost file and no hang, whatever a careless user names: an output
/// that is a FIFO, a device or one of the run's inputs is refused (and left
/// as it was), a FIFO given as an input is refused instead of read, a
/// replaced file keeps its permissions, the longest legal names work, and
/// Graphviz never outlives `inspect`. Each run must end with exit 1 and
/// exactly one `error:` line naming the file.
final class OutputSafetyTests: XCTestCase {
    let samples = repositoryRoot.appendingPathComponent("Samples")
    let fixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures")

    func sample(_ name: String) -> String { samples.appendingPathComponent(name).path }

    func ageNet(output: String, deploy: String? = nil, weights: String? = nil, labels: String? = nil) -> [String] {
        ["caffe", deploy ?? sample("deploy_age.prototxt"), weights ?? sample("age_net.caffemodel"), "--image-input", "data",
         "--is-bgr", "--red-bias", "-114.895847746", "--green-bias", "-87.7689143744", "--blue-bias", "-78.4263377603",
         "--class-labels", labels ?? sample("age_labels.txt"), "-o", output]
    }

    func kind(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    /// `-o` a FIFO or a device node (made here, never the machine's own
    /// /dev/null: the tests run as root) is refused before any work.
    func testAnOutputThatIsAFIFOOrADeviceIsRefusedAndKept() throws {
        let folder = try temporaryFolder()
        let fifo = folder.appendingPathComponent("model.mlmodel").path
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        var targets = [(fifo, "a FIFO", S_IFIFO)]
        let device = folder.appendingPathComponent("null.mlmodel").path
        if mknod(device, S_IFCHR | 0o666, 0x103) == 0 { targets.append((device, "a character device", S_IFCHR)) }
        for (target, name, type) in targets {
            try ProgramRunner.assertOneError("coreml-convert", ageNet(output: target), "\(target): is \(name), not a regular file")
            try ProgramRunner.assertOneError("coreml-convert", ["sample", "-o", target], "\(target): is \(name)")
            try ProgramRunner.assertOneError("coreml-inspect", [sample("deploy_age.prototxt"), "--weights", sample("age_net.caffemodel"),
                                          "--graph", "dot", "--graph-output", target], "\(target): is \(name)")
            XCTAssertEqual(kind(target), type, "\(target) is still \(name)")
        }
        let npyFolder = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: npyFolder, withIntermediateDirectories: true)
        let chain = fixtures.appendingPathComponent("runtime/chain_caffe")
        XCTAssertEqual(mkfifo(npyFolder.appendingPathComponent("prob.npy").path, 0o644), 0)
        try ProgramRunner.assertOneError("coreml-predict", [chain.appendingPathComponent("model.mlmodel").path,
                                      "--input", "x=" + chain.appendingPathComponent("input_x.npy").path,
                                      "--output-npy", npyFolder.path], "prob.npy: is a FIFO")
        XCTAssertEqual(kind(npyFolder.appendingPathComponent("prob.npy").path), S_IFIFO)
    }

    /// An output that is one of the run's inputs (by name or through a
    /// link) is refused, and the input stays byte for byte.
    func testAnOutputThatIsAnInputIsRefusedAndTheInputKept() throws {
        let folder = try temporaryFolder()
        func copy(_ source: String, _ name: String) throws -> String {
            let target = folder.appendingPathComponent(name).path
            try FileManager.default.copyItem(atPath: source, toPath: target)
            return target
        }
        let deploy = try copy(sample("deploy_age.prototxt"), "deploy.prototxt")
        let weights = try copy(sample("age_net.caffemodel"), "age.caffemodel")
        let labels = try copy(sample("age_labels.txt"), "labels.txt")
        let link = folder.appendingPathComponent("link.prototxt").path
        XCTAssertEqual(symlink(deploy, link), 0)
        let keras = try copy(fixtures.appendingPathComponent("keras/sequential_classifier/model.h5").path, "k.h5")
        let graph = try copy(fixtures.appendingPathComponent("tensorflow/mobilenet_block/graph.pb").path, "g.pb")
        let model = try copy(fixtures.appendingPathComponent("runtime/chain_caffe/model.mlmodel").path, "m.mlmodel")
        let before = try [deploy, weights, labels, keras, graph, model].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }

        // A model's name ends in .mlmodel: an input by its own name is refused as a usage error.
        for input in [deploy, weights, labels, link] {
            let result = try ProgramRunner.run("coreml-convert", ageNet(output: input, deploy: deploy, weights: weights, labels: labels))
            XCTAssertEqual(result.status, 64, result.standardError)
            XCTAssertTrue(result.standardError.contains("ends in .mlmodel"), result.standardError)
        }
        // Through a .mlmodel name that is the same file (a hard link), or a
        // link given as an input itself (a link that is not an input is
        // replaced, what it points to untouched).
        func aliases(_ input: String) -> [String] {
            let hard = input + "-hard.mlmodel"
            XCTAssertEqual(hardLink(input, hard), 0)
            return [hard]
        }
        for input in [deploy, weights, labels] {
            for alias in aliases(input) {
                try ProgramRunner.assertOneError("coreml-convert", ageNet(output: alias, deploy: deploy, weights: weights, labels: labels),
                                  "\(alias): is an input of this run")
            }
        }
        let linkedDeploy = folder.appendingPathComponent("deploy-link.mlmodel").path
        XCTAssertEqual(symlink(deploy, linkedDeploy), 0)
        try ProgramRunner.assertOneError("coreml-convert", ageNet(output: linkedDeploy, deploy: linkedDeploy, weights: weights, labels: labels),
                          "\(linkedDeploy): is an input of this run")
        try ProgramRunner.assertOneError("coreml-convert", ageNet(output: folder.appendingPathComponent("./deploy.prototxt-hard.mlmodel").path,
                                                   deploy: deploy, weights: weights, labels: labels), "is an input of this run")
        for alias in aliases(keras) {
            try ProgramRunner.assertOneError("coreml-convert", ["keras", keras, "-o", alias], "\(alias): is an input of this run")
        }
        for alias in aliases(graph) {
            try ProgramRunner.assertOneError("coreml-convert", ["tensorflow", graph, "-o", alias], "\(alias): is an input of this run")
        }
        try ProgramRunner.assertOneError("coreml-inspect", [model, "--graph", "dot", "--graph-output", model], "\(model): is an input of this run")

        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let chain = fixtures.appendingPathComponent("runtime/chain_caffe")
        let probInput = try copy(chain.appendingPathComponent("input_x.npy").path, "out/prob.npy")
        let probBefore = try Data(contentsOf: URL(fileURLWithPath: probInput))
        try ProgramRunner.assertOneError("coreml-predict", [model, "--input", "x=" + probInput, "--output-npy", out.path], "prob.npy: is an input of this run")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: probInput)), probBefore)

        let after = try [deploy, weights, labels, keras, graph, model].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        XCTAssertEqual(after, before, "every input byte for byte")
        XCTAssertEqual(kind(link), S_IFLNK)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }, [],
                       "no temporary file")
    }

    /// A FIFO given as an input is refused at once instead of blocking
    /// forever; in a folder of images it is one error line, and the other
    /// images are still predicted.
    func testAFIFOAsAnInputIsRefusedNotRead() throws {
        let folder = try temporaryFolder()
        let fifo = folder.appendingPathComponent("input.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let output = folder.appendingPathComponent("out.mlmodel").path
        try ProgramRunner.assertOneError("coreml-convert", ageNet(output: output, deploy: fifo), "\(fifo): not a regular file (a FIFO)")
        try ProgramRunner.assertOneError("coreml-convert", ageNet(output: output, weights: fifo), "\(fifo): not a regular file (a FIFO)")
        try ProgramRunner.assertOneError("coreml-convert", ageNet(output: output, labels: fifo), "\(fifo): not a regular file (a FIFO)")
        try ProgramRunner.assertOneError("coreml-convert", ["caffe", sample("deploy_age.prototxt"), sample("age_net.caffemodel"), "--image-input", "data",
                                      "--mean-image", fifo, "-o", output], "\(fifo): not a regular file (a FIFO)")
        try ProgramRunner.assertOneError("coreml-convert", ["tensorflow", fifo, "-o", output], "\(fifo): not a regular file (a FIFO)")
        try ProgramRunner.assertOneError("coreml-convert", ["keras", fifo, "-o", output], "\(fifo): not a regular file (a FIFO)")
        try ProgramRunner.assertOneError("coreml-inspect", [fifo], "\(fifo): not a regular file (a FIFO)")
        try ProgramRunner.assertOneError("coreml-predict", [fifo], "\(fifo): not a regular file (a FIFO)")
        let chain = fixtures.appendingPathComponent("runtime/chain_caffe/model.mlmodel").path
        try ProgramRunner.assertOneError("coreml-predict", [chain, "--input", "x=" + fifo], "\(fifo): not a regular file (a FIFO)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))

        // A folder of images with a FIFO (named like an image) and a broken file among them.
        let model = folder.appendingPathComponent("AgeNet.mlmodel").path
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ageNet(output: model)).status, 0)
        let images = folder.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: sample("face.png"), toPath: images.appendingPathComponent("a.png").path)
        XCTAssertEqual(mkfifo(images.appendingPathComponent("b.png").path, 0o644), 0)
        try Data("not an image".utf8).write(to: images.appendingPathComponent("c.jpg"))
        try FileManager.default.copyItem(atPath: sample("face.png"), toPath: images.appendingPathComponent("d.png").path)
        let result = try ProgramRunner.run("coreml-predict", [model, images.path, "--max-results", "1"], timeout: 60)
        XCTAssertEqual(result.status, 1, result.standardError)
        XCTAssertEqual(result.standardError.split(separator: "\n"), [
            "error: \(images.path)/b.png: not a regular file (a FIFO)",
            "error: \(images.path)/c.jpg: not a PNG or JPEG image",
        ])
        XCTAssertEqual(result.standardOutput.split(separator: "\n"), [
            "images: scaleFill to 227x227 (--crop-and-scale; Vision: centerCrop, CoreMLRequest: scaleToFill)",
            "EXIF orientation applied as OpenCV's imread does (Vision: pass it as the handler's orientation)",
            "\(images.path)/a.png", "  15-20  0.3680", "\(images.path)/d.png", "  15-20  0.3680",
        ])
    }

    func testAReplacedOutputKeepsItsPermissions() throws {
        let output = try temporaryFolder().appendingPathComponent("private.mlmodel").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: output))
        XCTAssertEqual(chmod(output, 0o600), 0)
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ["sample", "-o", output]).status, 0)
        var info = stat()
        XCTAssertEqual(stat(output, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
    }

    /// File names up to NAME_MAX (255 bytes) work: the temporary name next
    /// to the output is shortened to fit.
    func testTheLongestLegalOutputNameWorks() throws {
        let folder = try temporaryFolder()
        for length in [252, 255] {
            let name = String(repeating: "m", count: length - ".mlmodel".count) + ".mlmodel"
            let result = try ProgramRunner.run("coreml-convert", ["sample", "-o", folder.appendingPathComponent(name).path])
            XCTAssertEqual(result.status, 0, result.standardError)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).count, 2)
    }

    /// A stand-in for Graphviz's dot that never finishes, and writes its
    /// pid where the test can see it.
    func slowDot(in folder: URL) throws -> (path: String, pidFile: String) {
        let bin = folder.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let pidFile = folder.appendingPathComponent("dot.pid").path
        let script = "#!/bin/sh\necho $$ > \(pidFile)\nexec sleep 600\n"
        let dot = bin.appendingPathComponent("dot").path
        try script.write(toFile: dot, atomically: false, encoding: .utf8)
        XCTAssertEqual(chmod(dot, 0o755), 0)
        return (bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"), pidFile)
    }

    func isAlive(_ pidFile: String) -> Bool {
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return false }
        // A zombie would still answer kill(0); /proc says whether it still runs.
        let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ").dropFirst(2).first
        return kill(pid, 0) == 0 && state != "Z"
    }

    /// `--graph svg` stops Graphviz after --graph-timeout, says what to do
    /// instead, and leaves no dot running.
    func testGraphvizIsStoppedAfterItsTime() throws {
        let folder = try temporaryFolder()
        let (path, pidFile) = try slowDot(in: folder)
        let start = Date()
        let result = try ProgramRunner.run("coreml-inspect", [fixtures.appendingPathComponent("runtime/chain_caffe/model.mlmodel").path,
                                                       "--graph", "svg", "--graph-output", "-", "--graph-timeout", "1"], environment: ["PATH": path])
        XCTAssertLessThan(Date().timeIntervalSince(start), 30)
        XCTAssertEqual(result.status, 1, result.standardError)
        XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, result.standardError)
        XCTAssertTrue(result.standardError.contains("took over 1 s") && result.standardError.contains("--graph dot"), result.standardError)
        XCTAssertFalse(isAlive(pidFile), "dot was killed")
        // A time no one means (it once trapped converting to milliseconds): a usage error.
        let model = fixtures.appendingPathComponent("runtime/chain_caffe/model.mlmodel").path
        for timeout in ["1e300", "0", "-5", "nan"] {
            XCTAssertEqual(try ProgramRunner.run("coreml-inspect", [model, "--graph", "svg", "--graph-output", "-", "--graph-timeout", timeout]).status, 64, timeout)
        }
    }

    /// SIGTERM (or SIGINT, SIGHUP) to `inspect` while Graphviz runs: dot is
    /// killed too, and inspect ends by the signal, as a shell expects.
    func testASignalToInspectKillsGraphviz() throws {
        for signal in [SIGTERM, SIGINT, SIGHUP] {
            let folder = try temporaryFolder()
            let (path, pidFile) = try slowDot(in: folder)
            let process = Process()
            process.executableURL = ProgramRunner.productsDirectory.appendingPathComponent("coreml-inspect")
            process.arguments = [fixtures.appendingPathComponent("runtime/chain_caffe/model.mlmodel").path, "--graph", "svg", "--graph-output", "-"]
            process.environment = ProcessInfo.processInfo.environment.merging(["PATH": path]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(30)
            while !isAlive(pidFile) && Date() < deadline { usleep(10_000) }
            XCTAssertTrue(isAlive(pidFile), "dot started")
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal)
            XCTAssertEqual(process.terminationStatus, signal)
            usleep(100_000)
            XCTAssertFalse(isAlive(pidFile), "dot was killed with inspect (signal \(signal))")
        }
    }
}

/// link(2), under a name no local variable shadows.
private func hardLink(_ existing: String, _ new: String) -> Int32 {
    link(existing, new)
}

import Foundation
import TestSupport
import XCTest

/// `coreml-convert --convert-to mlprogram`: what goes with it, and a
/// package written from README's first command. (What the program holds and
/// computes: MLProgramWriterTests, scripts/verify/mlprogram.sh.)
final class ConvertProgramTests: XCTestCase {
    let root = repositoryRoot.path + "/"
    var ageNet: [String] {
        ["caffe", root + "Samples/deploy_age.prototxt", root + "Samples/age_net.caffemodel", "--image-input", "data", "--is-bgr",
         "--red-bias", "-114.895847746", "--green-bias", "-87.7689143744", "--blue-bias", "-78.4263377603",
         "--class-labels", root + "Samples/age_labels.txt"]
    }

    /// --quantize-weights with --convert-to mlprogram: iOS 16's constexpr operations (specification 7), the
    /// fidelity report on the package; what a program cannot hold refused before any work.
    func testQuantizedWeightsBecomeConstexprOperations() throws {
        let package = try temporaryFolder().appendingPathComponent("AgeNet.mlpackage").path
        let result = try ProgramRunner.run("coreml-convert", ageNet + ["--convert-to", "mlprogram", "--quantize-weights", "4",
                                                                       "--quantization", "kmeans-lut", "-o", package])
        XCTAssertEqual(result.status, 0, result.standardError)
        for fragment in ["Format:       ML Program, specification version 7, opset CoreML6\n", "constexpr_lut_to_dense 3",
                         "(specification 7 for its compressed weights (constexpr operations)", "4-bit lookup table: 30,592",
                         "Fidelity:     float32 -> 4-bit lookup table"] {
            XCTAssertTrue(result.standardOutput.contains(fragment), fragment + " not in:\n" + result.standardOutput)
        }
        for (arguments, message) in [
            (["--quantize-weights", "5"], "a program holds linear quantization in 8 bits, or 4 (iOS 18's constexpr_blockwise_shift_scale), not 5"),
            (["--quantize-weights", "5", "--quantization", "linear-lut"], "holds 1, 2, 3 (iOS 18), 4, 6 or 8 bits, not 5"),
            (["--quantize-weights", "8", "--minimum-deployment-target", "iOS15"], "compressed weights (--quantize-weights) as asked are iOS 16's"),
            (["--quantize-weights", "4", "--minimum-deployment-target", "iOS17"], "as asked are iOS 18's constexpr operations"),
            (["--quantize-weights", "8", "--block-size", "32", "--minimum-deployment-target", "macOS14"], "name iOS 18, macOS 15"),
            (["--quantize-weights", "4", "--quantization", "kmeans-lut", "--block-size", "32"], "a lookup table is shared by groups"),
            (["--quantize-weights", "4", "--group-size", "16"], "linear quantization has blocks"),
            (["--quantize-weights", "4", "--block-size", "0"], "--block-size takes a number of values from 1 to 1048576, not '0'"),
            (["--quantize-weights", "4", "--block-size", "9223372036854775807"], "not '9223372036854775807'"),
            (["--quantize-weights", "4", "--block-size", "32", "--group-size", "16"], "--block-size and --group-size: choose one"),
            (["--block-size", "32"], "--block-size is a compressed ML program's"),
            (["--precision", "float16"], "--precision is a NeuralNetwork's"),
        ] {
            let refused = try ProgramRunner.run("coreml-convert", ageNet + ["--convert-to", "mlprogram", "-o", package] + arguments)
            XCTAssertEqual(refused.status, 64, refused.standardError)
            XCTAssertTrue(refused.standardError.hasPrefix("error: ") && refused.standardError.contains(message), refused.standardError)
        }
    }

    func testReadmesFirstModelBecomesAPackage() throws {
        let folder = try temporaryFolder()
        let package = folder.appendingPathComponent("AgeNet.mlpackage").path
        let result = try ProgramRunner.run("coreml-convert", ageNet + ["--convert-to", "mlprogram", "-o", package])
        XCTAssertEqual(result.status, 0, result.standardError)
        // float16: coremltools' default; then the summary of the package as written, read back before it was renamed into place.
        XCTAssertTrue(result.standardOutput.hasPrefix("Wrote \(package) (ML Program computing in float16)\nFormat:       ML Program"),
                      result.standardOutput)
        for fragment in ["Program:      computes in float16 (float32 inputs and outputs)\n", "Labels:       8 (0-2, 4-6, 8-13, 15-20, 25-32, 38-43, 48-53, 60)\n"] {
            XCTAssertTrue(result.standardOutput.contains(fragment), fragment + " not in:\n" + result.standardOutput)
        }
        for file in ["Manifest.json", "Data/com.apple.CoreML/model.mlmodel", "Data/com.apple.CoreML/weights/weight.bin"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: package + "/" + file), file)
        }

        // --json: inspect --json's document of the package.
        let json = try ProgramRunner.run("coreml-convert", ageNet + ["--convert-to", "mlprogram", "--json", "-o", package])
        XCTAssertEqual(json.status, 0, json.standardError)
        let document = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
        XCTAssertEqual((document?["format"] as? [String: Any])?["id"] as? String, "mlprogram")
        XCTAssertEqual(document?["file"] as? String, package)
        XCTAssertEqual((document?["program"] as? [String: Any])?["computePrecision"] as? String, "float16")
    }

    /// age_net in Caffe's V1 format (ceil-rounded max pooling, LRN, BGR
    /// biases, labels) as a package, read back and run by coreml-predict:
    /// OpenCV dnn's probabilities for the same files (the fixture's).
    func testAPackageIsPredictedAsOpenCVComputesIt() throws {
        let age = repositoryRoot.appendingPathComponent("Tests/Fixtures/caffe/age_net_v1")
        let folder = try temporaryFolder()
        let package = folder.appendingPathComponent("Age.mlpackage").path
        let converted = try ProgramRunner.run("coreml-convert", [
            "caffe", age.appendingPathComponent("deploy.prototxt").path, age.appendingPathComponent("weights.caffemodel").path,
            "--image-input", "data", "--is-bgr", "--red-bias", "-114.895847746", "--green-bias", "-87.7689143744", "--blue-bias", "-78.4263377603",
            "--class-labels", age.appendingPathComponent("labels.txt").path, "--convert-to", "mlprogram", "--compute-precision", "float32",
            "-q", "-o", package])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        let out = folder.appendingPathComponent("out")
        let predicted = try ProgramRunner.run("coreml-predict", [package, age.appendingPathComponent("input.png").path, "--output-npy", out.path])
        XCTAssertEqual(predicted.status, 0, predicted.standardError)
        let reference = try readFloat32Npy(age.appendingPathComponent("output_prob.npy"))
        let ours = try readFloat32Npy(out.appendingPathComponent("classLabelProbs.npy"))
        XCTAssertEqual(ours.count, reference.count)
        for (a, b) in zip(ours, reference) { XCTAssertLessThanOrEqual(abs(a - b), 1e-4 * max(1, abs(b))) }
        let labels = try ProgramRunner.run("coreml-predict", [package, age.appendingPathComponent("input.png").path, "--max-results", "1"])
        XCTAssertTrue(labels.standardOutput.contains("15-20"), labels.standardOutput)
    }

    /// The same package computing in float16 (the default): OpenCV's
    /// float32 probabilities within k * 2^-11 (run_mlprogram_torch.py's
    /// norm-wise bound k * 2^-11 * max(1, max |ref|) for values <= 1), 2^-11
    /// being float16's unit roundoff and k = 27 the program's operations
    /// with float16 outputs (the input's cast, the preprocessing add, 17
    /// layers, 8 reshapes, which round nothing), as run_mlprogram_torch.py
    /// counts them and states the bound; and not the float32 package's
    /// values, which they would be if float16 compute were not emulated.
    func testAFloat16PackageIsPredictedWithinFloat16sPrecision() throws {
        let age = repositoryRoot.appendingPathComponent("Tests/Fixtures/caffe/age_net_v1")
        let folder = try temporaryFolder()
        var outputs: [[Float]] = []
        for precision in ["float16", "float32"] {
            let package = folder.appendingPathComponent("Age\(precision).mlpackage").path
            let converted = try ProgramRunner.run("coreml-convert", [
                "caffe", age.appendingPathComponent("deploy.prototxt").path, age.appendingPathComponent("weights.caffemodel").path,
                "--image-input", "data", "--is-bgr", "--red-bias", "-114.895847746", "--green-bias", "-87.7689143744", "--blue-bias", "-78.4263377603",
                "--class-labels", age.appendingPathComponent("labels.txt").path, "--convert-to", "mlprogram", "--compute-precision", precision,
                "-q", "-o", package])
            XCTAssertEqual(converted.status, 0, converted.standardError)
            let out = folder.appendingPathComponent("out\(precision)")
            let predicted = try ProgramRunner.run("coreml-predict", [package, age.appendingPathComponent("input.png").path, "--output-npy", out.path])
            XCTAssertEqual(predicted.status, 0, predicted.standardError)
            outputs.append(try readFloat32Npy(out.appendingPathComponent("classLabelProbs.npy")))
        }
        let reference = try readFloat32Npy(age.appendingPathComponent("output_prob.npy"))
        let bound = 27 * Float(pow(2.0, -11.0))
        XCTAssertEqual(outputs[0].count, reference.count)
        for (a, b) in zip(outputs[0], reference) { XCTAssertLessThanOrEqual(abs(a - b), bound * max(1, abs(b))) }
        XCTAssertNotEqual(outputs[0], outputs[1], "the float16 package computes as the float32 one")
        XCTAssertTrue(outputs[0].allSatisfy { Float(Float16($0)) == $0 }, "the probabilities are float16 values, as the program's softmax gives them")
    }

    /// coreml-inspect on a package: the program's format, the systems that
    /// run ML Programs (coremltools' iOS15 target), its compute precision,
    /// its operations (age_net's prototxt has 3 convolutions and 2 LRNs)
    /// and its weight file's size as the file system has it.
    func testAPackageIsInspected() throws {
        let folder = try temporaryFolder()
        let package = folder.appendingPathComponent("AgeNet.mlpackage").path
        let converted = try ProgramRunner.run("coreml-convert", ageNet + ["--convert-to", "mlprogram", "-q", "-o", package])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        let inspected = try ProgramRunner.run("coreml-inspect", [package])
        XCTAssertEqual(inspected.status, 0, inspected.standardError)
        let text = inspected.standardOutput
        let weightBytes = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: package + "/Data/com.apple.CoreML/weights/weight.bin")[.size] as? Int)
        for fragment in ["Format:       ML Program, specification version 6, opset CoreML5\n",
                         "Loads on:     iOS 15, macOS 12, tvOS 15, watchOS 8\n", "computes in float16 (float32 inputs and outputs)",
                         " conv 3,", " local_response_norm 2,", " classify 1", "Labels:       8 (",
                         "weights/weight.bin: \(weightBytes.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))) bytes",
                         "(float16, "] {
            XCTAssertTrue(text.contains(fragment), "\(fragment) not in:\n\(text)")
        }
    }

    /// Array inputs and outputs are float32 in a package's description, as
    /// the program's function takes and gives them (and as coremltools
    /// writes them); a NeuralNetwork's are doubles.
    func testAPackagesArraysAreFloat32() throws {
        let folder = try temporaryFolder()
        let package = folder.appendingPathComponent("AgeNet.mlpackage").path
        let converted = try ProgramRunner.run("coreml-convert", Array(ageNet[0...2]) + ["--convert-to", "mlprogram", "-q", "-o", package])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        let text = try ProgramRunner.run("coreml-inspect", [package]).standardOutput
        XCTAssertTrue(text.contains("data: multiarray<float32,[3,227,227]>"), text)
        XCTAssertTrue(text.contains("prob: multiarray<float32,[8]>"), text)
        XCTAssertFalse(text.contains("double"), text)
    }

    func testWhatMustGoWithItIsAUsageError() throws {
        let folder = try temporaryFolder()
        let package = folder.path + "/AgeNet.mlpackage"
        let cases: [([String], String)] = [
            (["--convert-to", "mlprogram", "--compute-precision", "float8", "-o", package], "--compute-precision takes float32 or float16, not 'float8'"),
            (["--convert-to", "mlprogram", "--compute-precision", "float32", "-o", folder.path + "/AgeNet.mlmodel"], "--convert-to mlprogram writes an .mlpackage folder"),
            (["--convert-to", "mlprogram", "--compute-precision", "float32", "--precision", "float16", "-o", package], "an ML program stores its weights as it computes"),
            (["--compute-precision", "float32", "-o", folder.path + "/AgeNet.mlmodel"], "--compute-precision float32 is an ML program's"),
            (["--convert-to", "mlprogramm", "-o", package], "--convert-to takes neuralnetwork or mlprogram, not 'mlprogramm'"),
            // coremltools' spelling ml_program is a program's for --block-size too (was: "--block-size is a compressed ML program's").
            (["--convert-to", "ml_program", "--quantize-weights", "4", "--block-size", "0", "-o", package], "--block-size takes a number of values from 1 to 1048576, not '0'"),
            // Targets as coremltools takes them: a program from iOS 15 on, a NeuralNetwork before it.
            (["--convert-to", "mlprogram", "--minimum-deployment-target", "iOS13", "-o", package],
             "an ML program (--convert-to mlprogram) loads on iOS 15, macOS 12, tvOS 15, watchOS 8 and later"),
            (["--minimum-deployment-target", "macOS12", "-o", folder.path + "/AgeNet.mlmodel"],
             "from iOS 15, macOS 12, tvOS 15, watchOS 8 on, a model is an ML program (as coremltools requires): add --convert-to mlprogram"),
            (["--minimum-deployment-target", "watchOS11", "-o", folder.path + "/AgeNet.mlmodel"], "a model is an ML program"),
        ]
        for (options, fragment) in cases {
            try ProgramRunner.assertOneError("coreml-convert", ageNet + options, fragment, status: 64)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
    }

    /// --generate-classes with a package: the classes coreml-generate writes for it, next to it; a class file's place
    /// taken by a folder is one error line before any work, and nothing is written.
    func testAPackageAndItsClassesAreWrittenTogether() throws {
        let folder = try temporaryFolder()
        let package = folder.appendingPathComponent("AgeNet.mlpackage").path
        let result = try ProgramRunner.run("coreml-convert", ageNet + ["--convert-to", "mlprogram", "--generate-classes", "-o", package])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.hasSuffix("Wrote \(folder.path)/AgeNet.swift\n"), result.standardOutput)
        let written = try String(contentsOfFile: folder.path + "/AgeNet.swift", encoding: .utf8)
        let generated = try ProgramRunner.run("coreml-generate", [package, folder.path + "/generated"])
        XCTAssertEqual(generated.status, 0, generated.standardError)
        XCTAssertEqual(written, try String(contentsOfFile: folder.path + "/generated/AgeNet.swift", encoding: .utf8))
        XCTAssertTrue(written.contains("// Generated by coreml-generate from AgeNet.mlpackage (Core ML specification 6)."), written)

        let other = try temporaryFolder()
        try FileManager.default.createDirectory(atPath: other.path + "/AgeNet.swift", withIntermediateDirectories: false)
        try ProgramRunner.assertOneError("coreml-convert", ageNet + ["--convert-to", "mlprogram", "--generate-classes", "-o", other.path + "/AgeNet.mlpackage"],
                                         "AgeNet.swift")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: other.path), ["AgeNet.swift"])
    }

    /// --minimum-deployment-target iOS15 (or tvOS15, ...) is an ML
    /// program's own target: written at specification 6.
    func testTheFirstProgramTargetIsAccepted() throws {
        let folder = try temporaryFolder()
        for target in ["iOS15", "tvos15", "macOS12"] {
            let package = folder.appendingPathComponent("\(target).mlpackage").path
            let result = try ProgramRunner.run("coreml-convert", ageNet + ["--convert-to", "mlprogram", "--minimum-deployment-target", target, "-o", package])
            XCTAssertEqual(result.status, 0, result.standardError)
            XCTAssertTrue(result.standardOutput.contains("(ML Program computing in float16)"), result.standardOutput)
        }
    }

    /// iOS 18's compression: 4-bit symmetric levels per block of 8 input values (constexpr_blockwise_shift_scale), and
    /// 4-bit tables per 32 output channels, which leave the sample's convolutions of 16 channels float, as coremltools
    /// leaves them, and say so. (What they compute: ProgramCompressionTests, scripts/verify/mlprogram_compressed.sh.)
    func testIOS18CompressionIsWrittenAndWhatStaysFloatIsNamed() throws {
        let folder = try temporaryFolder()
        let blocks = try ProgramRunner.run("coreml-convert", ageNet + ["--convert-to", "mlprogram", "--quantize-weights", "4", "--quantization",
                                                                       "linear-symmetric", "--block-size", "8", "-o", folder.path + "/B.mlpackage"])
        XCTAssertEqual(blocks.status, 0, blocks.standardError)
        for fragment in ["Format:       ML Program, specification version 9, opset CoreML8\n", "constexpr_blockwise_shift_scale 3",
                         "(specification 9 for its compressed weights (constexpr operations) in an ML Program", "Parameters:   33,160 (4-bit linear: 30,592"] {
            XCTAssertTrue(blocks.standardOutput.contains(fragment), fragment + " not in:\n" + blocks.standardOutput)
        }
        XCTAssertFalse(blocks.standardOutput.contains("Kept float"), blocks.standardOutput)
        let groups = try ProgramRunner.run("coreml-convert", ageNet + ["--convert-to", "mlprogram", "--quantize-weights", "4", "--quantization",
                                                                       "kmeans-lut", "--group-size", "32", "-o", folder.path + "/G.mlpackage"])
        XCTAssertEqual(groups.status, 0, groups.standardError)
        let unwrapped = groups.standardOutput.replacingOccurrences(of: "\n              ", with: " ")  // the summary's continuation lines
        for fragment in ["constexpr_lut_to_dense 1", "Kept float:   2 weight tensors of 2048 values or more that groups of 32 output channels "
                         + "(axis 0) do not divide, as coremltools leaves them: conv2 weights [16, 8, 5, 5], conv3 weights [16, 16, 3, 3]"] {
            XCTAssertTrue(unwrapped.contains(fragment), fragment + " not in:\n" + groups.standardOutput)
        }
    }

    /// iOS 16 and 17 (and their other systems) are written at their own specification and opset, compressed or not:
    /// the operations are the same (ProgramOptions; coremltools' loader type-checks them by each opset's definitions in
    /// scripts/verify/mlprogram_sweep.sh and mlprogram_compressed.sh with SPECIFICATION=8).
    func testLaterProgramTargetsAreWrittenAtTheirOwnOpset() throws {
        let folder = try temporaryFolder()
        for (target, quantize, format) in [("iOS16", false, "specification version 7, opset CoreML6"),
                                           ("macOS14", false, "specification version 8, opset CoreML7"),
                                           ("iOS17", true, "specification version 8, opset CoreML7")] {
            let package = folder.appendingPathComponent("\(target)\(quantize).mlpackage").path
            let result = try ProgramRunner.run("coreml-convert", ageNet + ["--convert-to", "mlprogram", "--minimum-deployment-target", target, "-o", package]
                                               + (quantize ? ["--quantize-weights", "8"] : []))
            XCTAssertEqual(result.status, 0, result.standardError)
            XCTAssertTrue(result.standardOutput.contains("Format:       ML Program, \(format)\n"), result.standardOutput)
            XCTAssertFalse(result.standardOutput.contains(" layers)"), result.standardOutput)  // was "for its 0 ML Program model in ... layers"
            XCTAssertEqual(result.standardOutput.contains("constexpr_affine_dequantize 3"), quantize, result.standardOutput)
        }
    }

    /// An argmax over 3,000 channels computing in float16 (its indices above 2,048 would round) is refused by name and
    /// nothing is written; at float32 it is written. (What it computes: the Caffe sweep's argmax case, as programs.)
    func testALayerNotWrittenYetIsNamedAndNothingIsWritten() throws {
        let sources = try temporaryFolder(), folder = try temporaryFolder()
        let deploy = sources.appendingPathComponent("deploy.prototxt"), weights = sources.appendingPathComponent("weights.caffemodel")
        try Data("""
            layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 3000 dim: 1 dim: 1 } } }
            layer { name: "best" type: "ArgMax" bottom: "data" top: "best" argmax_param { axis: 1 } }
            """.utf8).write(to: deploy)
        // A NetParameter holding one layer named "best" (field 100, its name field 1): the weights of a net that has none.
        try Data([0xA2, 0x06, 0x06, 0x0A, 0x04] + Array("best".utf8)).write(to: weights)
        try ProgramRunner.assertOneError("coreml-convert", ["caffe", deploy.path, weights.path, "--convert-to", "mlprogram", "-o", folder.path + "/Wide.mlpackage"],
                                         "layer 'best': --convert-to mlprogram does not yet write an argmax over 3000 values at float16 compute precision")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])

        let package = folder.appendingPathComponent("Wide32.mlpackage").path
        let result = try ProgramRunner.run("coreml-convert", ["caffe", deploy.path, weights.path, "--convert-to", "mlprogram",
                                                              "--compute-precision", "float32", "-o", package])
        XCTAssertEqual(result.status, 0, result.standardError)
        let inspected = try ProgramRunner.run("coreml-inspect", [package])
        XCTAssertTrue(inspected.standardOutput.contains("reduce_argmax 1"), inspected.standardOutput)
    }
}

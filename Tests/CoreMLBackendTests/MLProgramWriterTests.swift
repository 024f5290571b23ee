import CoreMLBackend
import FileIO
import Foundation
import ModelFormat
import TestSupport
import XCTest

/// The ML Program package's layout and weight file as Core ML defines them
/// (ModelPackage.cpp's manifest, MILBlob's StorageFormat.hpp), its atomic
/// writing, and what the first slice refuses. What the program computes is
/// checked by scripts/verify/mlprogram.sh (coremltools, Core ML's blob
/// reader, PyTorch against the frameworks' outputs).
final class MLProgramWriterTests: XCTestCase {
    func testThePackageHoldsTheManifestModelAndWeightsInMILBlobStorage() throws {
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("Sample.mlpackage").path
        let model = SampleModel.classifier()
        try MLProgramWriter.write(model, to: path)

        let manifestData = try Data(contentsOf: URL(fileURLWithPath: path + "/Manifest.json"))
        let manifest = try XCTUnwrap(JSONSerialization.jsonObject(with: manifestData) as? [String: Any])
        XCTAssertEqual(manifest["fileFormatVersion"] as? String, "1.0.0")
        let entries = try XCTUnwrap(manifest["itemInfoEntries"] as? [String: [String: String]])
        let root = try XCTUnwrap(entries[try XCTUnwrap(manifest["rootModelIdentifier"] as? String)])
        XCTAssertEqual(root["path"], "com.apple.CoreML/model.mlmodel")
        XCTAssertEqual(root["author"], "com.apple.CoreML")
        XCTAssertEqual(Set(entries.values.compactMap { $0["path"] }), ["com.apple.CoreML/model.mlmodel", "com.apple.CoreML/weights"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "/Data/com.apple.CoreML/model.mlmodel"))

        // StorageFormat.hpp: header {count u32, version u32 = 2, reserved}, 64 bytes; per blob a 64-byte metadata record
        // {sentinel 0xDEADBEEF, data type (Float32 = 2), size u64, data offset u64}, data at the next 64-byte boundary.
        let blob = try Data(contentsOf: URL(fileURLWithPath: path + "/Data/com.apple.CoreML/weights/weight.bin"))
        func u32(_ offset: Int) -> UInt32 { blob[offset..<offset + 4].enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * $1.offset) } }
        func u64(_ offset: Int) -> UInt64 { blob[offset..<offset + 8].enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * $1.offset) } }
        // The sample's convolution (1176) and inner-product (50176) weights are blobs; its 8-value biases are inline.
        XCTAssertEqual(u32(0), 2)
        XCTAssertEqual(u32(4), 2)
        guard case .convolution(let convolution) = model.nodes[0].operation, case .innerProduct(let product) = model.nodes[4].operation else {
            return XCTFail("the sample's layers moved")
        }
        var metadata = 64, end = 0
        for weights in [convolution.weights, product.weights] {
            XCTAssertEqual(u32(metadata), 0xDEAD_BEEF)
            XCTAssertEqual(u32(metadata + 4), 2)
            XCTAssertEqual(u64(metadata + 8), UInt64(weights.count * 4))
            let data = Int(u64(metadata + 16))
            XCTAssertEqual(data, metadata + 64)
            let stored = blob[data..<data + weights.count * 4].withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            XCTAssertEqual(stored, weights.values)
            end = data + weights.count * 4
            metadata = (end + 63) / 64 * 64
        }
        XCTAssertEqual(blob.count, end, "the file ends with the last blob's data, unpadded, as StorageWriter writes it")
    }

    func testAnExistingPackageIsReplacedWholeAndAnyOtherFolderNever() throws {
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("M.mlpackage").path
        try MLProgramWriter.write(SampleModel.classifier(), to: path)
        try Data("stale".utf8).write(to: URL(fileURLWithPath: path + "/stale.txt"))
        try MLProgramWriter.write(SampleModel.classifier(), to: path + "/")  // the folder, named as a shell completes it
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "/stale.txt"), "the old package was merged, not replaced")
        XCTAssertTrue(MLProgramWriter.isPackage(path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["M.mlpackage"], "a temporary folder was left")

        let other = folder.appendingPathComponent("Photos.mlpackage").path
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: other + "/keep.txt"))
        XCTAssertThrowsError(try MLProgramWriter.write(SampleModel.classifier(), to: other)) { error in
            XCTAssertTrue("\(error)".contains("is a folder that is not a model package"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: other), ["keep.txt"])

        let input = path + "/Data/com.apple.CoreML/model.mlmodel"
        XCTAssertThrowsError(try MLProgramWriter.write(SampleModel.classifier(), to: path, inputs: [input])) { error in
            XCTAssertTrue("\(error)".contains("holds an input of this run"), "\(error)")
        }
    }

    func testWhatTheSliceDoesNotWriteIsRefusedByNameAndLeavesNothing() throws {
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("Refused.mlpackage").path
        var normalized = SampleModel.classifier()
        normalized.nodes.append(Node("norm", .reduce(Reduce(mode: .argmax, axes: [-2, -1])), input: "relu1"))
        normalized.outputs = [Output(name: "norm")]
        var overflowing = SampleModel.classifier()
        overflowing.nodes.insert(Node("big", .multiply(constant: 70000), input: "relu1"), at: 2)
        overflowing.nodes[3].inputs = ["big"]
        // A weight beyond float16's range in a blob (refused as it is cast, while the weight file is written).
        var heavy = SampleModel.classifier()
        guard case .convolution(var convolution) = heavy.nodes[0].operation else { return XCTFail("the sample's layers moved") }
        var weights = convolution.weights.values
        weights[weights.count - 1] = -70000
        convolution.weights = Weights(weights)
        heavy.nodes[0].operation = .convolution(convolution)
        let cases: [(String, Model, Precision, String)] = [
            ("argmax over two axes", normalized, .float32, "layer 'norm': MLProgramWriter does not yet write an argmax over 2 axes"),
            ("float16 overflow", overflowing, .float16, "constant 'big_constant': a value beyond float16's range (65504)"),
            ("float16 overflow in a blob", heavy, .float16, "_weight': a value beyond float16's range (65504)"),
            ("quantized", SampleModel.classifier(), .quantized(bits: 8, .linear), "computes in float32 or float16, not 8-bit linear"),
        ]
        for (what, model, precision, fragment) in cases {
            XCTAssertThrowsError(try MLProgramWriter.write(model, to: path, computePrecision: precision), what) { error in
                XCTAssertTrue("\(error)".contains(fragment), "\(what): \(error)")
            }
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "\(what): something was written")
        }
    }

    /// Computing in float16 (coremltools' FP16ComputePrecision for iOS 15):
    /// the weights are float16 blobs (MILBlob's data type 1) of the values
    /// rounded to nearest, and they read back as those values.
    func testAFloat16PackageStoresFloat16BlobsAndReadsBackAsComputingInFloat16() throws {
        let path = try temporaryFolder().appendingPathComponent("Half.mlpackage").path
        let model = SampleModel.classifier()
        try MLProgramWriter.write(model, to: path, computePrecision: .float16)
        guard case .convolution(let convolution) = model.nodes[0].operation else { return XCTFail("the sample's layers moved") }
        let blob = try Data(contentsOf: URL(fileURLWithPath: path + "/Data/com.apple.CoreML/weights/weight.bin"))
        func u32(_ offset: Int) -> UInt32 { blob[offset..<offset + 4].enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * $1.offset) } }
        XCTAssertEqual(u32(64 + 4), 1, "BlobDataType::Float16")
        XCTAssertEqual(u32(64 + 8), UInt32(convolution.weights.count * 2))
        let data = Int(u32(64 + 16))
        let stored = blob[data..<data + convolution.weights.count * 2].withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        XCTAssertEqual(stored, convolution.weights.values.map { Float16($0).bitPattern })

        let read = try MLProgramReader.read(from: path).model
        XCTAssertTrue(read.computesInFloat16)
        guard case .convolution(let back) = read.nodes[0].operation else { return XCTFail("no convolution read back") }
        XCTAssertEqual(back.weights.values, convolution.weights.values.map { Float(Float16($0)) })
    }

    /// Upsampling as iOS15's upsample_nearest_neighbor and
    /// upsample_bilinear (align_corners: the IR's alignCorners, else
    /// half-pixel centers), and as resize_bilinear to the output's size
    /// (Core ML's legacy alignment, i / s, which neither of those samples
    /// at, and fractional factors) reads back as the same nodes.
    func testUpsamplingReadsBack() throws {
        var model = SampleModel.classifier()
        model.nodes += [
            Node("up_nearest", .upsample(Upsample(scale: Size2(2, 3))), input: "relu1"),
            Node("up_corners", .upsample(Upsample(scale: Size2(2, 2), mode: .bilinear, alignment: .alignCorners)), input: "up_nearest"),
            Node("up_half", .upsample(Upsample(scale: Size2(1, 2), mode: .bilinear, alignment: .halfPixel)), input: "up_corners"),
        ]
        model.outputs = [Output(name: "up_half")]
        let path = try temporaryFolder().appendingPathComponent("Up.mlpackage").path
        try MLProgramWriter.write(model, to: path)
        let read = try MLProgramReader.read(from: path).model
        let upsamples = read.nodes.compactMap { node -> Upsample? in
            if case .upsample(let upsample) = node.operation { return upsample }
            return nil
        }
        XCTAssertEqual(upsamples, model.nodes.suffix(3).compactMap { node -> Upsample? in
            if case .upsample(let upsample) = node.operation { return upsample }
            return nil
        })
        XCTAssertNoThrow(try read.validate())

        let resized = [Upsample(scale: Size2(2, 3), mode: .bilinear, alignment: .legacy),
                       Upsample(scale: Size2(1, 1), mode: .bilinear, alignment: .alignCorners, fractionalScale: [1.5, 2.25]),
                       Upsample(scale: Size2(1, 1), mode: .bilinear, alignment: .halfPixel, fractionalScale: [1.25, 3])]
        for upsample in resized {
            model.nodes[model.nodes.count - 1].operation = .upsample(upsample)
            try MLProgramWriter.write(model, to: path)
            let file = try MLProgramReader.read(from: path)
            XCTAssertEqual(file.program?.operationCounts.first { $0.type == "resize_bilinear" }?.count, 1, "\(upsample)")
            XCTAssertEqual(file.model.nodes.last?.operation, .upsample(upsample))
        }
    }

    /// pad, crop, transpose, maximum, minimum and a deconvolution (its
    /// explicit pads as conv_transpose's custom ones) read back as the nodes
    /// they were written from; the average as the sum times 1/n; a crop
    /// to another input's size as the fixed edges it leaves.
    func testLayoutAndElementwiseOperationsReadBack() throws {
        var model = SampleModel.classifier()
        let reflect = Padding(kind: .reflection, edges: Edges(top: 1, bottom: 2, left: 2, right: 1))
        model.nodes += [
            Node("pad", .padding(reflect), input: "relu1"),
            Node("crop", .crop(.edges(Edges(top: 2, bottom: 1, left: 1, right: 2))), input: "pad"),
            Node(name: "high", operation: .maximum, inputs: ["relu1", "crop"], outputs: ["high"]),
            Node(name: "low", operation: .minimum, inputs: ["high", "crop"], outputs: ["low"]),
            Node(name: "mean", operation: .average, inputs: ["high", "low", "crop"], outputs: ["mean"]),
            Node("swap", .permute(axes: [0, 1, 3, 2]), input: "mean"),
        ]
        let deconvolution = Convolution(outputChannels: 4, kernelChannels: 8, kernel: Size2(square: 3), stride: Size2(square: 2),
                                        padding: .explicit(Edges(top: 1, bottom: 1, left: 0, right: 2)), isDeconvolution: true,
                                        weights: Weights((0..<288).map { Float($0) / 288 }), bias: Weights([0.1, 0.2, 0.3, 0.4]))
        model.nodes.append(Node("deconv", .convolution(deconvolution), input: "relu1"))
        model.outputs = [Output(name: "swap"), Output(name: "deconv")]
        let path = try temporaryFolder().appendingPathComponent("Layout.mlpackage").path
        try MLProgramWriter.write(model, to: path)
        let read = try MLProgramReader.read(from: path).model
        let added = read.nodes.drop { $0.name != "pad" }.map(\.operation)
        XCTAssertEqual(added, [.padding(reflect), .crop(.edges(Edges(top: 2, bottom: 1, left: 1, right: 2))), .maximum, .minimum,
                               .add(constant: 0), .add(constant: 0), .scale(Scale(shape: [1], scale: Weights([Float(1) / 3]))), .permute(axes: [0, 1, 3, 2]),
                               .convolution(deconvolution)])
        XCTAssertNoThrow(try read.validate())

        // To relu1's size from pad's (3 rows and columns more): the edges that leaves past the offset.
        model.nodes[model.nodes.count - 6].operation = .crop(.like(offset: [1, 2]))
        model.nodes[model.nodes.count - 6].inputs = ["pad", "relu1"]
        try MLProgramWriter.write(model, to: path)
        XCTAssertEqual(try MLProgramReader.read(from: path).model.nodes.first { $0.name == "crop" }?.operation,
                       .crop(.edges(Edges(top: 1, bottom: 2, left: 2, right: 1))))
    }

    /// abs, sqrt and rsqrt of scale * x + shift: a mul and an add (read
    /// back as scale and bias nodes), then the function; power and
    /// threshold (checked against the frameworks by the program sweeps)
    /// read back as written.
    func testUnaryFunctionsReadBack() throws {
        var model = SampleModel.classifier()
        model.nodes += [
            Node("abs", .unary(Unary(kind: .abs)), input: "relu1"),
            Node("sqrt", .unary(Unary(kind: .sqrt, shift: 0.25, scale: 0.5)), input: "abs"),
            Node("rsqrt", .unary(Unary(kind: .rsqrt, epsilon: 1e-6, shift: 1)), input: "abs"),
        ]
        model.outputs = [Output(name: "sqrt"), Output(name: "rsqrt")]
        let path = try temporaryFolder().appendingPathComponent("Unary.mlpackage").path
        try MLProgramWriter.write(model, to: path)
        let read = try MLProgramReader.read(from: path).model
        XCTAssertEqual(read.nodes.drop { $0.name != "abs" }.map(\.operation), [
            .unary(Unary(kind: .abs)), .scale(Scale(shape: [1], scale: Weights([0.5]))), .bias(Bias(shape: [1], bias: Weights([0.25]))),
            .unary(Unary(kind: .sqrt)), .bias(Bias(shape: [1], bias: Weights([1]))), .unary(Unary(kind: .rsqrt, epsilon: 1e-6)),
        ])
        XCTAssertNoThrow(try read.validate())

        for unary in [Unary(kind: .power, alpha: 3), Unary(kind: .threshold, alpha: 0.5)] {
            model.nodes[model.nodes.count - 1].operation = .unary(unary)
            let again = try temporaryFolder().appendingPathComponent("Unary.mlpackage").path
            try MLProgramWriter.write(model, to: again)
            XCTAssertEqual(try MLProgramReader.read(from: again).model.nodes.last?.operation, .unary(unary))
        }
    }

    func testAPackageReadsBackAndABrokenWeightFileIsAnErrorNamingIt() throws {
        let path = try temporaryFolder().appendingPathComponent("Sample.mlpackage").path
        try MLProgramWriter.write(SampleModel.classifier(), to: path)
        let model = try MLProgramReader.read(from: path).model
        XCTAssertEqual(model.classifier?.labels, .strings(SampleModel.ageLabels))
        XCTAssertEqual(model.inputs.first?.image?.scale, 1.0 / 255.0)
        XCTAssertEqual(model.inputs.first?.image?.channelBiases, SampleModel.classifier().inputs[0].image?.channelBiases)
        XCTAssertEqual(model.nodes.map { $0.operation.definition.kindName }, ["convolution", "activation", "pooling", "flatten", "innerProduct", "softmax"])
        XCTAssertNoThrow(try model.validate())
        XCTAssertFalse(model.computesInFloat16)

        let weights = path + "/Data/com.apple.CoreML/weights/weight.bin"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: weights))
        for (what, broken) in [("truncated", bytes.prefix(4000)), ("sentinel", bytes.prefix(64) + Data(count: 4) + bytes.dropFirst(68))] {
            try broken.write(to: URL(fileURLWithPath: weights))
            XCTAssertThrowsError(try MLProgramReader.read(from: path), what) { error in
                XCTAssertTrue("\(error)".contains("weight.bin: byte 64:"), "\(what): \(error)")
            }
        }
    }
}

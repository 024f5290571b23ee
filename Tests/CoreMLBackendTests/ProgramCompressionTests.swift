@testable import CoreMLBackend
import Foundation
import ModelFormat
import Runtime
import TestSupport
import XCTest

/// Compressed constants in a program (iOS 16's constexpr operations): the
/// bit order coremltools' definition states, what a compressed package
/// reads back as, and what is refused. (Against coremltools' own
/// decompression and Apple's validator: scripts/verify/mlprogram_compressed.sh.)
final class ProgramCompressionTests: XCTestCase {
    /// constexpr_lut_to_dense's docstring example: 2-bit indices 0, 3, 2, 1, 3
    /// are bytes `01 10 11 00` and `xx xx xx 11` (least significant bits first).
    func testIndicesArePackedLeastSignificantBitFirst() {
        func packed(_ levels: [UInt8], bits: Int) -> [UInt8] {
            var packed = [UInt8](repeating: 0, count: (levels.count * bits + 7) / 8)
            levels.withUnsafeBufferPointer { levels in
                packed.withUnsafeMutableBytes { Quantizer.pack(levels, bits: bits, into: $0, order: .leastSignificantFirst) }
            }
            return packed
        }
        XCTAssertEqual(packed([0, 3, 2, 1, 3], bits: 2), [0b0110_1100, 0b0000_0011])
        // 6 bits: the second level's low two bits at the top of byte 0, its high four at the bottom of byte 1.
        let levels: [UInt8] = [0b10_1011, 0b11_0110, 0b00_0001, 0b11_1111]
        let six = packed(levels, bits: 6)
        XCTAssertEqual(six, [0b1010_1011, 0b0001_1101, 0b1111_1100])
        six.withUnsafeBytes { raw in
            XCTAssertEqual((0..<4).map { UInt8(Quantizer.level(raw, bits: 6, at: $0, order: .leastSignificantFirst)) }, levels)
        }
    }

    /// Each mode at both compute precisions: the inner product's 50,176
    /// weights (2048 or more) compressed, the convolution's 1,176 not; read
    /// back as the levels allow (a table's 2^bits values; 8-bit linear within
    /// half a step of each value), at specification 7, opset CoreML6.
    func testCompressedConstantsReadBackAsTheirLevels() throws {
        let model = SampleModel.classifier()
        guard case .innerProduct(let product) = model.nodes[4].operation, case .convolution(let conv) = model.nodes[0].operation else {
            return XCTFail("the sample's layers moved")
        }
        let original = product.weights.values
        let folder = try temporaryFolder()
        for (bits, mode) in [(8, QuantizationMode.linear), (8, .linearSymmetric), (4, .kmeansLookupTable), (2, .linearLookupTable),
                             (6, .kmeansLookupTable), (1, .linearLookupTable)] {
            for computePrecision in [Precision.float32, .float16] {
                let what = "\(bits)-bit \(mode) at \(computePrecision.name)"
                let path = folder.appendingPathComponent("C\(bits)\(mode)\(computePrecision.name).mlpackage").path
                try MLProgramWriter.write(model, to: path, computePrecision: computePrecision, compression: .quantized(bits: bits, mode))
                let file = try MLProgramReader.read(from: path)
                XCTAssertEqual(file.specificationVersion, 7, what)
                XCTAssertEqual(file.program?.opset, "CoreML6", what)
                let counts = Dictionary(uniqueKeysWithValues: (file.program?.operationCounts ?? []).map { ($0.type, $0.count) })
                XCTAssertEqual(counts[mode.usesLookupTable ? "constexpr_lut_to_dense" : "constexpr_affine_dequantize"], 1, what)
                let operations = file.model.nodes.map(\.operation)
                guard let read = operations.lazy.compactMap({ if case .innerProduct(let p) = $0 { p } else { nil } }).first,
                      let readConv = operations.lazy.compactMap({ if case .convolution(let c) = $0 { c } else { nil } }).first else {
                    return XCTFail("\(what): the layers were not read back")
                }
                XCTAssertEqual(read.weights.storedPrecision, .quantized(bits: bits, mode.usesLookupTable ? .kmeansLookupTable : .linear), what)
                XCTAssertEqual(readConv.weights.storedPrecision, computePrecision == .float16 ? .float16 : .float32, what)
                XCTAssertEqual(readConv.weights.count, conv.weights.count)
                let values = read.weights.values
                XCTAssertEqual(values.count, original.count, what)
                if mode.usesLookupTable {
                    let table = Set(values).sorted()
                    XCTAssertLessThanOrEqual(table.count, 1 << bits, what)
                    if computePrecision == .float32 {
                        // Each value the entry nearest its original (a level read from the wrong bits would not be).
                        let misplaced = zip(values, original).filter { value, x in table.contains { abs($0 - x) < abs(value - x) } }.count
                        XCTAssertEqual(misplaced, 0, what)
                    }
                } else {
                    // One output channel's step: its range over 255 (the range holds 0, or is symmetric around it).
                    let inner = product.inputChannels
                    for channel in 0..<product.outputChannels {
                        let run = original[channel * inner..<(channel + 1) * inner]
                        let step = mode == .linear ? (max(0, run.max()!) - min(0, run.min()!)) / 255 : run.map(abs).max()! / 127
                        let worst = zip(values[channel * inner..<(channel + 1) * inner], run).map { abs($0 - $1) }.max()!
                        XCTAssertLessThanOrEqual(worst, step * 0.5 * 1.01 + (computePrecision == .float16 ? abs(run.max()!) / 1024 : 0),
                                                 "\(what), channel \(channel)")
                    }
                }
                // The program runs, and classifies as the float model does on a gentle input (a coarse check; the
                // fidelity report measures the difference).
                XCTAssertNoThrow(try Network(file.model).predict(["data": .array(Tensor(shape: TensorShape([3, 227, 227]),
                                                                                         values: [Float](repeating: 128, count: 3 * 227 * 227)))]),
                                 what)
            }
        }
    }

    /// iOS 18's forms (specification 9, opset CoreML8): linear levels of 8 and 4 bits (uint with their zero points as
    /// the offset, a symmetric mode's int without one) per output channel or per block of 32 or 64 input values, and
    /// tables of 3 and 4 bits, one per constant or per group of output channels; each read back within half a step of
    /// its block's scale, or as the nearest entry of its group's table.
    func testIOS18FormsReadBackAsTheirLevels() throws {
        let model = SampleModel.classifier()
        guard case .innerProduct(let product) = model.nodes[4].operation else { return XCTFail("the sample's layers moved") }
        let original = product.weights.values, rows = product.outputChannels, inner = product.inputChannels
        let folder = try temporaryFolder()
        for (bits, mode, granularity) in [
            (8, QuantizationMode.linear, CompressionGranularity.perChannel), (8, .linearSymmetric, .perChannel), (4, .linear, .perChannel),
            (4, .linearSymmetric, .perBlock(size: 32)), (8, .linear, .perBlock(size: 64)), (3, .kmeansLookupTable, .perChannel),
            (4, .kmeansLookupTable, .perGroupedChannel(size: 2)), (2, .linearLookupTable, .perGroupedChannel(size: 4)),
        ] {
            for computePrecision in [Precision.float32, .float16] {
                let what = "\(bits)-bit \(mode) \(granularity) at \(computePrecision.name)"
                let path = folder.appendingPathComponent("C\(bits)\(mode)\(computePrecision.name).mlpackage").path
                try MLProgramWriter.write(model, to: path, computePrecision: computePrecision, compression: .quantized(bits: bits, mode),
                                          granularity: granularity, minimumSpecificationVersion: 9)
                let file = try MLProgramReader.read(from: path)
                XCTAssertEqual(file.specificationVersion, 9, what)
                XCTAssertEqual(file.program?.opset, "CoreML8", what)
                let types = Set((file.program?.operationCounts ?? []).map(\.type))
                XCTAssertTrue(types.contains(mode.usesLookupTable ? "constexpr_lut_to_dense" : "constexpr_blockwise_shift_scale"), "\(what): \(types)")
                guard let read = file.model.nodes.lazy.compactMap({ if case .innerProduct(let p) = $0.operation { p } else { nil } }).first else {
                    return XCTFail("\(what): the inner product was not read back")
                }
                XCTAssertEqual(read.weights.storedPrecision, .quantized(bits: bits, mode.usesLookupTable ? .kmeansLookupTable : .linear), what)
                let values = read.weights.values
                // The runs that share a scale or table: contiguous, rows x blocks (a table: groups of rows, or all).
                let runs = switch granularity {
                case .perChannel: mode.usesLookupTable ? 1 : rows
                case .perBlock(let size): rows * inner / size
                case .perGroupedChannel(let size): rows / size
                }
                let length = original.count / runs
                for run in 0..<runs {
                    let part = run * length..<(run + 1) * length
                    let (given, got) = (original[part], values[part])
                    if mode.usesLookupTable {
                        let table = Set(got).sorted()
                        XCTAssertLessThanOrEqual(table.count, 1 << bits, "\(what), run \(run)")
                        if computePrecision == .float32 {
                            let misplaced = zip(got, given).filter { value, x in table.contains { abs($0 - x) < abs(value - x) } }.count
                            XCTAssertEqual(misplaced, 0, "\(what), run \(run)")
                        }
                    } else {
                        let top = Float((1 << bits) - 1), half = Float(1 << (bits - 1)) - 1
                        let step = mode == .linear ? (max(0, given.max()!) - min(0, given.min()!)) / top : given.map(abs).max()! / half
                        let worst = zip(got, given).map { abs($0 - $1) }.max()!
                        XCTAssertLessThanOrEqual(worst, step * 0.5 * 1.01 + (computePrecision == .float16 ? abs(given.max()!) / 1024 : 0),
                                                 "\(what), run \(run)")
                    }
                }
            }
        }
    }

    /// What a program cannot hold is refused by name before anything is
    /// written, and values no level holds name their constant.
    func testWhatCannotBeCompressedIsRefused() throws {
        let model = SampleModel.classifier()
        let path = try temporaryFolder().appendingPathComponent("Refused.mlpackage").path
        for (bits, mode, granularity, fragment) in [
            (5, QuantizationMode.linear, CompressionGranularity.perChannel, "in 8 bits, or 4 (iOS 18's constexpr_blockwise_shift_scale), not 5"),
            (5, .kmeansLookupTable, .perChannel, "1, 2, 3 (iOS 18), 4, 6 or 8 bits, not 5"), (7, .linearLookupTable, .perChannel, "not 7"),
            (4, .kmeansLookupTable, .perBlock(size: 32), "a lookup table is shared by groups of output channels"),
            (4, .linear, .perGroupedChannel(size: 16), "linear quantization has blocks"), (4, .linear, .perBlock(size: 0), "a block or group of 0"),
        ] {
            XCTAssertThrowsError(try MLProgramWriter.write(model, to: path, compression: .quantized(bits: bits, mode), granularity: granularity)) { error in
                XCTAssertTrue("\(error)".contains(fragment), "\(error)")
            }
        }
        XCTAssertThrowsError(try MLProgramWriter.write(model, to: path, minimumSpecificationVersion: 10)) { error in
            XCTAssertTrue("\(error)".contains("specification 10"), "\(error)")
        }
        var poisoned = model
        guard case .innerProduct(var product) = poisoned.nodes[4].operation else { return XCTFail("the sample's layers moved") }
        var values = product.weights.values
        values[4321] = .nan
        product.weights = Weights(values)
        poisoned.nodes[4].operation = .innerProduct(product)
        XCTAssertThrowsError(try MLProgramWriter.write(poisoned, to: path, compression: .quantized(bits: 8, .linear))) { error in
            XCTAssertTrue("\(error)".contains("constant 'fc8_weight': cannot be quantized: value 4322 of 50176 is nan"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        // A weight float16 cannot hold: its scale neither, in a float16 program (a float32 one holds it, its range in double).
        values[4321] = 0
        values[7] = 1e6
        product.weights = Weights(values)
        poisoned.nodes[4].operation = .innerProduct(product)
        XCTAssertThrowsError(try MLProgramWriter.write(poisoned, to: path, computePrecision: .float16, compression: .quantized(bits: 8, .linear))) { error in
            XCTAssertTrue("\(error)".contains("constant 'fc8_weight': cannot be quantized: value 8 of 50176 is 1000000.0, beyond float16's range (65504)"), "\(error)")
        }
        values[7] = 3e38
        values[8] = -3e38
        product.weights = Weights(values)
        poisoned.nodes[4].operation = .innerProduct(product)
        try MLProgramWriter.write(poisoned, to: path, compression: .quantized(bits: 8, .linear))
        guard case .innerProduct(let read)? = try MLProgramReader.read(from: path).model.nodes.lazy.map(\.operation).first(where: {
            if case .innerProduct = $0 { true } else { false }
        }) else { return XCTFail("no inner product read back") }
        let extremes = Array(read.weights.values[7...8])
        XCTAssertEqual(extremes[0], 3e38, accuracy: Float(Double(6e38) / 255))  // within a step of the 6e38 range
        XCTAssertEqual(extremes[1], -3e38, accuracy: Float(Double(6e38) / 255))
        try FileManager.default.removeItem(atPath: path)
        // Uncompressed at iOS 16: the same operations, opset CoreML6.
        try MLProgramWriter.write(model, to: path, minimumSpecificationVersion: 7)
        let file = try MLProgramReader.read(from: path)
        XCTAssertEqual(file.program?.opset, "CoreML6")
        XCTAssertFalse(file.program?.operationCounts.contains { $0.type.hasPrefix("constexpr_") } ?? true)
    }
}

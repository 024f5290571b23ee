import Foundation
import Runtime
import XCTest

/// `NumpyFile` against files numpy wrote (`scripts/fixtures/make_image_fixtures.py`
/// into `Tests/Fixtures/npy`), its own round trip, and malformed headers.
final class NumpyFileTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/npy")

    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("NumpyFileTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func fixture(_ name: String) -> String { Self.fixtures.appendingPathComponent(name).path }

    /// The message of the error reading `path` throws.
    func readError(_ path: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let array = try NumpyFile.read(path: path)
            XCTFail("read \(array.shape) from \(path)", file: file, line: line)
            return ""
        } catch {
            XCTAssertFalse(error.description.contains("\n"), "one line: \(error)", file: file, line: line)
            return error.description
        }
    }

    /// Writes raw bytes to a temporary file and returns its path.
    func temporary(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// A .npy file with the given header dictionary text and data bytes.
    func npy(_ header: String, data: [UInt8] = [], version: UInt8 = 1) -> [UInt8] {
        var bytes: [UInt8] = [0x93] + Array("NUMPY".utf8) + [version, 0]
        let text = Array((header + "\n").utf8)
        bytes += version == 1 ? [UInt8(text.count & 0xFF), UInt8(text.count >> 8)]
                              : [UInt8(text.count & 0xFF), UInt8(text.count >> 8), 0, 0]
        return bytes + text + data
    }

    // MARK: Files numpy wrote

    func testReadsFloat32() throws {
        let array = try NumpyFile.read(path: fixture("f4_2x3.npy"))
        XCTAssertEqual(array.shape, [2, 3])
        XCTAssertEqual(array.values, [1.5, -2.25, 3e-8, .infinity, -0.0, 1e30])
        XCTAssertEqual(array.values[4].sign, .minus)
    }

    func testReadsFloat64Int64Int32AndUInt8Converted() throws {
        let f8 = try NumpyFile.read(path: fixture("f8_4.npy"))
        XCTAssertEqual(f8.shape, [4])
        XCTAssertEqual(f8.values, [0.1, -.infinity, 2.5, Float(1.0 / 3.0)])
        let i8 = try NumpyFile.read(path: fixture("i8_5.npy"))
        XCTAssertEqual(i8.shape, [5])
        XCTAssertEqual(i8.values, [-3, 0, 7, 1_099_511_627_776, -16_777_216])
        let i4 = try NumpyFile.read(path: fixture("i4_3.npy"))
        XCTAssertEqual(i4.values, [-7, 16_777_216, 2_147_483_648])
        let u1 = try NumpyFile.read(path: fixture("u1_2x2x3.npy"))
        XCTAssertEqual(u1.shape, [2, 2, 3])
        XCTAssertEqual(u1.values, stride(from: 0, to: 240, by: 20).map(Float.init))
    }

    func testReadsScalarAndLaterFormatVersions() throws {
        let scalar = try NumpyFile.read(path: fixture("scalar_f4.npy"))
        XCTAssertEqual(scalar.shape, [])
        XCTAssertEqual(scalar.values, [42.5])
        let v1 = try NumpyFile.read(path: fixture("f4_2x3.npy"))
        for name in ["v2_f4.npy", "v3_f4.npy"] {
            let array = try NumpyFile.read(path: fixture(name))
            XCTAssertEqual(array.shape, v1.shape, name)
            XCTAssertEqual(array.values, v1.values, name)
        }
    }

    func testRefusesFortranOrderAndBigEndian() {
        XCTAssertEqual(readError(fixture("fortran_f4.npy")),
                       "\(fixture("fortran_f4.npy")): Fortran-order arrays are not supported (save np.ascontiguousarray(a) instead)")
        XCTAssertEqual(readError(fixture("big_endian_f4.npy")),
                       "\(fixture("big_endian_f4.npy")): unsupported dtype '>f4' (supported: <f4, <f8, |u1, <i4, <i8)")
    }

    // MARK: Writing

    func testWritesTheBytesNumpySaves() throws {
        let path = folder.appendingPathComponent("ours.npy").path
        let values = (0..<12).map { Float($0) * 0.5 - 2 }
        try NumpyFile.write(values, shape: [3, 4], to: path)
        let ours = try Data(contentsOf: URL(fileURLWithPath: path))
        let numpys = try Data(contentsOf: URL(fileURLWithPath: fixture("roundtrip_f4_3x4.npy")))
        XCTAssertEqual(ours, numpys)
        XCTAssertEqual(ours.count % 64, 48 % 64, "header padded to 64: 128 + 48 bytes")
    }

    func testRoundTrips() throws {
        let path = folder.appendingPathComponent("a.npy").path
        for shape in [[], [0], [7], [2, 3, 4], [1, 1, 1, 1, 5]] {
            let count = shape.reduce(1, *)
            let values = (0..<count).map { Float($0) * -1.25 + 0.1 }
            try NumpyFile.write(values, shape: shape, to: path)
            let array = try NumpyFile.read(path: path)
            XCTAssertEqual(array.shape, shape)
            XCTAssertEqual(array.values, values)
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            XCTAssertEqual((size - 4 * count) % 64, 0, "header of \(shape) padded to 64")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        XCTAssertEqual(leftovers, ["a.npy"], "no temporary files left")
    }

    func testWriteRefusesMismatchedShapeAndMissingFolder() {
        XCTAssertThrowsError(try NumpyFile.write([1, 2, 3], shape: [2, 2], to: folder.appendingPathComponent("x.npy").path)) { error in
            XCTAssertTrue("\(error)".hasSuffix("x.npy: shape (2, 2) does not hold 3 values"), "\(error)")
        }
        let missing = folder.appendingPathComponent("no/such/x.npy").path
        XCTAssertThrowsError(try NumpyFile.write([1], shape: [1], to: missing)) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(missing): cannot create a file in "), "\(error)")
        }
    }

    // MARK: Malformed files

    func testBadMagicAndMissingFile() throws {
        let path = try temporary("x.npy", Array("PK\u{3}\u{4} not numpy at all".utf8))
        XCTAssertEqual(readError(path), "\(path): not a .npy file (bad magic)")
        let empty = try temporary("empty.npy", [])
        XCTAssertEqual(readError(empty), "\(empty): not a .npy file (bad magic)")
        let missing = folder.appendingPathComponent("missing.npy").path
        XCTAssertEqual(readError(missing), "\(missing): cannot open: No such file or directory")
        XCTAssertEqual(readError(folder.path), "\(folder.path): not a regular file (a folder)")
    }

    func testTruncatedHeader() throws {
        let whole = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data: [UInt8](repeating: 0, count: 8))
        let path = try temporary("x.npy", Array(whole.prefix(30)))
        XCTAssertEqual(readError(path), "\(path): truncated header (58 bytes announced, 20 in the file)")
        let short = try temporary("short.npy", Array(whole.prefix(9)))
        XCTAssertEqual(readError(short), "\(short): truncated header")
        let version = try temporary("v9.npy", [0x93] + Array("NUMPY".utf8) + [9, 0, 0, 0])
        XCTAssertEqual(readError(version), "\(version): unsupported .npy format version 9.0")
    }

    func testShapeDataMismatchIsCheckedBeforeAllocating() throws {
        let path = try temporary("x.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }",
                                              data: [UInt8](repeating: 0, count: 40)))
        XCTAssertEqual(readError(path), "\(path): shape (3, 4) needs 48 bytes of data, the file has 40")
        let huge = try temporary("huge.npy", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000, 100000), }",
                                                 data: [1, 2, 3]))
        XCTAssertEqual(readError(huge), "\(huge): shape (100000, 100000, 100000) needs 8000000000000000 bytes of data, the file has 3")
        let overflow = try temporary("overflow.npy", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000, 1000000000, 1000000000), }"))
        XCTAssertEqual(readError(overflow), "\(overflow): shape (1000000000, 1000000000, 1000000000) is too large")
        let bytesOverflow = try temporary("bytes.npy", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2000000000, 2000000000), }"))
        XCTAssertEqual(readError(bytesOverflow), "\(bytesOverflow): shape (2000000000, 2000000000) needs too many bytes of data, the file has 0")
        let extra = try temporary("extra.npy", npy("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", data: [1, 2, 3]))
        XCTAssertEqual(readError(extra), "\(extra): shape (2,) needs 2 bytes of data, the file has 3")
    }

    func testUnknownDtypeAndMalformedHeaders() throws {
        let cases: [(String, String)] = [
            ("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", "unsupported dtype '<c8' (supported: <f4, <f8, |u1, <i4, <i8)"),
            ("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", "malformed header (not a Python dict literal)"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", "malformed header (not a Python dict literal)"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "malformed header (not a Python dict literal)"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", "malformed header (not a Python dict literal)"),
            ("{'descr': '<f4', 'shape': (1,), }", "header has no 'fortran_order'"),
            ("{'fortran_order': False, 'shape': (1,), }", "header has no 'descr'"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': 'x', }", "header has no valid 'shape'"),
            ("garbage", "malformed header (not a Python dict literal)"),
        ]
        for (index, (header, message)) in cases.enumerated() {
            let path = try temporary("case\(index).npy", npy(header, data: [0, 0, 0, 0]))
            XCTAssertEqual(readError(path), "\(path): \(message)")
        }
    }

    func testAcceptsPython2StyleAndVersion2Headers() throws {
        let data: [UInt8] = [0, 0, 0x80, 0x3F, 0, 0, 0, 0x40]
        let old = try temporary("old.npy", npy("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2L,)}", data: data))
        XCTAssertEqual(try NumpyFile.read(path: old).values, [1, 2])
        let v2 = try temporary("v2.npy", npy("{'shape': (1, 2), 'fortran_order': False, 'descr': '<f4'}", data: data, version: 2))
        let array = try NumpyFile.read(path: v2)
        XCTAssertEqual(array.shape, [1, 2])
        XCTAssertEqual(array.values, [1, 2])
    }
}

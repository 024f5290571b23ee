#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ModelFormat
import Runtime
import XCTest

/// `NumpyFile.tensor` reads an array for a model input: the header first,
/// its shape compared with the input's before any data is read, then
/// exactly the bytes the shape declares.
final class NumpyBoundedReadTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("NumpyBoundedRead-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A version 1.0 header for `descr` and `shape`, then `data`, then a hole up to `size` bytes.
    func write(_ name: String, descr: String = "<f4", shape: String, data: [UInt8] = [], size: Int? = nil) throws -> String {
        var header = "{'descr': '\(descr)', 'fortran_order': False, 'shape': \(shape), }"
        header += String(repeating: " ", count: 128 - 10 - 1 - header.utf8.count) + "\n"
        let url = folder.appendingPathComponent(name)
        try Data([0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count), 0] + Array(header.utf8) + data).write(to: url)
        if let size { XCTAssertEqual(truncate(url.path, off_t(size)), 0) }
        return url.path
    }

    func tensorError(_ path: String, _ shape: TensorShape) -> String {
        do {
            _ = try NumpyFile.tensor(path: path, fitting: shape, input: "x")
            return "no error"
        } catch {
            return error.description
        }
    }

    /// 2415919104 float32 values over a 9 GiB hole: refused on the header's
    /// shape (the old reader read and converted them first: 18.9 GB).
    func testAShapeThatDoesNotFitIsRefusedBeforeTheData() throws {
        let path = try write("huge.npy", shape: "(2415919104,)", size: 128 + 2_415_919_104 * 4)
        let start = Date()
        XCTAssertEqual(tensorError(path, TensorShape(channels: 3, height: 2, width: 2)),
                       "\(path): shape [2415919104] does not fit input 'x', which takes [3, 2, 2]")
        XCTAssertLessThan(Date().timeIntervalSince(start), 1, "nothing past the header was read")
    }

    /// The input's shape, then a file shorter or longer than it declares: one error each.
    func testExactlyTheDeclaredBytesAreRead() throws {
        let values: [Float] = (0..<12).map(Float.init)
        let bytes = values.flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian, Array.init) }
        let shape = TensorShape(channels: 3, height: 2, width: 2)
        let exact = try write("exact.npy", shape: "(1, 3, 2, 2)", data: bytes)
        XCTAssertEqual(try NumpyFile.tensor(path: exact, fitting: shape, input: "x").values, values)
        let short = try write("short.npy", shape: "(3, 2, 2)", data: Array(bytes.dropLast()))
        XCTAssertEqual(tensorError(short, shape), "\(short): shape (3, 2, 2) needs 48 bytes of data, the file has 47")
        let long = try write("long.npy", shape: "(3, 2, 2)", data: bytes, size: 9 << 30)
        XCTAssertEqual(tensorError(long, shape), "\(long): shape (3, 2, 2) needs 48 bytes of data, the file has 9663676288")
    }

    /// A header length past 64 KiB is refused before it is read (version 2.0
    /// and 3.0 headers may announce up to 4 GiB).
    func testAnOversizedHeaderIsRefusedBeforeItIsRead() throws {
        let url = folder.appendingPathComponent("header.npy")
        try Data([0x93] + Array("NUMPY".utf8) + [2, 0, 0xFF, 0xFF, 0xFF, 0xFF]).write(to: url)
        XCTAssertEqual(truncate(url.path, 9 << 30), 0)
        XCTAssertEqual(tensorError(url.path, TensorShape(channels: 1)),
                       "\(url.path): header of 4294967295 bytes announced, more than the limit of 65535")
    }
}

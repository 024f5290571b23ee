#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Protobuf
import XCTest

/// Stretches of a file filled in pieces by several threads: the bytes land
/// where they belong, and when producers fail, the error is always the one
/// of the earliest failing piece in file order, whichever thread fails first.
final class StretchFillTests: XCTestCase {
    struct PieceFailed: Error, Equatable { let piece: Int }

    func withFile(_ body: (_ descriptor: Int32, _ path: String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("StretchFillTests-\(UUID().uuidString)").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor); unlink(path) }
        try body(descriptor, path)
    }

    func testPiecesLandAtTheirPlaces() throws {
        try withFile { descriptor, path in
            // Two stretches with a gap between them, 16 pieces of 4 bytes each.
            let stretches = [(offset: Int64(8), bytes: 40), (offset: Int64(64), bytes: 24)].map { place in
                FileStretch(offset: place.offset, length: place.bytes, pieces: place.bytes / 4) { index, write in
                    let value = UInt32(place.offset) * 1000 + UInt32(index)
                    try withUnsafeBytes(of: value.littleEndian) { try write($0, 4 * index) }
                }
            }
            XCTAssertTrue(try StretchFill.fill(stretches, descriptor: descriptor, startingWriteback: true))
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            XCTAssertEqual(bytes.count, 88)
            func word(_ at: Int) -> UInt32 { bytes[at..<at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
            XCTAssertEqual((0..<10).map { word(8 + 4 * $0) }, (0..<10).map { 8000 + UInt32($0) })
            XCTAssertEqual((0..<6).map { word(64 + 4 * $0) }, (0..<6).map { 64000 + UInt32($0) })
            XCTAssertEqual(bytes[0..<8], [0, 0, 0, 0, 0, 0, 0, 0])
        }
    }

    /// Piece 3 fails slowly and piece 7 at once: another thread reaches 7
    /// and fails first, yet the error is piece 3's, every time (it was the
    /// first failure in time, which differed from run to run).
    func testTheEarliestFailingPieceNamesTheError() throws {
        try withFile { descriptor, _ in
            for _ in 0..<5 {
                let stretch = FileStretch(offset: 0, length: 40, pieces: 10) { index, write in
                    if index == 3 { usleep(50_000); throw PieceFailed(piece: 3) }
                    if index == 7 { throw PieceFailed(piece: 7) }
                    try write(UnsafeRawBufferPointer(start: nil, count: 0), 4 * index)
                }
                XCTAssertThrowsError(try StretchFill.fill([stretch], descriptor: descriptor, startingWriteback: false)) { error in
                    XCTAssertEqual(error as? PieceFailed, PieceFailed(piece: 3))
                }
            }
        }
    }
}

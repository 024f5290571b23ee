import DarknetFrontend
import Foundation
import ModelFormat
import SweepSupport
import XCTest

/// The Darknet attribute sweep (issue 30): each section type, each key at
/// the edges of its domain, in tiny networks made by
/// scripts/fixtures/make_darknet_sweep.py with OpenCV's readNetFromDarknet
/// as the reference (numpy per Darknet's source where OpenCV departs from
/// Darknet; cases.json says which). Converted and right, or refused naming
/// the key; never converted and different.
final class AttributeSweepTests: XCTestCase {
    func testEveryCaseIsHonouredOrRefusedByName() throws {
        try runAttributeSweep("darknet") { folder, testCase in
            try DarknetConverter.convert(config: folder.appendingPathComponent(testCase.files[0]).path,
                                         weights: folder.appendingPathComponent(testCase.files[1]).path, imageInput: false, region: .grid)
        }
    }
}

/// The same sweep written as ML Program packages (issue 36), at float32
/// and float16, against the same references (`checkProgramSweep`): on
/// 2026-12-07 all 45 cases the NeuralNetwork sweep honours computed as the
/// framework does (scripts/verify/mlprogram_sweep.sh checks the packages).
final class ProgramSweepTests: XCTestCase {
    func testSweepAsPrograms() throws {
        try checkProgramSweep("darknet", honoured: 45, notYetWritten: 0) { folder, testCase in
            try DarknetConverter.convert(config: folder.appendingPathComponent(testCase.files[0]).path,
                                         weights: folder.appendingPathComponent(testCase.files[1]).path, imageInput: false, region: .grid)
        }
    }
}

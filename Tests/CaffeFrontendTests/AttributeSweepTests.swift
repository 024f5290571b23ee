import CaffeFrontend
import Foundation
import ModelFormat
import SweepSupport
import XCTest

/// The Caffe attribute sweep (issue 30): each mapped layer type, each field
/// of its parameter message at the edges of its domain, in tiny nets made by
/// scripts/fixtures/make_caffe_sweep.py with OpenCV dnn's Caffe reader as the
/// reference (numpy per Caffe's source where OpenCV departs from Caffe or
/// cannot run the case; cases.json says which). Converted and right, or
/// refused naming the field; never converted and different.
final class AttributeSweepTests: XCTestCase {
    func testEveryCaseIsHonouredOrRefusedByName() throws {
        try runAttributeSweep("caffe") { folder, testCase in
            try CaffeConverter.convert(deploy: folder.appendingPathComponent(testCase.files[0]).path,
                                       weights: folder.appendingPathComponent(testCase.files[1]).path)
        }
    }
}

/// The same sweep written as ML Program packages (issue 36), at float32
/// and float16, against the same references (`checkProgramSweep`): on
/// 2026-12-07 all 140 cases the NeuralNetwork sweep honours computed as the
/// framework does (scripts/verify/mlprogram_sweep.sh checks the packages).
final class ProgramSweepTests: XCTestCase {
    func testSweepAsPrograms() throws {
        try checkProgramSweep("caffe", honoured: 140, notYetWritten: 0) { folder, testCase in
            try CaffeConverter.convert(deploy: folder.appendingPathComponent(testCase.files[0]).path,
                                       weights: folder.appendingPathComponent(testCase.files[1]).path)
        }
    }
}

@testable import DarknetFrontend
import Foundation
import ModelFormat
import SweepSupport
import TestSupport
import XCTest

/// The Darknet ledger (issue 30): every section type has one; a key the
/// converter does not take, or a key repeated at another value, refuses the
/// network naming the section's line and the key; CRLF files read as LF ones.
final class DarknetLedgerTests: XCTestCase {
    let net = "[net]\nwidth=8\nheight=8\nchannels=3\n"

    func testEverySectionTypeHasALedger() {
        XCTAssertEqual(DarknetLedgers.ledgers.missing(for: DarknetLedgers.mappedTypes), [])
    }

    /// Every honoured key of every section type has a case in the sweep
    /// (Tests/Fixtures/sweep/darknet): [net]'s keys are set by every case,
    /// [region]'s are compared with OpenCV by DarknetDetectorTests, [yolo]'s
    /// by DarknetYOLOTests (OpenCV's [yolo] output is decoded rows, which
    /// the sweep's raw comparison does not take), [conv] is [convolutional]'s other name.
    func testEveryHonouredKeyHasASweepCase() throws {
        XCTAssertEqual(try unsweptHonouredAttributes("darknet", ledgers: DarknetLedgers.ledgers, types: DarknetLedgers.mappedTypes,
                                                     exempt: ["net", "network", "region", "yolo", "conv"]), [])
    }

    func convert(_ text: String, region: RegionOutput = .grid) throws -> Model {
        let url = try temporaryFolder().appendingPathComponent("net.cfg")
        try text.write(to: url, atomically: false, encoding: .utf8)
        return try DarknetConverter.convert(config: url.path, weights: nil, imageInput: false, region: region)
    }

    func refusal(_ text: String, region: RegionOutput = .grid, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try convert(text, region: region)
            XCTFail("converted", file: file, line: line)
            return ""
        } catch {
            XCTAssertFalse("\(error)".contains("\n"), file: file, line: line)
            return "\(error)"
        }
    }

    func testAKeyTheConverterDoesNotTakeIsRefusedByName() {
        let cases: [(String, String)] = [
            (net + "[convolutional]\nfilters=2\nsize=3\ndilation=2\n", "net.cfg:5: [convolutional] dilation '2' is not supported"),
            (net + "[convolutional]\nfilters=2\nsize=3\nflipped=1\n", "flipped '1' is not supported"),
            (net + "[maxpool]\nsize=2\nstride_x=2\n", "[maxpool] stride_x '2' is not supported"),
            (net + "[convolutional]\nfilters=4\nsize=1\n[route]\nlayers=-1\nstopbackward=1\n", "[route] stopbackward '1' is not supported"),
            (net + "[convolutional]\nfilters=8\nsize=1\n[yolo]\nmask=0\nanchors=1,1\nnum=1\nclasses=3\nnms_kind=diounms\n", "[yolo] nms_kind 'diounms'"),
            ("[net]\nwidth=8\nheight=8\nchannels=3\ninputs=10\n[maxpool]\nsize=2\n", "net.cfg:1: [net] inputs '10' is not supported"),
        ]
        for (text, expected) in cases {
            let message = refusal(text)
            XCTAssertTrue(message.contains(expected), "\(expected): \(message)")
        }
    }

    /// Issue 30: Darknet takes a repeated key's first value, OpenCV 4.14's
    /// reader its last (checked with readNetFromDarknet: filters=2 then
    /// filters=3 gives 3 channels): refused unless the values agree.
    func testAKeyRepeatedAtAnotherValueIsRefused() throws {
        let message = refusal(net + "[convolutional]\nfilters=2\nsize=1\nfilters=3\nactivation=linear\n")
        XCTAssertTrue(message.contains("net.cfg:5: [convolutional] filters is given twice (filters=2 then filters=3; Darknet takes the first, OpenCV the last)"),
                      message)
        let model = try convert(net + "[convolutional]\nfilters=2\nsize=1\nfilters=2\nactivation=linear\n")
        XCTAssertEqual(model.outputs.count, 1)
    }

    /// Darknet's comments start a line; "activation=leaky # x" is the
    /// activation "leaky#x" to Darknet (unknown: it runs ReLU), and was
    /// leaky here. Numbers read the same (atoi stops at the '#').
    func testACommentAfterTheActivationIsRefused() throws {
        let message = refusal(net + "[convolutional]\nfilters=2\nsize=1\nactivation=leaky # the usual\n")
        XCTAssertTrue(message.contains("net.cfg:8: 'activation=leaky # the usual': a comment after the activation is part of its name"), message)
        XCTAssertNoThrow(try convert(net + "[convolutional]\nfilters=2 # two\nsize=1\n# a comment\nactivation=leaky\n"))
    }

    /// Darknet's parse_region defaults softmax to 0 (class scores raw); the
    /// decoding applies a softmax, so a [region] without the key is refused.
    func testARegionWithoutSoftmaxIsRefused() {
        let region = "[convolutional]\nfilters=12\nsize=1\nactivation=linear\n[region]\nanchors=1,1\nclasses=7\nnum=1\n"
        let message = refusal(net + region, region: .rows)
        XCTAssertTrue(message.contains("[region] softmax=0 (the default, the key being absent) is not converted"), message)
        XCTAssertNoThrow(try convert(net + region + "softmax=1\n", region: .rows))
    }

    /// OpenCV (escapeString drops bytes below ' ') and AlexeyAB's Darknet
    /// read CRLF files; Swift reads "\r\n" as one Character, so splitting
    /// on "\n" once read the whole file as one line.
    func testCRLFLineEndsReadAsLF() throws {
        let text = net + "[convolutional]\nfilters=2\nsize=3\nstride=2\npad=1\nactivation=leaky\n[maxpool]\nsize=2\nstride=2\n"
        let lf = try convert(text), crlf = try convert(text.replacingOccurrences(of: "\n", with: "\r\n"))
        XCTAssertEqual(crlf.nodes.map(\.operation), lf.nodes.map(\.operation))
        XCTAssertEqual(crlf.nodes.count, 3)
    }
}

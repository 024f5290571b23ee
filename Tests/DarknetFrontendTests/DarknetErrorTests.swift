import DarknetFrontend
import Foundation
import TestSupport
import XCTest

/// A broken or mismatched Darknet pair is one error naming the file, and
/// the line of the section for what the definition cannot express.
final class DarknetErrorTests: XCTestCase {
    let tiny = darknetFixtures.appendingPathComponent("tiny_yolo")

    func write(_ text: String, in folder: URL, _ name: String = "net.cfg") throws -> String {
        let url = folder.appendingPathComponent(name)
        try text.write(to: url, atomically: false, encoding: .utf8)
        return url.path
    }

    func assertError(_ config: String, weights: String?, _ fragments: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try DarknetConverter.convert(config: config, weights: weights), file: file, line: line) { error in
            for fragment in fragments {
                XCTAssertTrue("\(error)".contains(fragment), "'\(fragment)' not in: \(error)", file: file, line: line)
            }
        }
    }

    func testDefinitionsItCannotReadSayWhereAndWhy() throws {
        let folder = try temporaryFolder()
        let net = "[net]\nwidth=8\nheight=8\nchannels=3\n"
        let conv = "[convolutional]\nfilters=2\nsize=1\nactivation=linear\n"
        let cases: [(String, [String])] = [
            ("width=8\n" + net, ["net.cfg:1: 'width=8' comes before any [section]"]),
            ("[convolutional]\nfilters=2\n", ["net.cfg: a Darknet .cfg starts with a [net] section"]),
            (net + "[convolutional\nfilters=2\n", ["net.cfg:5: '[convolutional' is not a [section] header"]),
            (net + "[convolutional]\nfilters\n", ["net.cfg:6: 'filters' is not key=value"]),
            (net + "[convolutional]\nfilters=9223372036854775807\nsize=1\n", ["net.cfg:5: [convolutional] filters=9223372036854775807 is not a whole number"]),
            (net + "[convolutional]\nfilters=-1\n", ["filters=-1 is not a whole number"]),
            (net + "[convolutional]\nfilters=2\nsize=1\nactivation=selu\n", ["net.cfg:5: [convolutional] activation=selu is not converted yet"]),
            (net + "[crnn]\nhidden=3\n", ["net.cfg:5: [crnn] is a layer type this toolkit does not convert yet"]),
            (net + "[shortcut]\nfrom=-3\n", ["net.cfg:5: [shortcut] from=-3 names a layer which is not before it"]),
            (net + conv + conv + "[shortcut]\nfrom=-1,-2\n", ["net.cfg:13: [shortcut] from=-1,-2 names 2 layers; one is converted"]),
            (net + conv + "[convolutional]\nfilters=3\nsize=1\n[shortcut]\nfrom=-2\n",
             ["net.cfg:12: [shortcut] adds layer 0's [2, 8, 8] to [3, 8, 8]: shapes that differ are not converted"]),
            (net + conv + conv + "[shortcut]\nfrom=-2\nweights_type=per_channel\n", ["[shortcut] weights_type=per_channel is not converted (none"]),
            (net + conv + "[route]\nlayers=-1\ngroups=2\ngroup_id=2\n", ["net.cfg:9: [route] group_id=2 is not one of groups=2"]),
            (net + "[route]\nlayers=-1\ngroups=2\n", ["[route] layers=-1 names layer -1, which is not before it"]),
            (net + "[upsample]\nstride=2\nscale=0.5\n", ["net.cfg:5: [upsample] scale=0.5 is not converted (1, the default, is)"]),
            (net + conv + "[yolo]\nmask=0\nanchors=10,14\nnum=1\nclasses=3\n" + conv, ["net.cfg:9: [yolo] is followed by other layers"]),
            (net + conv + "[yolo]\nmask=0\nanchors=10,14\nnum=1\nclasses=3\n[region]\nclasses=3\n", ["net.cfg:14: [region] follows [yolo] layers"]),
            (net + conv + "[yolo]\nmask=0\nanchors=10,14\nnum=1\nclasses=3\n", ["net.cfg:9: [yolo] reads [2, 8, 8] and expects 1 anchors x (5 + 3 classes) = 8 channels"]),
            (net + conv + "[yolo]\nmask=0,1\nanchors=10,14\nnum=1\nclasses=3\n", ["[yolo] mask=0,1 does not pick among the num=1 anchors"]),
            (net + conv + "[yolo]\nmask=0\nanchors=10,14\nnum=1\nclasses=3\nnew_coords=2\n", ["[yolo] new_coords=2 is not converted"]),
            (net + conv + "[yolo]\nmask=0\nanchors=10,14\nnum=1\nclasses=3\nscale_x_y=0.5\n", ["[yolo] scale_x_y=0.5 is not a number from 1 to 16"]),
            (net + conv + "[route]\nlayers=1\n", ["net.cfg:9: [route] layers=1 names layer 1, which is not before it"]),
            (net + conv + "[route]\nlayers=-5\n", ["names layer -5"]),
            (net + conv + "[route]\nlayers=-1,x\n", ["layers=-1,x is not a list of numbers"]),
            (net + "[region]\nclasses=20\n" + conv, ["net.cfg:5: [region] is not the last layer"]),
            (net + "[region]\nclasses=20\n", ["net.cfg:1: [net] is followed by no layer"]),
            ("[net]\nwidth=0\nheight=8\n" + conv, ["[net] has an empty input"]),
            (net + "[convolutional]\nfilters=4\nsize=1\ngroups=3\n", ["groups=3 do not fit 3 input channels"]),
            (net + "[maxpool]\nsize=0\nstride=0\n", ["needs a size and stride of at least 1"]),
            (net + "[convolutional]\nfilters=65536\nsize=65536\n", ["make a kernel too large"]),
            (net + "[reorg]\nstride=2\n", ["net.cfg:5: [reorg] stride=2 does not divide the input 3x8x8"]),
            (net + "[convolutional]\nfilters=4\nsize=1\n[reorg]\nstride=2\nreverse=1\n", ["[reorg] reverse=1 is not converted yet"]),
        ]
        for (text, fragments) in cases { assertError(try write(text, in: folder), weights: nil, fragments) }
    }

    func testWeightsThatDoNotFitTheDefinitionAreRefused() throws {
        let folder = try temporaryFolder()
        let config = tiny.appendingPathComponent("model.cfg").path
        let weights = try Data(contentsOf: tiny.appendingPathComponent("model.weights"))
        let short = folder.appendingPathComponent("short.weights"), long = folder.appendingPathComponent("long.weights")
        try weights.dropLast(4).write(to: short)
        try (weights + Data(count: 8)).write(to: long)
        assertError(config, weights: short.path, ["short.weights: ends at byte", "before the weights of layer 7 ([convolutional], line 52)"])
        assertError(config, weights: long.path, ["long.weights: 8 bytes are left after the weights of every layer", "do not belong together"])
        // The other fixture's weights: their sizes differ.
        assertError(config, weights: darknetFixtures.appendingPathComponent("route_v1/model.weights").path, ["route_v1/model.weights"])
        let header = folder.appendingPathComponent("header.weights")
        try Data([9, 0, 0, 0]).write(to: header)
        assertError(config, weights: header.path, ["4 bytes is too short for a Darknet .weights header"])
        var version = Data(count: 20)
        version[0] = 7  // major version 7: not Darknet's
        try version.write(to: header)
        assertError(config, weights: header.path, ["header.weights: does not open with a Darknet .weights header"])
    }
}

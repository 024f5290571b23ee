import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import TestSupport
import XCTest

/// Text from model files never reaches a terminal raw: layer names and
/// labels holding ESC, BEL or newlines are escaped in every human-readable
/// output (summaries, tables, error lines, predictions), and DOT, SVG and
/// JSON stay valid. NaN and infinite outputs show instead of vanishing.
final class TerminalTextTests: XCTestCase {
    /// ESC ] 0 ; title BEL (sets the window title), ESC [ 2 J (clears the
    /// screen), a newline that would forge a table row, a right-to-left override.
    static let hostileName = "relu\u{1B}]0;owned\u{07}\u{1B}[2J\nfake row\u{202E}"
    static let escapedName = #"relu\u{1B}]0;owned\u{7}\u{1B}[2J\nfake row\u{202E}"#

    /// The name as a prototxt string, with C escapes.
    static let prototxtName = #"relu\033]0;owned\007\033[2J\nfake row\342\200\256"#

    /// Bytes a terminal would act on: C0 controls but newline, DEL, C1 controls.
    func assertNoControlCharacters(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let bad = text.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E }
        XCTAssertTrue(bad.isEmpty, "\(what) holds control characters \(bad.map { String($0.value, radix: 16) }): \(text)",
                      file: file, line: line)
    }

    /// A Caffe net whose ReLU has the hostile name, and a caffemodel holding
    /// one unrelated layer (the net needs no weights).
    func hostileCaffeNet(in folder: URL, reluType: String = "ReLU") throws -> (deploy: String, weights: String) {
        let deploy = folder.appendingPathComponent("deploy.prototxt")
        try """
            name: "hostile"
            input: "data"
            input_shape { dim: 1 dim: 3 dim: 4 dim: 4 }
            layer { name: "\(Self.prototxtName)" type: "\(reluType)" bottom: "data" top: "r" }
            layer { name: "prob" type: "Softmax" bottom: "r" top: "prob" }
            """.write(to: deploy, atomically: false, encoding: .utf8)
        // NetParameter { layer (100) { name (1): "x" } }
        let weights = folder.appendingPathComponent("w.caffemodel")
        try Data([0xA2, 0x06, 0x03, 0x0A, 0x01, 0x78]).write(to: weights)
        return (deploy.path, weights.path)
    }

    func testNamesAreEscapedInSummariesTablesAndErrors() throws {
        let folder = try temporaryFolder()
        let (deploy, weights) = try hostileCaffeNet(in: folder)
        let model = folder.appendingPathComponent("m.mlmodel").path
        let converted = try ProgramRunner.run("coreml-convert", ["caffe", deploy, weights, "-o", model])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        assertNoControlCharacters(converted.standardOutput, "convert's summary")

        for arguments in [[model, "--layers"], [deploy, "--weights", weights, "--layers"], [model, "--weight-stats"]] {
            let inspected = try ProgramRunner.run("coreml-inspect", arguments)
            XCTAssertEqual(inspected.status, 0, inspected.standardError)
            assertNoControlCharacters(inspected.standardOutput, "inspect \(arguments)")
            XCTAssertFalse(inspected.standardOutput.contains("\nfake row"), "a name forged a row: \(inspected.standardOutput)")
            if arguments.contains("--layers") {
                // Whole, or its end (after `...`) when the table is fitted to 100 columns (--json keeps it whole).
                XCTAssertTrue(inspected.standardOutput.contains(Self.escapedName)
                              || inspected.standardOutput.contains(String(Self.escapedName.suffix(20))), inspected.standardOutput)
            }
        }
        // In an error line: the same name on a layer type the toolkit refuses.
        let unknown = try hostileCaffeNet(in: try temporaryFolder(), reluType: "NoSuchType")
        let failed = try ProgramRunner.run("coreml-convert", ["caffe", unknown.deploy, unknown.weights, "-o", model + ".2.mlmodel"])
        XCTAssertEqual(failed.status, 1)
        XCTAssertEqual(failed.standardError.split(separator: "\n").count, 1, failed.standardError)
        assertNoControlCharacters(failed.standardError, "the error line")
        XCTAssertTrue(failed.standardError.contains(#"\u{1B}]0;owned"#), failed.standardError)
    }

    /// DOT and SVG hold no control characters (XML 1.0 forbids them: the
    /// SVG must parse), and JSON keeps the exact name, escaped as JSON.
    func testGraphsAndJSONStayValid() throws {
        let folder = try temporaryFolder()
        let (deploy, weights) = try hostileCaffeNet(in: folder)
        let model = folder.appendingPathComponent("m.mlmodel").path
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ["caffe", deploy, weights, "-o", model]).status, 0)

        let dot = try ProgramRunner.run("coreml-inspect", [model, "--graph", "dot", "--graph-output", "-"])
        XCTAssertEqual(dot.status, 0, dot.standardError)
        assertNoControlCharacters(dot.standardOutput, "the DOT text")

        let svg = try ProgramRunner.run("coreml-inspect", [model, "--graph", "svg", "--graph-output", "-"])
        XCTAssertEqual(svg.status, 0, svg.standardError)
        assertNoControlCharacters(svg.standardOutput, "the SVG")
        let parser = XMLParser(data: Data(svg.standardOutput.utf8))
        parser.shouldResolveExternalEntities = false
        XCTAssertTrue(parser.parse(), "the SVG is well-formed XML: \(parser.parserError.map { "\($0)" } ?? "")")

        let json = try ProgramRunner.run("coreml-inspect", [model, "--layers", "--json"])
        XCTAssertEqual(json.status, 0, json.standardError)
        assertNoControlCharacters(json.standardOutput, "the JSON")
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let names = (document["layers"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        XCTAssertTrue(names.contains(Self.hostileName), "JSON keeps the name exactly: \(names)")
    }

    /// Was: Graphviz reads HTML entities in every label and copies them into
    /// its SVG, so a layer named `&#1;` made the SVG invalid XML and one
    /// named `&amp;` was drawn as `&`. Each `&` is written `&amp;` in the
    /// DOT text: the SVG parses, and its text shows each name as it is.
    func testAmpersandsAndAngleBracketsInNamesReachTheSVGAsThemselves() throws {
        let layer = #"a&b &#1; <c> "d" &amp;"#, tensor = "x&#38;y<z>"
        let deploy = try temporaryFolder().appendingPathComponent("deploy.prototxt")
        try """
            input: "data"
            input_shape { dim: 1 dim: 3 dim: 4 dim: 4 }
            layer { name: "\(layer.replacingOccurrences(of: "\"", with: "\\\""))" type: "ReLU" bottom: "data" top: "\(tensor)" }
            layer { name: "prob" type: "Softmax" bottom: "\(tensor)" top: "prob" }
            """.write(to: deploy, atomically: false, encoding: .utf8)
        let dot = try ProgramRunner.run("coreml-inspect", [deploy.path, "--graph", "dot", "--graph-output", "-"])
        XCTAssertEqual(dot.status, 0, dot.standardError)
        XCTAssertTrue(dot.standardOutput.contains(#"label="a&amp;b &amp;#1; <c> \"d\" &amp;amp;\nactivation\n"#), dot.standardOutput)
        XCTAssertTrue(dot.standardOutput.contains(#"[label="x&amp;#38;y<z>"];"#), dot.standardOutput)

        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dot") else { throw XCTSkip("Graphviz's dot is not installed") }
        let svg = try ProgramRunner.run("coreml-inspect", [deploy.path, "--graph", "svg", "--graph-output", "-"])
        XCTAssertEqual(svg.status, 0, svg.standardError)
        let texts = SVGTexts()
        let parser = XMLParser(data: Data(svg.standardOutput.utf8))
        parser.shouldResolveExternalEntities = false
        parser.delegate = texts
        XCTAssertTrue(parser.parse(), "the SVG is well-formed XML: \(parser.parserError.map { "\($0)" } ?? ""): \(svg.standardOutput)")
        XCTAssertTrue(texts.lines.contains(layer), "\(texts.lines)")
        XCTAssertTrue(texts.lines.contains(tensor), "the edge out of the layer: \(texts.lines)")
    }

    /// The text of an SVG's `<text>` elements, entities decoded.
    final class SVGTexts: NSObject, XMLParserDelegate {
        var lines: [String] = []
        var current: String?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            if name == "text" { current = "" }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { current? += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text", let text = current { lines.append(text) }
            current = nil
        }
    }

    /// Labels with control characters are escaped in predict's output.
    func testLabelsAreEscapedInPredictions() throws {
        let folder = try temporaryFolder()
        let labels = folder.appendingPathComponent("labels.txt")
        try "0-2\u{1B}[2J\n4-6\n8-13\n15-20\u{07}\n25-32\n38-43\n48-53\n60\n".write(to: labels, atomically: false, encoding: .utf8)
        let samples = repositoryRoot.appendingPathComponent("Samples")
        let model = folder.appendingPathComponent("AgeNet.mlmodel").path
        let converted = try ProgramRunner.run("coreml-convert", [
            "caffe", samples.appendingPathComponent("deploy_age.prototxt").path, samples.appendingPathComponent("age_net.caffemodel").path,
            "--image-input", "data", "--is-bgr", "--class-labels", labels.path, "-o", model])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        assertNoControlCharacters(converted.standardOutput, "convert's summary")
        let predicted = try ProgramRunner.run("coreml-predict", [model, samples.appendingPathComponent("face.png").path, "--max-results", "8"])
        XCTAssertEqual(predicted.status, 0, predicted.standardError)
        assertNoControlCharacters(predicted.standardOutput, "predict's labels")
        XCTAssertTrue(predicted.standardOutput.contains(#"0-2\u{1B}[2J"#), predicted.standardOutput)
    }

    /// A .npy file of float32 values ([C, H, W], little-endian).
    func writeNpy(_ values: [Float], shape: [Int], to url: URL) throws {
        var header = "{'descr': '<f4', 'fortran_order': False, 'shape': (\(shape.map(String.init).joined(separator: ", ")),), }"
        header += String(repeating: " ", count: (64 - (10 + header.utf8.count + 1) % 64) % 64) + "\n"
        var bytes: [UInt8] = [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)]
        bytes += Array(header.utf8)
        for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        try Data(bytes).write(to: url)
    }

    /// Weights holding NaN and infinity make NaN outputs: predict shows
    /// them (text: a warning and `nan`; JSON: null and a `warnings` entry)
    /// instead of printing nothing.
    func testNaNOutputsShow() throws {
        let folder = try temporaryFolder()
        let malformed = repositoryRoot.appendingPathComponent("Tests/Fixtures/malformed/caffemodel")
        let labels = folder.appendingPathComponent("labels.txt")
        try "a\nb\nc\n".write(to: labels, atomically: false, encoding: .utf8)
        let model = folder.appendingPathComponent("nan.mlmodel").path
        let converted = try ProgramRunner.run("coreml-convert", [
            "caffe", malformed.appendingPathComponent("tiny.prototxt").path, malformed.appendingPathComponent("nan_inf_weights.caffemodel").path,
            "--class-labels", labels.path, "-o", model])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        let input = folder.appendingPathComponent("x.npy")
        try writeNpy((0..<18).map { Float($0) / 18 }, shape: [2, 3, 3], to: input)

        let text = try ProgramRunner.run("coreml-predict", [model, "--input", "data=" + input.path])
        XCTAssertEqual(text.status, 0, text.standardError)
        XCTAssertTrue(text.standardOutput.contains("warning: output 'classLabelProbs' holds 3 NaN values"), text.standardOutput)
        XCTAssertEqual(text.standardOutput.components(separatedBy: "nan").count - 1, 3, text.standardOutput)

        let json = try ProgramRunner.run("coreml-predict", [model, "--input", "data=" + input.path, "--json"])
        XCTAssertEqual(json.status, 0, json.standardError)
        let results = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        let first = try XCTUnwrap(results.first)
        let entries = try XCTUnwrap(first["results"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 3)
        XCTAssertTrue(entries.allSatisfy { $0["probability"] is NSNull }, "\(entries)")
        XCTAssertEqual(first["warnings"] as? [String], ["output 'classLabelProbs' holds 3 NaN values (null in this JSON)"])
    }
}

import Foundation
import TestSupport
import XCTest

/// What the picture shows: colours by kind, a detector as its pipeline.
extension GraphCommandTests {
    /// Was: every box white. Each layer is filled with its family's colour
    /// (one colour per family, different families different colours),
    /// light enough for black text (WCAG contrast 7:1 or more), its label
    /// still naming its kind; a legend names the families drawn.
    func testLayersAreColouredByKind() throws {
        let result = try ProgramRunner.run("coreml-inspect", [samples + "deploy_age.prototxt", "--graph", "dot", "--graph-output", "-"])
        XCTAssertEqual(result.status, 0, result.standardError)
        let pattern = try NSRegularExpression(pattern: #"^  (n|in|out)\d+ \[(?:shape=ellipse, )?label="[^"\\]*(?:\\.[^"\\]*)*", fillcolor="(#[0-9a-f]{6})"\];$"#,
                                              options: .anchorsMatchLines)
        let text = result.standardOutput
        var colourOfKind: [String: String] = [:]
        var nodes = 0
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let line = String(text[Range(match.range, in: text)!])
            let colour = String(text[Range(match.range(at: 2), in: text)!])
            let kind = line.hasPrefix("  in") ? "input" : line.hasPrefix("  out") ? "output"
                : line.components(separatedBy: "\\n")[1]
            XCTAssertEqual(colourOfKind[kind] ?? colour, colour, "every \(kind) the same colour")
            colourOfKind[kind] = colour
            XCTAssertGreaterThanOrEqual(contrastWithBlack(colour), 7, "\(colour) is light enough for black text")
            nodes += 1
        }
        XCTAssertEqual(nodes, 20, "every node filled: \(text)")
        let families = ["input", "convolution", "activation", "pooling", "lrn", "innerProduct", "flatten", "softmax"]
        XCTAssertEqual(Set(colourOfKind.keys), Set(families + ["output"]))
        XCTAssertEqual(Set(families.compactMap { colourOfKind[$0] }).count, families.count, "one colour per family: \(colourOfKind)")
        XCTAssertEqual(colourOfKind["softmax"], colourOfKind["output"], "softmax and the outputs: one family")
        for (title, kind) in [("convolution", "convolution"), ("activation", "activation"), ("normalization", "lrn"),
                              ("inner product, matmul", "innerProduct"), ("softmax, output", "softmax")] {
            XCTAssertTrue(text.contains("<td bgcolor=\"\(colourOfKind[kind] ?? "?")\">\(title)</td>"), "legend: \(title)")
        }
        XCTAssertFalse(text.contains("element-wise"), "the legend lists only the families drawn")

        // A weights file on its own (Caffe's layer types): the same palette.
        let weights = try ProgramRunner.run("coreml-inspect", [samples + "age_net.caffemodel", "--graph", "dot", "--graph-output", "-"])
        XCTAssertEqual(weights.status, 0, weights.standardError)
        XCTAssertTrue(weights.standardOutput.contains("\\nConvolution\\n[8,3,7,7] [8]\", fillcolor=\"\(colourOfKind["convolution"] ?? "?")\"]"),
                      weights.standardOutput)
        XCTAssertTrue(weights.standardOutput.contains("\\nInnerProduct\\n"), weights.standardOutput)
    }

    /// WCAG's contrast ratio of `#rrggbb` against black.
    func contrastWithBlack(_ colour: String) -> Double {
        let value = Int(colour.dropFirst(), radix: 16) ?? 0
        let channels = [value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF].map { (channel: Int) -> Double in
            let c = Double(channel) / 255
            return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        let luminance = 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]
        return (luminance + 0.05) / 0.05
    }

    // MARK: Pipelines

    /// Was: a detector drawn as its network alone, the thresholds and the
    /// outputs unconnected ellipses. Now each model of the pipeline is a
    /// cluster (the network, its box decoding inside it, the non-maximum
    /// suppression with its thresholds), joined by the features they pass.
    func testADetectorIsDrawnAsItsPipeline() throws {
        let folder = try temporaryFolder()
        let detector = fixtures + "darknet/detector/"
        let yolo = folder.appendingPathComponent("Detector.mlmodel").path
        let convert = try ProgramRunner.run("coreml-convert", ["darknet", detector + "model.cfg", detector + "model.weights",
                                                               "--iou-threshold", "0.4", "--confidence-threshold", "0.2", "-o", yolo, "-q"])
        XCTAssertEqual(convert.status, 0, convert.standardError)
        let ssd = fixtures + "caffe/ssd/"
        let runs: [(String, [String], [String], String)] = [
            ("YOLOv2", [yolo], ["conv_0", "conv_6"], "region_0_x"),
            ("SSD", [ssd + "deploy.prototxt", ssd + "weights.caffemodel"], ["conv0", "conv1_mbox_loc"], "detection_out__boxes"),
        ]
        for (name, files, network, decoding) in runs {
            let result = try ProgramRunner.run("coreml-inspect", files + ["--graph", "dot", "--graph-output", "-"])
            XCTAssertEqual(result.status, 0, result.standardError)
            let text = result.standardOutput
            let clusters = ["network", "decoding", "nonMaximumSuppression"].map { "subgraph cluster_\($0) {" }
            let starts = clusters.map { text.range(of: $0)?.lowerBound }
            XCTAssertFalse(starts.contains(nil), "\(name): every stage a cluster: \(text)")
            guard let networkStart = starts[0], let decodingStart = starts[1], let suppressionStart = starts[2] else { continue }
            let networkPart = text[networkStart..<decodingStart], decodingPart = text[decodingStart..<suppressionStart]
            let suppressionPart = text[suppressionStart...].prefix { $0 != "}" }
            for layer in network { XCTAssertTrue(networkPart.contains("[label=\"\(layer)\\n"), "\(name): \(layer) in the network") }
            XCTAssertTrue(decodingPart.contains("[label=\"\(decoding)\\n"), "\(name): \(decoding) in the decoding")
            for layer in network { XCTAssertFalse(decodingPart.contains("[label=\"\(layer)\\n"), "\(name): \(layer) is not decoding") }
            let (iou, confidence) = name == "SSD" ? ("0.45", "0.3") : ("0.4", "0.2")
            XCTAssertTrue(suppressionPart.contains("nms [label=\"NonMaximumSuppression\\nIoU threshold \(iou)\\nconfidence threshold \(confidence)\\n"),
                          "\(name): \(suppressionPart)")
            // The features between the stages, by name; the pipeline's own inputs and outputs.
            for (from, to, feature) in [(nil, "nms", "raw_confidence"), (nil, "nms", "raw_coordinates"),
                                        ("in1", "nms", "iouThreshold"), ("in2", "nms", "confidenceThreshold"),
                                        ("nms", "out0", "confidence"), ("nms", "out1", "coordinates")] {
                let edge = "-> \(to) [label=\"\(feature)\"];"
                XCTAssertTrue(text.contains((from.map { "  \($0) " } ?? "") + edge), "\(name): \(feature) from \(from ?? "a layer") to \(to)")
            }
            XCTAssertTrue(text.contains("in1 [shape=ellipse, label=\"iouThreshold\\ndouble (optional)\\ndefault \(iou)\""), name)
            XCTAssertTrue(text.contains("out0 [shape=ellipse, label=\"confidence\\n"), name)
            // No edge statement inside a cluster (it would pull its ends into it).
            XCTAssertFalse(text[networkStart...].prefix { _ in true }.split(separator: "\n").contains { $0.hasPrefix("    ") && $0.contains(" -> ") })

            guard hasGraphviz else { continue }
            // Graphviz lays it out without a warning (a node in two clusters would be one).
            let dot = Process()
            dot.executableURL = URL(fileURLWithPath: "/usr/bin/dot")
            dot.arguments = ["-Tsvg", "-o", "/dev/null"]
            let input = Pipe(), errors = Pipe()
            (dot.standardInput, dot.standardError) = (input, errors)
            try dot.run()
            input.fileHandleForWriting.write(Data(text.utf8))
            try input.fileHandleForWriting.close()
            let warnings = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            dot.waitUntilExit()
            XCTAssertEqual(dot.terminationStatus, 0)
            XCTAssertEqual(warnings, "", name)
        }
    }
}

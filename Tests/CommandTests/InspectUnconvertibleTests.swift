import Foundation
import TestSupport
import XCTest

/// `coreml-inspect` on a model that parses but does not convert (issue 32:
/// "inspect refuses what convert cannot convert; Netron opens anything"):
/// exit 0, the model as the file states it, and a `Cannot convert:` list
/// of every obstacle, each one line of at most 100 columns. A file that
/// does not parse is still one error line.
final class InspectUnconvertibleTests: XCTestCase {
    let fixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures/onnx").path + "/"

    /// Every line of `text` fits a terminal and holds no escape character.
    func assertFitsATerminal(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        for printed in text.split(separator: "\n") {
            XCTAssertLessThanOrEqual(printed.count, 100, String(printed), file: file, line: line)
            XCTAssertFalse(printed.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || (0x80..<0xA0).contains($0.value) },
                           String(printed), file: file, line: line)
        }
    }

    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    /// Was: `error: ...: 3 nodes of 2 unsupported op types: ...`, exit 1 (convert's words).
    func testUnsupportedOpsRefusedAttributeAndOpenSizesAreAllListed() throws {
        let folder = try temporaryFolder()
        let model = ONNXFile(inputs: [.init("x", dims: ["batch", 3, "h", "w"])], outputs: [.init("y", dims: nil)],
                             initializers: [("W", [4, 3, 3, 3])], nodes: [
                                 .init("conv", "Conv", ["x", "W"], ["c"]),
                                 .init("relu", "Relu", ["c"], ["r"], attributes: [("bogus", 1)]),
                                 .init("lstm_a", "LSTM", ["r"], ["l1"]),
                                 .init("lstm_b", "LSTM", ["l1"], ["l2"]),
                                 .init("nms", "NonMaxSuppression", ["l2"], ["y"]),
                             ])
        let path = try model.write(in: folder, named: "model.onnx")
        let result = try ProgramRunner.run("coreml-inspect", [path])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertEqual(result.standardError, "")
        let text = result.standardOutput
        for expected in ["Format:       ONNX model", "Kind:         not convertible as it is",
                         "  x: float32 [batch, 3, h, w]", "  y: float32 shape not stated",
                         "Layers:       5 nodes (LSTM 2, Conv 1, NonMaxSuppression 1, Relu 1)",
                         "Parameters:   108 in 1 stored tensor",
                         "Cannot convert: 4 obstacles",
                         "  op LSTM is not supported: 2 nodes, first 'lstm_a'",
                         "  op NonMaxSuppression is not supported: 1 node, first 'nms'",
                         "  node 'relu' (Relu): ", "bogus",
                         "  input 'x': sizes at axes 2, 3 open: give them with --input-shape x=1,3,?,?"] {
            XCTAssertTrue(text.contains(expected), "'\(expected)' not in:\n\(text)")
        }
        assertFitsATerminal(text)

        let document = try json(try ProgramRunner.run("coreml-inspect", [path, "--json"]).standardOutput)
        XCTAssertEqual(document["convertible"] as? Bool, false)
        XCTAssertEqual(document["kind"] as? String, "unconverted")
        let obstacles = try XCTUnwrap(document["obstacles"] as? [[String: Any]])
        XCTAssertEqual(obstacles.map { $0["kind"] as? String }, ["unsupportedOp", "unsupportedOp", "refusedAttribute", "inputShape"])
        XCTAssertEqual(obstacles[0]["op"] as? String, "LSTM")
        XCTAssertEqual(obstacles[0]["count"] as? Int, 2)
        XCTAssertEqual(obstacles[2]["node"] as? String, "relu")
        XCTAssertEqual(obstacles[3]["option"] as? String, "--input-shape x=1,3,?,?")
        let inputs = try XCTUnwrap(document["inputs"] as? [[String: Any]])
        let shape = try XCTUnwrap(inputs.first?["shape"] as? [Any])
        XCTAssertEqual(shape.count, 4)
        XCTAssertEqual(shape[0] as? String, "batch")
        XCTAssertEqual(shape[1] as? Int, 3)
        XCTAssertEqual((document["layers"] as? [Any])?.count, 5)

        // --layers: the nodes as the file states them.
        let layers = try ProgramRunner.run("coreml-inspect", [path, "--layers"])
        XCTAssertEqual(layers.status, 0, layers.standardError)
        XCTAssertTrue(layers.standardOutput.contains("op type"), layers.standardOutput)
        XCTAssertNotNil(layers.standardOutput.range(of: #"3\s+lstm_b\s+LSTM\s+l1 -> l2"#, options: .regularExpression), layers.standardOutput)
        XCTAssertNotNil(layers.standardOutput.range(of: #"0\s+conv\s+Conv\s+x, W -> c"#, options: .regularExpression), layers.standardOutput)
        assertFitsATerminal(layers.standardOutput)

        // convert still refuses it, with every unsupported op at once.
        let output = folder.appendingPathComponent("m.mlmodel").path
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", path, "-o", output],
                                         "3 nodes of 2 unsupported op types: LSTM x2 (lstm_a, lstm_b); NonMaxSuppression x1 (nms)")
    }

    /// Was: exit 1 on the suite's own fixture of unsupported ops.
    func testTheUnsupportedOpsFixtureIsShown() throws {
        let result = try ProgramRunner.run("coreml-inspect", [fixtures + "ops/unsupported_ops.onnx"])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("op LSTM is not supported: 2 nodes, first 'lstm_a'"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("op NonMaxSuppression is not supported: 1 node, first 'nms'"), result.standardOutput)
        // Its two initializers are counted, not read, and not called absent.
        let statistics = try ProgramRunner.run("coreml-inspect", [fixtures + "ops/unsupported_ops.onnx", "--weight-stats"])
        XCTAssertEqual(statistics.status, 0, statistics.standardError)
        XCTAssertTrue(statistics.standardOutput.hasSuffix("Weight statistics: not read for a model that does not convert (2 stored tensors).\n"),
                      statistics.standardOutput)
    }

    /// Was: exit 1 with "batch 2 ... only batch 1 is supported"; now the converter's words as an obstacle.
    func testAnInputTheConverterCannotTakeIsAnObstacle() throws {
        let result = try ProgramRunner.run("coreml-inspect", [fixtures + "hostile/batch_2.onnx"])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("Cannot convert: 1 obstacle"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("only batch 1 is supported"), result.standardOutput)
        assertFitsATerminal(result.standardOutput)
    }

    /// A file that does not parse is still one error line and exit 1.
    func testAFileThatDoesNotParseIsStillAnError() throws {
        try ProgramRunner.assertOneError("coreml-inspect", [fixtures + "hostile/truncated.onnx"], "truncated.onnx")
        let folder = try temporaryFolder()
        var bytes = try ONNXFile(inputs: [.init("x", dims: [1, 3])], outputs: [.init("y", dims: [1, 3])],
                                 nodes: [.init("lstm", "LSTM", ["x"], ["y"])]).bytes()
        bytes.removeLast(3)
        let path = folder.appendingPathComponent("cut.onnx").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try ProgramRunner.assertOneError("coreml-inspect", [path], "cut.onnx")
    }

    /// 10,000 nodes, none supported: the summary counts them by type (a
    /// few lines), `--json` keeps every obstacle; 10,000 distinct op types
    /// are cut to 40 lines and counted.
    func testTenThousandUnsupportedNodesStayBounded() throws {
        let folder = try temporaryFolder()
        let count = 10_000
        func chain(_ op: (Int) -> String) -> ONNXFile {
            ONNXFile(inputs: [.init("x", dims: [1, 8])], outputs: [.init("t\(count)", dims: [1, 8])],
                     nodes: (0..<count).map { .init("n\($0)", op($0), [$0 == 0 ? "x" : "t\($0)"], ["t\($0 + 1)"]) })
        }
        let three = try chain { ["Foo", "Bar", "Baz"][$0 % 3] }.write(in: folder, named: "three.onnx")
        let result = try ProgramRunner.run("coreml-inspect", [three])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("Layers:       10000 nodes (Foo 3334, Bar 3333, Baz 3333)"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("op Foo is not supported: 3334 nodes, first 'n0'"), result.standardOutput)
        XCTAssertLessThan(result.standardOutput.split(separator: "\n").count, 20, result.standardOutput)
        assertFitsATerminal(result.standardOutput)

        let distinct = try chain { "Op\($0)" }.write(in: folder, named: "distinct.onnx")
        let many = try ProgramRunner.run("coreml-inspect", [distinct])
        XCTAssertEqual(many.status, 0, many.standardError)
        XCTAssertTrue(many.standardOutput.contains("Cannot convert: 10000 obstacles"), many.standardOutput)
        XCTAssertTrue(many.standardOutput.contains("  ... and 9960 more (--json lists every one)"), many.standardOutput)
        XCTAssertTrue(many.standardOutput.contains("and 9988 more op types"), many.standardOutput)
        XCTAssertLessThan(many.standardOutput.split(separator: "\n").count, 70, many.standardOutput)
        assertFitsATerminal(many.standardOutput)
        // Counted in the text: parsed, 10,000 obstacles and layers would raise this test process's peak
        // memory, which the programs it spawns inherit (SparseFileBoundedReadTests measures theirs).
        let text = try ProgramRunner.run("coreml-inspect", [distinct, "--json"]).standardOutput
        XCTAssertEqual(text.components(separatedBy: #""kind": "unsupportedOp""#).count - 1, count)
    }

    /// Names that are not UTF-8, and op types and names carrying terminal
    /// escape sequences: shown escaped, never sent to the terminal.
    func testHostileNamesAreShownEscaped() throws {
        let folder = try temporaryFolder()
        let escape = "\u{1B}]0;pwned\u{07}\u{1B}[2J"
        let model = ONNXFile(inputs: [.init("x", dims: [1, 8])], outputs: [.init("z", dims: [1, 8])], nodes: [
            .init(Array("bad".utf8) + [0xFF] + Array("name".utf8), Array("Op".utf8) + [0xFE], ["x"], ["y"]),
            .init("evil" + escape, "Evil" + escape, ["y"], ["z"]),
        ])
        let path = try model.write(in: folder, named: "names.onnx")
        let result = try ProgramRunner.run("coreml-inspect", [path])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("not valid UTF-8"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("op Evil\\u{1B}]0;pwned\\u{7}\\u{1B}[2J is not supported"), result.standardOutput)
        assertFitsATerminal(result.standardOutput)
        let layers = try ProgramRunner.run("coreml-inspect", [path, "--layers"])
        XCTAssertEqual(layers.status, 0, layers.standardError)
        assertFitsATerminal(layers.standardOutput)
        XCTAssertEqual(try ProgramRunner.run("coreml-inspect", [path, "--json"]).status, 0)
    }

    /// A cycle (ONNX requires topological order): shown, with convert's reason.
    func testACycleIsShownWithItsReason() throws {
        let folder = try temporaryFolder()
        let model = ONNXFile(inputs: [.init("x", dims: [1, 8])], outputs: [.init("t2", dims: [1, 8])], nodes: [
            .init("add", "Add", ["x", "t2"], ["t1"]),
            .init("relu", "Relu", ["t1"], ["t2"]),
        ])
        let path = try model.write(in: folder, named: "cycle.onnx")
        let result = try ProgramRunner.run("coreml-inspect", [path])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("Cannot convert: 1 obstacle"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("  node 'add' (Add): reads 't2', which no earlier node or initializer gives"),
                      result.standardOutput)
        let document = try json(try ProgramRunner.run("coreml-inspect", [path, "--json"]).standardOutput)
        XCTAssertEqual((document["obstacles"] as? [[String: Any]])?.first?["kind"] as? String, "other")
    }

    /// A TensorFlow text graph of the given nodes (pbtxt `node { ... }` bodies).
    func graph(_ nodes: [String], in folder: URL, named name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try nodes.map { "node { \($0) }" }.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let float = #"attr { key: "T" value { type: DT_FLOAT } }"#

    /// Was: exit 1 with the first placeholder's error (`shape [1, -1, -1, 3] is not ...`).
    func testATensorFlowGraphThatDoesNotConvertIsShown() throws {
        let folder = try temporaryFolder()
        let path = try graph([
            #"name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } "#
                + #"attr { key: "shape" value { shape { dim { size: -1 } dim { size: -1 } dim { size: -1 } dim { size: 3 } } } }"#,
            #"name: "a" op: "FooBar" input: "x""#,
            #"name: "b" op: "FooBar" input: "a""#,
            #"name: "r" op: "Relu" input: "b" "# + Self.float + #" attr { key: "bogus" value { i: 1 } }"#,
        ], in: folder, named: "graph.pbtxt")
        let result = try ProgramRunner.run("coreml-inspect", [path])
        XCTAssertEqual(result.status, 0, result.standardError)
        for expected in ["Format:       TensorFlow graph (text)", "  x: DT_FLOAT [?, ?, ?, 3]", "  r: shape not stated",
                         "Layers:       4 nodes (FooBar 2, Placeholder 1, Relu 1)", "Cannot convert: 3 obstacles",
                         "  op FooBar is not supported: 2 nodes, first 'a'", "  node 'r' (Relu): bogus",
                         "  placeholder 'x': sizes at axes 1, 2 open: give them with --input-shape x=1,?,?,3"] {
            XCTAssertTrue(result.standardOutput.contains(expected), "'\(expected)' not in:\n\(result.standardOutput)")
        }
        assertFitsATerminal(result.standardOutput)
        let document = try json(try ProgramRunner.run("coreml-inspect", [path, "--json"]).standardOutput)
        XCTAssertEqual(document["convertible"] as? Bool, false)
        XCTAssertEqual((document["obstacles"] as? [[String: Any]])?.map { $0["kind"] as? String }, ["unsupportedOp", "refusedAttribute", "inputShape"])
        let layers = try ProgramRunner.run("coreml-inspect", [path, "--layers"])
        XCTAssertNotNil(layers.standardOutput.range(of: #"2\s+b\s+FooBar\s+a -> b"#, options: .regularExpression), layers.standardOutput)
        // convert still refuses it.
        try ProgramRunner.assertOneError("coreml-convert", ["tensorflow", path, "-o", folder.appendingPathComponent("m.mlmodel").path],
                                         "node 'x' (Placeholder)")
    }

    /// A TensorFlow cycle, and a text graph that does not parse.
    func testATensorFlowCycleIsShownAndAFileThatDoesNotParseIsAnError() throws {
        let folder = try temporaryFolder()
        let cycle = try graph([
            #"name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 1 } dim { size: 4 } } } }"#,
            #"name: "a" op: "Add" input: "x" input: "b" "# + Self.float,
            #"name: "b" op: "Relu" input: "a" "# + Self.float,
            #"name: "out" op: "Relu" input: "b" "# + Self.float,
        ], in: folder, named: "cycle.pbtxt")
        let result = try ProgramRunner.run("coreml-inspect", [cycle])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("  the graph has a cycle through 'b'"), result.standardOutput)
        let broken = try graph([#"name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT "#], in: folder, named: "broken.pbtxt")
        try ProgramRunner.assertOneError("coreml-inspect", [broken], "broken.pbtxt:")
    }

    /// 10,000 TensorFlow nodes of unsupported ops: counted by type.
    func testTenThousandUnsupportedTensorFlowNodesStayBounded() throws {
        let folder = try temporaryFolder()
        var nodes = [#"name: "n0" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 1 } dim { size: 4 } } } }"#]
        for index in 1...10_000 { nodes.append("name: \"n\(index)\" op: \"\(index % 2 == 0 ? "Foo" : "Bar")\" input: \"n\(index - 1)\"") }
        let path = try graph(nodes, in: folder, named: "many.pbtxt")
        let result = try ProgramRunner.run("coreml-inspect", [path])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("  op Bar is not supported: 5000 nodes, first 'n1'"), result.standardOutput)
        XCTAssertLessThan(result.standardOutput.split(separator: "\n").count, 20, result.standardOutput)
        assertFitsATerminal(result.standardOutput)
    }

    /// Was: exit 1 on each (the Lambda's, GroupNormalization's and the open input's error).
    func testKerasModelsThatDoNotConvertAreShown() throws {
        let keras = repositoryRoot.appendingPathComponent("Tests/Fixtures/keras").path + "/"
        let cases = [("unsupported_layer", "  layer GroupNormalization is not supported: 1 layer, first 'group_norm'"),
                     ("lambda_layer", "  layer Lambda is not supported (it holds Python code, never run): 1 layer, first 'times_two'"),
                     ("dynamic_input", "  input 'image': sizes at axes 1, 2 open: give them with --input-shape image=1,?,?,3")]
        for (name, obstacle) in cases {
            let path = keras + name + "/model.h5"
            let result = try ProgramRunner.run("coreml-inspect", [path])
            XCTAssertEqual(result.status, 0, "\(name): \(result.standardError)")
            XCTAssertTrue(result.standardOutput.contains("Format:       Keras model (HDF5)"), result.standardOutput)
            XCTAssertTrue(result.standardOutput.contains("Cannot convert: 1 obstacle"), result.standardOutput)
            XCTAssertTrue(result.standardOutput.contains(obstacle), "'\(obstacle)' not in:\n\(result.standardOutput)")
            assertFitsATerminal(result.standardOutput)
            let document = try json(try ProgramRunner.run("coreml-inspect", [path, "--json"]).standardOutput)
            XCTAssertEqual(document["convertible"] as? Bool, false, name)
        }
        let layers = try ProgramRunner.run("coreml-inspect", [keras + "lambda_layer/model.h5", "--layers"])
        XCTAssertNotNil(layers.standardOutput.range(of: #"times_two\s+Lambda"#, options: .regularExpression), layers.standardOutput)
    }

    /// Was: exit 1 with `layer 'a' has the unsupported type 'FancyLayer'` (the first only).
    func testACaffeDeployDefinitionThatDoesNotConvertIsShown() throws {
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("deploy.prototxt").path
        try """
            name: "t"
            input: "data"
            input_shape { dim: 1 dim: 3 dim: 8 dim: 8 }
            layer { name: "a" type: "FancyLayer" bottom: "data" top: "a" }
            layer { name: "b" type: "FancyLayer" bottom: "a" top: "b" }
            layer { name: "c1" type: "Convolution" bottom: "b" top: "c1" convolution_param { num_output: 4 kernel_size: 3 fancy_knob: 2 } }
            layer { name: "c2" type: "Convolution" bottom: "c1" top: "c2" convolution_param { num_output: 4 kernel_size: 3 fancy_knob: 2 } }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try ProgramRunner.run("coreml-inspect", [path])
        XCTAssertEqual(result.status, 0, result.standardError)
        for expected in ["Format:       Caffe net", "  data: [1, 3, 8, 8]", "  c2: shape not stated",
                         "Layers:       4 nodes (Convolution 2, FancyLayer 2)", "Cannot convert: 2 obstacles",
                         "  layer type FancyLayer is not supported: 2 layers, first 'a'",
                         "  layer 'c1' (Convolution): unknown field fancy_knob (not BVLC Caffe's) (and 1 more alike)"] {
            XCTAssertTrue(result.standardOutput.contains(expected), "'\(expected)' not in:\n\(result.standardOutput)")
        }
        assertFitsATerminal(result.standardOutput)
        let document = try json(try ProgramRunner.run("coreml-inspect", [path, "--json"]).standardOutput)
        XCTAssertEqual(document["convertible"] as? Bool, false)
        let layers = try ProgramRunner.run("coreml-inspect", [path, "--layers"])
        XCTAssertNotNil(layers.standardOutput.range(of: #"1\s+b\s+FancyLayer\s+a -> b"#, options: .regularExpression), layers.standardOutput)
        // A syntax error is still one error line, located.
        try "layer { name: \"a\" type: ".write(toFile: path, atomically: true, encoding: .utf8)
        try ProgramRunner.assertOneError("coreml-inspect", [path], "deploy.prototxt:1:")
    }

    /// Was: exit 1 with `n.cfg:6: [shortcut] is a layer type this toolkit does not convert yet` (the first only;
    /// [shortcut] and [upsample] convert since issue 35, [local] and [crnn] stand in for them).
    func testADarknetDefinitionThatDoesNotConvertIsShown() throws {
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("net.cfg").path
        try """
            [net]
            width=8
            height=8
            channels=3

            [convolutional]
            filters=4
            size=3
            stride=1
            pad=1
            activation=leaky

            [local]
            filters=4

            [local]
            filters=4

            [crnn]
            hidden=2
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try ProgramRunner.run("coreml-inspect", [path])
        XCTAssertEqual(result.status, 0, result.standardError)
        for expected in ["Format:       Darknet network", "  image: [1, 3, 8, 8]", "  crnn_3: shape not stated",
                         "Layers:       4 nodes (local 2, convolutional 1, crnn 1)", "Cannot convert: 2 obstacles",
                         "  layer type [local] is not supported: 2 layers, first local_1 (line 13)",
                         "  layer type [crnn] is not supported: 1 layer, first crnn_3 (line 19)"] {
            XCTAssertTrue(result.standardOutput.contains(expected), "'\(expected)' not in:\n\(result.standardOutput)")
        }
        assertFitsATerminal(result.standardOutput)
        let document = try json(try ProgramRunner.run("coreml-inspect", [path, "--json"]).standardOutput)
        XCTAssertEqual(document["convertible"] as? Bool, false)
        let layers = try ProgramRunner.run("coreml-inspect", [path, "--layers"])
        XCTAssertNotNil(layers.standardOutput.range(of: #"2\s+local_2\s+local\s+local_1 -> local_2"#, options: .regularExpression),
                        layers.standardOutput)
    }
}

import Foundation
import ModelFormat
import TensorFlowFrontend
import TestSupport
import XCTest

/// Calls into a graph's function library are inlined (the values are
/// checked against TensorFlow in TensorFlowParityTests.testKeras3LayersFrozen),
/// and a library that does not add up is one error naming the call.
final class FunctionCallTests: XCTestCase {
    let placeholder = """
        node { name: "x" op: "Placeholder" attr { key: "shape" value { shape { dim { size: 1 } dim { size: 4 } dim { size: 4 } dim { size: 2 } } } } }

        """

    func convert(_ text: String) throws -> Model {
        let path = try temporaryFolder().appendingPathComponent("graph.pbtxt").path
        try (placeholder + text).write(toFile: path, atomically: false, encoding: .utf8)
        return try TensorFlowConverter.convert(graph: path)
    }

    func refusal(_ text: String) -> String {
        do {
            _ = try convert(text)
            return "converted"
        } catch {
            return "\(error)"
        }
    }

    func testACallBecomesItsBodyAndNestedCallsToo() throws {
        let model = try convert("""
            node { name: "call" op: "StatefulPartitionedCall" input: "x" attr { key: "f" value { func { name: "outer" } } } }
            node { name: "out" op: "Sigmoid" input: "call" }
            library {
              function { signature { name: "inner" input_arg { name: "a" } output_arg { name: "b" } }
                node_def { name: "tanh" op: "Tanh" input: "a" } ret { key: "b" value: "tanh:y:0" } }
              function { signature { name: "outer" input_arg { name: "v" } output_arg { name: "w" } }
                node_def { name: "relu" op: "Relu" input: "v" }
                node_def { name: "nested" op: "PartitionedCall" input: "relu:activations:0" attr { key: "f" value { func { name: "inner" } } } }
                ret { key: "w" value: "nested:output:0" } }
            }
            """)
        XCTAssertEqual(model.nodes.map(\.operation), [.activation(.relu), .activation(.tanh), .activation(.sigmoid)])
        XCTAssertEqual(model.nodes.map(\.name), ["call/relu", "call/nested/tanh", "out"])
        XCTAssertNoThrow(try model.validate())
    }

    func testALibraryThatDoesNotAddUpIsRefused() {
        let cases: [(String, String)] = [
            ("node { name: \"call\" op: \"PartitionedCall\" input: \"x\" attr { key: \"f\" value { func { name: \"gone\" } } } }",
             "node 'call' (PartitionedCall): calls a function the graph's library does not hold"),
            ("""
             node { name: "call" op: "PartitionedCall" input: "x" attr { key: "f" value { func { name: "loop" } } } }
             library { function { signature { name: "loop" input_arg { name: "a" } output_arg { name: "b" } }
               node_def { name: "again" op: "PartitionedCall" input: "a" attr { key: "f" value { func { name: "loop" } } } }
               ret { key: "b" value: "again:output:0" } } }
             """, "calls nest more than 8 deep"),
            ("""
             node { name: "call" op: "PartitionedCall" input: "x" attr { key: "f" value { func { name: "f" } } } }
             library { function { signature { name: "f" input_arg { name: "a" } output_arg { name: "b" } }
               ret { key: "b" value: "missing:output:0" } } }
             """, "its function names the tensor 'missing:output:0', which it does not define"),
            ("""
             node { name: "call" op: "PartitionedCall" input: "x" input: "x" attr { key: "f" value { func { name: "f" } } } }
             library { function { signature { name: "f" input_arg { name: "a" } output_arg { name: "b" } }
               node_def { name: "r" op: "Relu" input: "a" } ret { key: "b" value: "r:activations:0" } } }
             """, "passes 2 inputs to a function of 1 arguments"),
        ]
        for (graph, expected) in cases {
            let message = refusal(graph)
            XCTAssertTrue(message.contains("graph.pbtxt") && message.contains(expected), message)
        }
    }
}

import Foundation
import TestSupport
import XCTest

/// A small ONNX model written as protobuf by hand: any names (bytes, so
/// not necessarily UTF-8), any op types, float32 initializers of zeros.
struct ONNXFile {
    struct Value {
        var name: String
        /// Int sizes or String symbols; nil: no shape stated.
        var dims: [Any]?
        init(_ name: String, dims: [Any]?) {
            self.name = name
            self.dims = dims
        }
    }

    struct Node {
        var name: [UInt8]
        var op: [UInt8]
        var inputs: [String]
        var outputs: [String]
        var attributes: [(String, Int)]
        init(_ name: String, _ op: String, _ inputs: [String], _ outputs: [String], attributes: [(String, Int)] = []) {
            self.init(Array(name.utf8), Array(op.utf8), inputs, outputs, attributes: attributes)
        }
        init(_ name: [UInt8], _ op: [UInt8], _ inputs: [String], _ outputs: [String], attributes: [(String, Int)] = []) {
            self.name = name
            self.op = op
            self.inputs = inputs
            self.outputs = outputs
            self.attributes = attributes
        }
    }

    var inputs: [Value]
    var outputs: [Value]
    var initializers: [(String, [Int])] = []
    var nodes: [Node]

    init(inputs: [Value], outputs: [Value], initializers: [(String, [Int])] = [], nodes: [Node]) {
        self.inputs = inputs
        self.outputs = outputs
        self.initializers = initializers
        self.nodes = nodes
    }

    static func varint(_ value: Int) -> [UInt8] {
        var value = UInt64(value), bytes: [UInt8] = []
        repeat {
            bytes.append(UInt8(value & 0x7F) | (value >= 0x80 ? 0x80 : 0))
            value >>= 7
        } while value > 0
        return bytes
    }
    static func number(_ field: Int, _ value: Int) -> [UInt8] { varint(field << 3) + varint(value) }
    static func message(_ field: Int, _ bytes: [UInt8]) -> [UInt8] { varint(field << 3 | 2) + varint(bytes.count) + bytes }
    static func text(_ field: Int, _ string: String) -> [UInt8] { message(field, Array(string.utf8)) }

    static func valueInfo(_ value: Value) -> [UInt8] {
        var tensorType = number(1, 1)  // float
        if let dims = value.dims {
            tensorType += message(2, dims.flatMap { dim in message(1, dim is String ? text(2, dim as! String) : number(1, dim as! Int)) })
        }
        return text(1, value.name) + message(2, message(1, tensorType))
    }

    func bytes() throws -> [UInt8] {
        var graph: [UInt8] = []
        for node in nodes {
            var bytes = node.inputs.flatMap { Self.text(1, $0) } + node.outputs.flatMap { Self.text(2, $0) }
            bytes += Self.message(3, node.name) + Self.message(4, node.op)
            for (name, value) in node.attributes { bytes += Self.message(5, Self.text(1, name) + Self.number(3, value) + Self.number(20, 2)) }
            graph += Self.message(1, bytes)
        }
        graph += Self.text(2, "g")
        for (name, dims) in initializers {
            let count = dims.reduce(1, *)
            graph += Self.message(5, dims.flatMap { Self.number(1, $0) } + Self.number(2, 1) + Self.text(8, name)
                                  + Self.message(9, [UInt8](repeating: 0, count: 4 * count)))
        }
        graph += inputs.flatMap { Self.message(11, Self.valueInfo($0)) } + outputs.flatMap { Self.message(12, Self.valueInfo($0)) }
        return Self.number(1, 7) + Self.message(7, graph) + Self.message(8, Self.number(2, 13))  // IR 7, opset 13
    }

    func write(in folder: URL, named name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(try bytes()).write(to: URL(fileURLWithPath: path))
        return path
    }
}

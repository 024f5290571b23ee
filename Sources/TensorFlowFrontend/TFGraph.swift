import ProtoSchemas
import Protobuf

typealias GraphDef = Tensorflow__GraphDef
typealias AttrValue = Tensorflow__AttrValue

/// One node of a frozen graph: op, data inputs as (node, output index),
/// attributes by name.
struct TFNode {
    var name: String
    var op: String
    var inputs: [TensorRef]
    var attributes: [String: UnsafeMutablePointer<AttrValue>]
}

/// `node:index`; `node` alone is output 0.
struct TensorRef: Hashable, CustomStringConvertible {
    var node: String
    var index: Int

    /// Parses a tensor name with or without `:index` (`^` control
    /// dependencies are filtered out before).
    init(_ text: String) {
        if let colon = text.lastIndex(of: ":"), let index = Int(text[text.index(after: colon)...]) {
            node = String(text[..<colon])
            self.index = index
        } else {
            node = text
            index = 0
        }
    }

    init(node: String, index: Int) {
        self.node = node
        self.index = index
    }

    var description: String { "\(node):\(index)" }
}

/// A parsed GraphDef: its nodes by name and in file order.
struct TFGraph {
    var nodes: [String: TFNode] = [:]
    var order: [String] = []
    let decoded: Decoded<GraphDef>

    init(_ decoded: Decoded<GraphDef>) throws {
        self.decoded = decoded
        let graph = decoded.root.pointee
        for case let node? in CArrays.buffer(graph.node, graph.n_node) {
            let n = node.pointee
            var attributes: [String: UnsafeMutablePointer<AttrValue>] = [:]
            for case let entry? in CArrays.buffer(n.attr, n.n_attr) {
                if let value = entry.pointee.value { attributes[CArrays.string(entry.pointee.key)] = value }
            }
            let name = CArrays.string(n.name)
            guard !name.isEmpty else { throw TensorFlowError("a node has no name (byte \(decoded.offset(of: node)))") }
            guard nodes[name] == nil else { throw TensorFlowError("two nodes are named '\(name)'") }
            let inputs = CArrays.strings(n.input, n.n_input).filter { !$0.hasPrefix("^") }.map(TensorRef.init)
            nodes[name] = TFNode(name: name, op: CArrays.string(n.op), inputs: inputs, attributes: attributes)
            order.append(name)
        }
    }
}

/// Typed access to node attributes, with errors naming node and attribute.
extension TFNode {
    func fail(_ message: String) -> TensorFlowError {
        TensorFlowError("node '\(name)' (\(op)): \(message)")
    }

    func int(_ key: String) -> Int? {
        guard let value = attributes[key], value.pointee.value_case == TENSORFLOW__ATTR_VALUE__VALUE_I else { return nil }
        return Int(value.pointee.i)
    }

    func float(_ key: String) -> Float? {
        guard let value = attributes[key], value.pointee.value_case == TENSORFLOW__ATTR_VALUE__VALUE_F else { return nil }
        return value.pointee.f
    }

    func bool(_ key: String) -> Bool? {
        guard let value = attributes[key], value.pointee.value_case == TENSORFLOW__ATTR_VALUE__VALUE_B else { return nil }
        return value.pointee.b != 0
    }

    func string(_ key: String) -> String? {
        guard let value = attributes[key], value.pointee.value_case == TENSORFLOW__ATTR_VALUE__VALUE_S else { return nil }
        let bytes = value.pointee.s
        guard let data = bytes.data else { return "" }
        return String(decoding: UnsafeBufferPointer(start: data, count: bytes.len), as: UTF8.self)
    }

    func ints(_ key: String) -> [Int]? {
        guard let value = attributes[key], value.pointee.value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST,
              let list = value.pointee.list else { return nil }
        return CArrays.array(list.pointee.i, list.pointee.n_i).map { Int($0) }
    }

    /// A `tensor` attribute (a Const's value). AttrValue's value is a oneof,
    /// a C union in protobuf-c: reading `tensor` when the file stored another
    /// kind (an int, say) would take that int for a pointer.
    func tensor(_ key: String) -> UnsafeMutablePointer<Tensorflow__TensorProto>? {
        guard let value = attributes[key], value.pointee.value_case == TENSORFLOW__ATTR_VALUE__VALUE_TENSOR else { return nil }
        return value.pointee.tensor
    }

    /// A `shape` attribute: dims with -1 for unknown; nil when absent or of unknown rank.
    func shape(_ key: String) -> [Int]? {
        guard let value = attributes[key], value.pointee.value_case == TENSORFLOW__ATTR_VALUE__VALUE_SHAPE,
              let shape = value.pointee.shape, shape.pointee.unknown_rank == 0 else { return nil }
        return CArrays.buffer(shape.pointee.dim, shape.pointee.n_dim).map { Int($0?.pointee.size ?? -1) }
    }

    /// NHWC is the only layout the converter maps.
    func requireNHWC() throws {
        if let format = string("data_format"), format != "NHWC" {
            throw fail("data_format \(format) is not supported (only NHWC)")
        }
    }
}

/// A TensorFlow graph that cannot be converted; the message names the node.
public struct TensorFlowError: Error, CustomStringConvertible, Sendable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

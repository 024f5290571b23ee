import ModelFormat
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TensorFlowSchema
import Protobuf

typealias GraphDef = Tensorflow__GraphDef
typealias AttrValue = Tensorflow__AttrValue

/// One node of a frozen graph: op, data inputs as (node, output index),
/// attributes by name.
struct TFNode {
    var name: String
    var op: String
    var inputs: [TensorRef]
    /// The index in `TFGraph.nodes` of each input's node (-1: no such node),
    /// resolved once, so that walking the graph hashes no names.
    var inputNodes: [Int] = []
    /// The node's attribute entries as decoded (a handful per node: a scan
    /// by name beats building a dictionary for each of thousands of nodes).
    var attributeEntries: UnsafeBufferPointer<UnsafeMutablePointer<Tensorflow__AttrEntry>?>

    /// The attribute named `key`, if the node has it (the last, if twice,
    /// as for any protobuf map).
    subscript(attribute key: String) -> UnsafeMutablePointer<AttrValue>? {
        key.withCString { wanted in
            for case let entry? in attributeEntries.reversed() {
                if let name = entry.pointee.key, strcmp(name, wanted) == 0 { return entry.pointee.value }
            }
            return nil
        }
    }
}

/// `node:index`; `node` alone is output 0.
struct TensorRef: Hashable, CustomStringConvertible {
    var node: String
    var index: Int

    /// Parses a tensor name with or without `:index` (`^` control
    /// dependencies are filtered out before).
    init(_ text: String) {
        // On UTF-8 bytes: names are ASCII in practice, and a Character
        // search costs more than all the rest of reading a graph's names.
        let bytes = text.utf8
        if let colon = bytes.lastIndex(of: UInt8(ascii: ":")), let index = Int(Substring(bytes[bytes.index(after: colon)...])) {
            node = String(Substring(bytes[..<colon]))
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

/// A parsed GraphDef: its nodes in file order, and their indices by name.
struct TFGraph {
    var nodes: [TFNode] = []
    var index: [String: Int] = [:]
    let decoded: Decoded<GraphDef>
    /// Whether byte fields (tensor payloads) lie in the mapped file, as the
    /// binary decoder leaves them, rather than in memory the text decoder
    /// filled: only file pages may be given back once read.
    let payloadsLieInFile: Bool

    init(_ decoded: Decoded<GraphDef>, payloadsLieInFile: Bool) throws {
        self.decoded = decoded
        self.payloadsLieInFile = payloadsLieInFile
        let graph = decoded.root.pointee
        for case let node? in CArrays.buffer(graph.node, graph.n_node) {
            let n = node.pointee
            // Names are compared as bytes (TensorFlow's are ASCII by its own rule); decoded with
            // U+FFFD, two could become one.
            guard CArrays.isUTF8(n.name), CArrays.buffer(n.input, n.n_input).allSatisfy({ CArrays.isUTF8($0) }) else {
                throw TensorFlowError("a node's name or input is not valid UTF-8 (byte \(decoded.offset(of: node)))")
            }
            let name = CArrays.string(n.name)
            guard !name.isEmpty else { throw TensorFlowError("a node has no name (byte \(decoded.offset(of: node)))") }
            guard index[name] == nil else { throw TensorFlowError("two nodes are named '\(name)'") }
            let inputs = CArrays.buffer(n.input, n.n_input).compactMap { input in
                input.flatMap { $0.pointee == CChar(UInt8(ascii: "^")) ? nil : TensorRef(String(cString: $0)) }
            }
            index[name] = nodes.count
            nodes.append(TFNode(name: name, op: CArrays.string(n.op), inputs: inputs,
                                attributeEntries: CArrays.buffer(n.attr, n.n_attr)))
        }
        try inlineCalls()  // resolves every node's inputs, inlined or not
        try fuseGELU()
        try fuseRepeats()
    }
}

/// Typed access to node attributes, with errors naming node and attribute.
extension TFNode {
    func fail(_ message: String) -> TensorFlowError {
        TensorFlowError("node '\(name)' (\(op)): \(message)")
    }

    func int(_ key: String) -> Int? {
        guard let value = self[attribute: key], value.pointee.value_case == TENSORFLOW__ATTR_VALUE__VALUE_I else { return nil }
        return Int(value.pointee.i)
    }

    func float(_ key: String) -> Float? {
        guard let value = self[attribute: key], value.pointee.value_case == TENSORFLOW__ATTR_VALUE__VALUE_F else { return nil }
        return value.pointee.f
    }

    func bool(_ key: String) -> Bool? {
        guard let value = self[attribute: key], value.pointee.value_case == TENSORFLOW__ATTR_VALUE__VALUE_B else { return nil }
        return value.pointee.b != 0
    }

    func string(_ key: String) -> String? {
        guard let value = self[attribute: key], value.pointee.value_case == TENSORFLOW__ATTR_VALUE__VALUE_S else { return nil }
        let bytes = value.pointee.s
        guard let data = bytes.data else { return "" }
        return String(decoding: UnsafeBufferPointer(start: data, count: bytes.len), as: UTF8.self)
    }

    func ints(_ key: String) -> [Int]? {
        guard let value = self[attribute: key], value.pointee.value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST,
              let list = value.pointee.list else { return nil }
        return CArrays.array(list.pointee.i, list.pointee.n_i).map { Int($0) }
    }

    /// A `tensor` attribute (a Const's value). AttrValue's value is a oneof,
    /// a C union in protobuf-c: reading `tensor` when the file stored another
    /// kind (an int, say) would take that int for a pointer.
    func tensor(_ key: String) -> UnsafeMutablePointer<Tensorflow__TensorProto>? {
        guard let value = self[attribute: key], value.pointee.value_case == TENSORFLOW__ATTR_VALUE__VALUE_TENSOR else { return nil }
        return value.pointee.tensor
    }

    /// A `shape` attribute: dims with -1 for unknown; nil when absent or of unknown rank.
    func shape(_ key: String) -> [Int]? {
        guard let value = self[attribute: key], value.pointee.value_case == TENSORFLOW__ATTR_VALUE__VALUE_SHAPE,
              let shape = value.pointee.shape, shape.pointee.unknown_rank == 0 else { return nil }
        return CArrays.buffer(shape.pointee.dim, shape.pointee.n_dim).map { Int($0?.pointee.size ?? -1) }
    }

    /// The same node under another name (for a mapping reused inside another).
    func renamed(_ name: String) -> TFNode {
        var copy = self
        copy.name = name
        return copy
    }
}

/// A TensorFlow graph that cannot be converted; the message names the node.
public typealias TensorFlowError = MessageError<TensorFlowErrorKind>
public enum TensorFlowErrorKind {}

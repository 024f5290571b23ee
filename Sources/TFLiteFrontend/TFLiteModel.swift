import FileIO

/// A `.tflite` file's Model table (tensorflow/lite/schema/schema.fbs,
/// `root_type Model`, file identifier "TFL3"), read over the mapped file:
/// weights stay in the mapping (`TFLiteModel.data(of:)`).
///
/// Field ids are the schema's declaration order (a union takes two: its
/// type, then its value):
/// - Model: version 0, operator_codes 1, subgraphs 2, description 3,
///   buffers 4, metadata_buffer 5, metadata 6, signature_defs 7.
/// - OperatorCode: deprecated_builtin_code 0 (byte), custom_code 1,
///   version 2, builtin_code 3 (int32). The operator is the larger of the
///   two codes (schema_utils.cc's GetBuiltinCode): files before schema 3a
///   have only the byte, newer ones write both (the byte saturates at 127,
///   PLACEHOLDER_FOR_GREATER_OP_CODES).
/// - SubGraph: tensors 0, inputs 1, outputs 2, operators 3, name 4.
/// - Tensor: shape 0, type 1, buffer 2, name 3, quantization 4,
///   is_variable 5, sparsity 6, shape_signature 7, has_rank 8, variant_tensors 9.
/// - QuantizationParameters: min 0, max 1, scale 2, zero_point 3,
///   details 4-5, quantized_dimension 6.
/// - Operator: opcode_index 0, inputs 1, outputs 2, builtin_options 3-4,
///   custom_options 5, custom_options_format 6, mutating_variable_inputs 7,
///   intermediates 8, large_custom_options_offset 9, large_custom_options_size 10,
///   builtin_options_2 11-12.
/// - Buffer: data 0, offset 1, size 2 (data outside the flatbuffer, for
///   files over 2 GB: offset from the file's start, valid when > 1).
/// - Metadata: name 0, buffer 1.
struct TFLiteModel {
    struct OperatorCode {
        var builtin: Int32
        var custom: String?
        var version: Int32
    }

    struct Tensor {
        var index: Int
        var shape: [Int32]
        var type: Int8
        var buffer: UInt32
        var name: String
        /// Quantization parameters with scales (a quantized tensor).
        var isQuantized: Bool
        /// value = scale * (q - zero point), one pair for all or per slice of `quantizedDimension`.
        var scales: [Float] = []
        var zeroPoints: [Int64] = []
        var quantizedDimension = 0
        var isVariable: Bool
        var isSparse: Bool
        var shapeSignature: [Int32]
        /// Fields of a newer schema than this reader knows, by id.
        var unknownFields: [Int]
    }

    struct Operator {
        var index: Int
        var opcodeIndex: Int
        var inputs: [Int32]
        var outputs: [Int32]
        /// The BuiltinOptions union's type (0: none) and table.
        var optionsType: UInt8
        var options: FlatTable?
        /// What the operator carries that no builtin mapping reads:
        /// custom options, mutated variables, intermediates, builtin_options_2.
        var extras: [String]
    }

    struct Subgraph {
        var name: String
        var tensors: [Tensor]
        var inputs: [Int32]
        var outputs: [Int32]
        var operators: [Operator]
    }

    struct Buffer {
        /// Inside the flatbuffer, or outside it (offset/size) for large files.
        var data: UnsafeRawBufferPointer
    }

    let file: MappedFile
    let path: String
    let version: UInt32
    let description: String
    let operatorCodes: [OperatorCode]
    let subgraphs: [Subgraph]
    let buffers: [Buffer]
    let metadata: [(name: String, buffer: UInt32)]

    /// TensorType names by number (schema.fbs), for messages.
    static let tensorTypes = ["FLOAT32", "FLOAT16", "INT32", "UINT8", "INT64", "STRING", "BOOL", "INT16", "COMPLEX64", "INT8",
                              "FLOAT64", "COMPLEX128", "UINT64", "RESOURCE", "VARIANT", "UINT32", "UINT16", "INT4", "BFLOAT16"]

    static func typeName(_ type: Int8) -> String {
        type >= 0 && Int(type) < tensorTypes.count ? tensorTypes[Int(type)] : "type \(type)"
    }

    /// Reads the file at `path` (mapped, never copied).
    /// - Throws: `FileError`, or `TFLiteError` naming the byte where the flatbuffer is malformed.
    init(path: String) throws {
        file = try MappedFile(path: path)
        self.path = path
        let buffer = FlatBuffer(bytes: file.bytes, path: path)
        guard buffer.bytes.count >= 8, buffer.identifier == "TFL3" else {
            throw TFLiteError("\(path): not a TFLite model: the file identifier at bytes 4-8 is not \"TFL3\"")
        }
        let model = try buffer.root("the Model table")
        version = try model.u32(0) ?? 0
        guard version == 3 else { throw TFLiteError("\(path): schema version \(version); this reader takes version 3 (TFLite since 2018)") }
        description = try model.string(3, "the model description") ?? ""
        operatorCodes = try model.tables(1, "operator code") { table, _ throws(TFLiteError) in
            let deprecated = Int32(Int8(bitPattern: try table.u8(0) ?? 0))
            return OperatorCode(builtin: max(deprecated, try table.i32(3) ?? 0), custom: try table.string(1, "a custom code"),
                                version: try table.i32(2) ?? 1)
        }
        let fileSize = buffer.bytes.count
        buffers = try model.tables(4, "buffer") { table, index throws(TFLiteError) in
            if let data = try table.bytes(0, "the data of buffer \(index)") { return Buffer(data: data) }
            let offset = try table.u64(1) ?? 0, size = try table.u64(2) ?? 0
            guard offset > 1 else { return Buffer(data: UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<0])) }
            guard offset <= UInt64(fileSize), size <= UInt64(fileSize) - offset else {
                throw buffer.fail(table.position, "buffer \(index) lies at bytes \(offset) to \(offset &+ size), past the end of the file (\(fileSize) bytes)")
            }
            return Buffer(data: UnsafeRawBufferPointer(rebasing: buffer.bytes[Int(offset)..<Int(offset + size)]))
        }
        metadata = try model.tables(6, "metadata") { table, _ throws(TFLiteError) in
            (try table.string(0, "a metadata name") ?? "", try table.u32(1) ?? 0)
        }
        subgraphs = try model.tables(2, "subgraph") { table, index throws(TFLiteError) in try Self.subgraph(table, index) }
    }

    private static func subgraph(_ table: FlatTable, _ index: Int) throws(TFLiteError) -> Subgraph {
        let what = "subgraph \(index)"
        let tensors = try table.tables(0, "\(what) tensor") { tensor, index throws(TFLiteError) in
            let quantization = try tensor.table(4, "the quantization of tensor \(index)")
            let scales = try quantization?.floats(2, "the quantization scales of tensor \(index)") ?? []
            var read = Tensor(index: index, shape: try tensor.int32s(0, "the shape of tensor \(index)"), type: Int8(bitPattern: try tensor.u8(1) ?? 0),
                              buffer: try tensor.u32(2) ?? 0, name: try tensor.string(3, "the name of tensor \(index)") ?? "",
                              isQuantized: !scales.isEmpty || quantization?.has(4) == true, isVariable: try tensor.u8(5) ?? 0 != 0,
                              isSparse: tensor.has(6), shapeSignature: try tensor.int32s(7, "the shape signature of tensor \(index)"),
                              unknownFields: tensor.presentFields(from: 10))
            if let quantization, !scales.isEmpty {
                read.scales = scales
                read.zeroPoints = try quantization.int64s(3, "the zero points of tensor \(index)")
                read.quantizedDimension = Int(try quantization.i32(6) ?? 0)
            }
            return read
        }
        let operators = try table.tables(3, "\(what) operator") { op, index throws(TFLiteError) in
            let type = try op.u8(3) ?? 0
            var extras: [String] = []
            if op.has(5) || op.has(9) { extras.append("custom_options") }
            if try op.count(7, elementSize: 1, "mutating_variable_inputs") > 0 { extras.append("mutating_variable_inputs") }
            if try op.count(8, elementSize: 4, "intermediates") > 0 { extras.append("intermediates") }
            if try op.u8(11) ?? 0 != 0 { extras.append("builtin_options_2") }
            extras += op.presentFields(from: 13).map { "field \($0)" }
            return Operator(index: index, opcodeIndex: Int(try op.u32(0) ?? 0), inputs: try op.int32s(1, "the inputs of operator \(index)"),
                            outputs: try op.int32s(2, "the outputs of operator \(index)"), optionsType: type,
                            options: type == 0 ? nil : try op.table(4, "the options of operator \(index)"), extras: extras)
        }
        return Subgraph(name: try table.string(4, "the name of \(what)") ?? "", tensors: tensors,
                        inputs: try table.int32s(1, "the inputs of \(what)"), outputs: try table.int32s(2, "the outputs of \(what)"),
                        operators: operators)
    }

    /// The constant data of `tensor`, nil when it has none (an activation).
    func data(of tensor: Tensor) throws(TFLiteError) -> UnsafeRawBufferPointer? {
        guard tensor.buffer != 0 else { return nil }
        guard Int(tensor.buffer) < buffers.count else {
            throw TFLiteError("\(path): tensor \(tensor.index) '\(tensor.name)' refers to buffer \(tensor.buffer), and the file has \(buffers.count)")
        }
        let data = buffers[Int(tensor.buffer)].data
        return data.isEmpty ? nil : data
    }
}

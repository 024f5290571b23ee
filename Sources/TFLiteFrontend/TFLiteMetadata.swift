/// The TFLite model metadata: the ModelMetadata flatbuffer (file
/// identifier "M001") in the buffer the model's `TFLITE_METADATA` entry
/// names, as tflite-support's metadata writers put it there, with the zip
/// of associated files appended to the model (`AssociatedFiles`).
///
/// Field ids (tensorflow_lite_support/metadata/metadata_schema.fbs,
/// declaration order, a union taking two):
/// - ModelMetadata: name 0, description 1, version 2, subgraph_metadata 3,
///   author 4, license 5, associated_files 6, min_parser_version 7.
/// - SubGraphMetadata: name 0, description 1, input_tensor_metadata 2,
///   output_tensor_metadata 3, associated_files 4.
/// - TensorMetadata: name 0, description 1, dimension_names 2, content 3,
///   process_units 4, stats 5, associated_files 6.
/// - Content: content_properties 0-1 (ImageProperties is type 2), range 2;
///   ImageProperties: color_space 0 (UNKNOWN 0, RGB 1, GRAYSCALE 2).
/// - ProcessUnit: options 0-1 (NormalizationOptions is type 1);
///   NormalizationOptions: mean 0, std 1 (vectors of float).
/// - AssociatedFile: name 0, description 1, type 2 (TENSOR_AXIS_LABELS
///   is 2), locale 3, version 4.
struct TFLiteMetadata {
    struct File {
        var name: String
        var type: UInt8
        var locale: String
    }

    struct TensorInfo {
        var name = ""
        var description = ""
        /// NormalizationOptions: (value - mean) / std per channel (or one for all).
        var mean: [Float] = []
        var std: [Float] = []
        /// ImageProperties' color space, nil when the content is not an image.
        var colorSpace: UInt8?
        var files: [File] = []

        /// The labels file of the tensor's last axis (TENSOR_AXIS_LABELS),
        /// the one without a locale first.
        var labelsFile: String? {
            let labels = files.filter { $0.type == 2 }
            return (labels.first { $0.locale.isEmpty } ?? labels.first)?.name
        }
    }

    var name = "", description = "", version = "", author = "", license = ""
    var inputs: [TensorInfo] = []
    var outputs: [TensorInfo] = []
    var archive = AssociatedFiles()

    /// The model's metadata, nil when it has no `TFLITE_METADATA` entry.
    /// - Throws: `TFLiteError` for a malformed metadata flatbuffer or zip.
    static func read(_ file: TFLiteModel) throws(TFLiteError) -> TFLiteMetadata? {
        guard let entry = file.metadata.first(where: { $0.name == "TFLITE_METADATA" }) else { return nil }
        guard Int(entry.buffer) < file.buffers.count else {
            throw TFLiteError("\(file.path): the TFLITE_METADATA entry refers to buffer \(entry.buffer), and the file has \(file.buffers.count)")
        }
        let buffer = FlatBuffer(bytes: file.buffers[Int(entry.buffer)].data, path: "\(file.path): metadata buffer \(entry.buffer)")
        guard buffer.identifier == "M001" else {
            throw TFLiteError("\(file.path): the TFLITE_METADATA buffer \(entry.buffer) is not a ModelMetadata flatbuffer (identifier \"M001\")")
        }
        let root = try buffer.root("the ModelMetadata table")
        var metadata = TFLiteMetadata()
        metadata.name = try root.string(0, "the model name") ?? ""
        metadata.description = try root.string(1, "the model description") ?? ""
        metadata.version = try root.string(2, "the model version") ?? ""
        metadata.author = try root.string(4, "the author") ?? ""
        metadata.license = try root.string(5, "the license") ?? ""
        let subgraphs = try root.tables(3, "subgraph metadata") { table, _ throws(TFLiteError) in table }
        if let subgraph = subgraphs.first {
            metadata.inputs = try subgraph.tables(2, "input tensor metadata", tensorInfo)
            metadata.outputs = try subgraph.tables(3, "output tensor metadata", tensorInfo)
        }
        metadata.archive = try AssociatedFiles(bytes: file.file.bytes, path: file.path)
        return metadata
    }

    private static func tensorInfo(_ table: FlatTable, _ index: Int) throws(TFLiteError) -> TensorInfo {
        var info = TensorInfo()
        info.name = try table.string(0, "the name of \(table.what)") ?? ""
        info.description = try table.string(1, "the description of \(table.what)") ?? ""
        if let content = try table.table(3, "the content of \(table.what)"), try content.u8(0) == 2,
           let image = try content.table(1, "the image properties of \(table.what)") {
            info.colorSpace = try image.u8(0) ?? 0
        }
        let units = try table.tables(4, "process unit of \(table.what)") { unit, _ throws(TFLiteError) in unit }
        for unit in units where try unit.u8(0) == 1 {
            guard let options = try unit.table(1, "the normalization options of \(table.what)") else { continue }
            info.mean = try options.floats(0, "the normalization mean of \(table.what)")
            info.std = try options.floats(1, "the normalization std of \(table.what)")
        }
        info.files = try table.tables(6, "associated file of \(table.what)") { file, _ throws(TFLiteError) in
            File(name: try file.string(0, "the name of \(file.what)") ?? "", type: try file.u8(2) ?? 0,
                 locale: try file.string(3, "the locale of \(file.what)") ?? "")
        }
        return info
    }

    /// The labels of output `index` from its labels file, nil when it has none.
    /// - Throws: `TFLiteError` when the file is named but not in the zip.
    func labels(output index: Int, path: String) throws(TFLiteError) -> (file: String, data: [UInt8])? {
        guard index < outputs.count, let name = outputs[index].labelsFile else { return nil }
        guard let data = archive.data(named: name) else {
            throw TFLiteError("\(path): the metadata names the labels file '\(name)', which is not among the associated files zipped onto the model")
        }
        return (name, data)
    }
}

extension FlatTable {
    /// A vector of i64 (zero points).
    func int64s(_ id: Int, _ what: String) throws(TFLiteError) -> [Int64] {
        guard let at = try field(id, size: 4) else { return [] }
        let (start, count) = try buffer.vector(referencedAt: at, elementSize: 8, what)
        return (0..<count).map { Int64(bitPattern: buffer.u64(start + 8 * $0)) }
    }

    /// A vector of f32.
    func floats(_ id: Int, _ what: String) throws(TFLiteError) -> [Float] {
        guard let at = try field(id, size: 4) else { return [] }
        let (start, count) = try buffer.vector(referencedAt: at, elementSize: 4, what)
        return (0..<count).map { Float(bitPattern: buffer.u32(start + 4 * $0)) }
    }
}

import Naming
import DarknetFrontend
import HDF5

/// The kinds of model file `inspect` reads, recognised from their content.
public enum DetectedFormat: Hashable, Sendable {
    /// A Core ML `.mlmodel`: binary protobuf opening with field 1 as a varint
    /// (`specificationVersion`), or with Model's other top-level fields.
    case coreML
    /// A Caffe deploy definition: protobuf text with `layer`, `layers` or `input` at the top level.
    case caffePrototxt
    /// A Caffe `.caffemodel`: binary protobuf with NetParameter's top-level fields.
    case caffeModel
    /// An HDF5 file (Caffe's `.caffemodel.h5` snapshots).
    case hdf5
    /// A frozen TensorFlow GraphDef: binary (`.pb`), many top-level `node` messages.
    case tensorflowGraph
    /// A TensorFlow GraphDef in text form (`.pbtxt`): top-level `node` blocks.
    case tensorflowText
    /// A Darknet network definition (`.cfg`): text opening with a `[net]` section.
    case darknetConfig
    /// Darknet weights (`.weights`): a header of small version numbers, then float32 values.
    case darknetWeights
    /// An ONNX model (`.onnx`): binary protobuf opening with `ir_version`
    /// (field 1, a varint) and holding its graph (7) and opsets (8).
    case onnx
    /// A TFLite / LiteRT model (`.tflite`): a flatbuffer whose file
    /// identifier, bytes 4 to 8, is "TFL3".
    case tflite
}

/// Why a file is not one of the formats: a sentence fragment to follow its path.
public struct FormatDetectionError: OptionMentioningError, Equatable, Sendable {
    public var message: String

    public init(message: String) {
        self.message = message
    }
}

/// Tells the formats apart by their bytes, never by the file's name.
public enum FormatDetection {
    public static func detect(_ bytes: UnsafeRawBufferPointer) throws(FormatDetectionError) -> DetectedFormat {
        guard !bytes.isEmpty else { throw FormatDetectionError(message: "the file is empty") }
        if let other = otherKind(bytes) { throw FormatDetectionError(message: "\(other), not a model file") }
        if HDF5File.isHDF5(bytes) { return .hdf5 }
        if isTFLite(bytes) { return .tflite }
        if isText(bytes) {
            if DarknetConfig.recognizes(bytes) { return .darknetConfig }
            let fields = topLevelTextFields(bytes)
            if !fields.isDisjoint(with: ["layer", "layers", "input", "input_shape", "input_dim"]) { return .caffePrototxt }
            if fields.contains("node") { return .tensorflowText }
            throw FormatDetectionError(message: "a text file, but not a Caffe deploy prototxt or a TensorFlow .pbtxt "
                                       + "(it has no top-level layer, layers, input or node field)")
        }
        if let format = protobufFormat(bytes) { return format }
        if DarknetWeights.recognizes(bytes) { return .darknetWeights }
        throw FormatDetectionError(message: "unknown format: not a Core ML model (.mlmodel), a Caffe deploy prototxt, "
                                   + "a caffemodel, an HDF5 weights file, a TensorFlow graph, an ONNX model, a TFLite model or a Darknet network")
    }

    /// A TFLite flatbuffer: its root offset (bytes 0-4), then the file
    /// identifier "TFL3" (schema.fbs's `file_identifier`).
    static func isTFLite(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 8 && Array(bytes[4..<8]) == Array("TFL3".utf8)
    }


    /// Files often given where a model is expected: "a PNG image", "a
    /// JPEG image", "a NumPy array (.npy)", "a ZIP archive (...)"; nil for
    /// anything else.
    public static func otherKind(_ bytes: UnsafeRawBufferPointer) -> String? {
        func starts(_ signature: [UInt8]) -> Bool { bytes.count >= signature.count && zip(bytes, signature).allSatisfy { $0 == $1 } }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "a PNG image" }
        if starts([0xFF, 0xD8, 0xFF]) { return "a JPEG image" }
        if starts([0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59]) { return "a NumPy array (.npy)" }
        if isPyTorch(bytes) { return "a PyTorch model (\(pyTorchAdvice))" }
        if starts([0x50, 0x4B, 0x03, 0x04]) {
            return "a ZIP archive (Keras 3 .keras files and PyTorch .pt files are ZIP archives: save a Keras model as .h5)"
        }
        return nil
    }

    /// How to convert a PyTorch model: through ONNX.
    public static let pyTorchAdvice = "export it to ONNX first, e.g. torch.onnx.export(model, (torch.randn(1, 3, 224, 224),), "
        + "\"model.onnx\", opset_version=17), then coreml-convert onnx model.onnx ..."

    /// A PyTorch `torch.save` file, from its bytes alone (nothing is
    /// unpickled): a ZIP archive whose first entry is `<name>/data.pkl`,
    /// or the legacy format, a pickle opening with PyTorch's magic number.
    public static func isPyTorch(_ bytes: UnsafeRawBufferPointer) -> Bool {
        func starts(_ signature: [UInt8]) -> Bool { bytes.count >= signature.count && zip(bytes, signature).allSatisfy { $0 == $1 } }
        // Pickle protocol 2, LONG1 of 10 bytes: 0x1950a86a20f9469cfc6c, little-endian.
        if starts([0x80, 0x02, 0x8A, 0x0A, 0x6C, 0xFC, 0x9C, 0x46, 0xF9, 0x20, 0x6A, 0xA8, 0x50, 0x19]) { return true }
        guard starts([0x50, 0x4B, 0x03, 0x04]), bytes.count >= 30 else { return false }
        let nameLength = Int(bytes[26]) | Int(bytes[27]) << 8
        guard bytes.count >= 30 + nameLength else { return false }
        func isDataPickle(_ name: ArraySlice<UInt8>) -> Bool {
            name.elementsEqual("data.pkl".utf8) || name.count > 9 && name.suffix(9).elementsEqual("/data.pkl".utf8)
        }
        if isDataPickle(Array(bytes[30..<(30 + nameLength)])[...]) { return true }
        // TorchScript (torch.jit.save) stores its tensors first: data.pkl is
        // then found in the central directory, named by the end record.
        func uint(_ offset: Int, _ size: Int) -> Int {
            (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        var end = bytes.count - 22
        let lowest = max(0, bytes.count - 22 - 65535)
        while end >= lowest && !(bytes[end] == 0x50 && bytes[end + 1] == 0x4B && bytes[end + 2] == 0x05 && bytes[end + 3] == 0x06) {
            end -= 1
        }
        guard end >= lowest else { return false }
        var entry = uint(end + 16, 4)
        for _ in 0..<min(uint(end + 10, 2), 100_000) {
            guard entry + 46 <= bytes.count, uint(entry, 4) == 0x0201_4B50 else { return false }
            let length = uint(entry + 28, 2)
            guard entry + 46 + length <= bytes.count else { return false }
            if isDataPickle(Array(bytes[(entry + 46)..<(entry + 46 + length)])[...]) { return true }
            entry += 46 + length + uint(entry + 30, 2) + uint(entry + 32, 2)
        }
        return false
    }

    /// Text when the first 64 KB hold no control bytes other than
    /// whitespace and decode as UTF-8 (a cut multi-byte character at the end is fine).
    static func isText(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let head = bytes.prefix(65536)
        for byte in head where byte < 0x20 && ![0x09, 0x0A, 0x0C, 0x0D].contains(byte) || byte == 0x7F { return false }
        var decoder = UTF8()
        var iterator = head.makeIterator()
        var decoded = 0
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): decoded += scalar.utf8.count
            case .emptyInput: break loop
            case .error: return head.count - decoded < 4 && head.count == 65536
            }
        }
        return true
    }

    /// Names of the fields at brace depth 0 (`name`, `input`, `layer`, ...),
    /// skipping strings and `#` comments.
    static func topLevelTextFields(_ bytes: UnsafeRawBufferPointer) -> Set<String> {
        var fields = Set<String>()
        var depth = 0
        var index = 0
        let count = bytes.count
        func isIdentifier(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F
        }
        while index < count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "#"):
                while index < count && bytes[index] != 0x0A { index += 1 }
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                index += 1
                while index < count && bytes[index] != byte {
                    if bytes[index] == UInt8(ascii: "\\") { index += 1 }
                    index += 1
                }
                index += 1
            case UInt8(ascii: "{"), UInt8(ascii: "<"):
                depth += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: ">"):
                depth -= 1
                index += 1
            case _ where isIdentifier(byte):
                let start = index
                while index < count && isIdentifier(bytes[index]) { index += 1 }
                var next = index
                while next < count && [0x20, 0x09, 0x0A, 0x0D].contains(bytes[next]) { next += 1 }
                if depth == 0, next < count, [UInt8(ascii: ":"), UInt8(ascii: "{"), UInt8(ascii: "<")].contains(bytes[next]) {
                    fields.insert(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                }
            default:
                index += 1
            }
        }
        return fields
    }

    /// The (number, wire type) of each top-level field of a binary
    /// protobuf, payloads skipped (cheap even for a large file); a cut
    /// file gives the fields before the cut, the last one included.
    static func topLevelFields(_ bytes: UnsafeRawBufferPointer) -> [(number: UInt64, wireType: UInt64)] {
        var fields: [(number: UInt64, wireType: UInt64)] = []
        var position = 0
        func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while position < bytes.count && shift < 64 {
                let byte = bytes[position]
                position += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }
        scan: while position < bytes.count && fields.count < 100_000 {
            guard let key = varint() else { break }
            let number = key >> 3, wireType = key & 7
            guard number > 0 && number < 1 << 29 else { break }
            switch wireType {
            case 0: guard varint() != nil else { fields.append((number, wireType)); break scan }
            case 1: position += 8
            case 2:
                guard let length = varint() else { fields.append((number, wireType)); break scan }
                position += Int(clamping: length)
            case 5: position += 4
            default: break scan
            }
            fields.append((number, wireType))
        }
        return fields
    }

    /// Core ML or caffemodel, from the top-level fields of a binary protobuf.
    /// A cut file is classified by the fields before the cut, so that the
    /// reader then reports where it ends.
    static func protobufFormat(_ bytes: UnsafeRawBufferPointer) -> DetectedFormat? {
        let fields = topLevelFields(bytes)
        guard let first = fields.first else { return nil }
        // specificationVersion; a Core ML model has no length-delimited field 1
        // (a graph opening with a stray varint has its nodes there).
        if first.number == 1 && first.wireType == 0 {
            // ONNX's ModelProto: ir_version 1, then its graph 7 and opset_import 8,
            // fields a Core ML Model does not have.
            if fields.contains(where: { ($0.number == 7 || $0.number == 8) && $0.wireType == 2 }) { return .onnx }
            return fields.contains { $0.number == 1 && $0.wireType == 2 } ? nil : .coreML
        }
        // GraphDef: node 1 (many), library 2, version 3, versions 4; a
        // caffemodel names itself once in field 1.
        if fields.filter({ $0.number == 1 && $0.wireType == 2 }).count > 1,
           fields.allSatisfy({ [1, 2, 4].contains($0.number) && $0.wireType == 2 || $0.number == 3 && $0.wireType == 0 }) {
            return .tensorflowGraph
        }
        // NetParameter: name 1, layers 2 (V1), input 3, input_dim 4, force_backward 5,
        // state 6, debug_info 7, input_shape 8, layer 100. Core ML's Model has
        // description 2 and its model types at 200 and above (a pipeline's
        // models are Models again: one may open with its type).
        if fields.contains(where: { $0.number > 100 }) { return first.number == 2 || first.number >= 200 ? .coreML : nil }
        let caffe: [UInt64: Set<UInt64>] = [1: [2], 2: [2], 3: [2], 4: [0, 2], 5: [0], 6: [2], 7: [0], 8: [2], 100: [2]]
        if fields.allSatisfy({ caffe[$0.number]?.contains($0.wireType) ?? false }) { return .caffeModel }
        return nil
    }
}

extension DetectedFormat {
    /// What the file is, for messages: "a TensorFlow graph".
    public var noun: String {
        switch self {
        case .coreML: "a Core ML model"
        case .caffePrototxt: "a Caffe deploy definition (prototxt)"
        case .caffeModel: "Caffe weights (.caffemodel)"
        case .hdf5: "an HDF5 file (a Keras .h5 model, or Caffe .caffemodel.h5 weights)"
        case .tensorflowGraph: "a TensorFlow graph"
        case .tensorflowText: "a TensorFlow graph in text form"
        case .darknetConfig: "a Darknet network definition (.cfg)"
        case .darknetWeights: "Darknet weights (.weights)"
        case .onnx: "an ONNX model"
        case .tflite: "a TFLite model"
        }
    }

    /// Which program takes such a file.
    public var advice: String {
        switch self {
        case .coreML: "inspect it with coreml-inspect, run it with coreml-predict"
        case .caffePrototxt, .caffeModel: "convert a deploy definition and its weights with coreml-convert caffe"
        case .hdf5: "convert a Keras model with coreml-convert keras, Caffe weights with coreml-convert caffe"
        case .tensorflowGraph, .tensorflowText: "convert it with coreml-convert tensorflow"
        case .darknetConfig, .darknetWeights: "convert a network definition and its weights with coreml-convert darknet"
        case .onnx: "convert it with coreml-convert onnx"
        case .tflite: "convert it with coreml-convert tflite"
        }
    }
}

/// What a file is, from one look at its bytes, for a program that takes
/// one kind of file and must refuse another with a clear message.
public struct FileKind: Sendable {
    public var path: String
    /// Its model format, when detection recognises one.
    public var format: DetectedFormat?
    /// Another kind of file often given by mistake: "a PNG image".
    public var otherKind: String?
    /// For a Core ML model: whether it also has a description (field 2),
    /// as every real one does.
    var hasDescription = false

    public init(bytes: UnsafeRawBufferPointer, path: String) {
        self.path = path
        otherKind = FormatDetection.otherKind(bytes)
        guard otherKind == nil, !bytes.isEmpty else { return }
        format = try? FormatDetection.detect(bytes)
        if format == .coreML {
            hasDescription = FormatDetection.topLevelFields(bytes).contains { $0.number == 2 && $0.wireType == 2 }
        }
    }

    /// Refuses a file that is clearly not one of `expected`, with what it is
    /// and which program takes it: `g.h5: is an HDF5 file (...), not a
    /// TensorFlow graph: convert a Keras model with coreml-convert keras`.
    /// A file of no known format, or one that could be either of two
    /// formats (a one-node GraphDef reads like a caffemodel; a Core ML file
    /// cut before its description like any varint), is left to the reader,
    /// which says where it fails.
    /// - Parameters:
    ///   - what: the expected kind, for the message ("a TensorFlow graph").
    ///   - sameProgram: formats the running command takes elsewhere (a
    ///     Caffe pair's other file), for which the advice to run it is left out.
    public func check(expected: Set<DetectedFormat>, what: String,
                      sameProgram: Set<DetectedFormat> = []) throws(FormatDetectionError) {
        if let otherKind { throw FormatDetectionError(message: "\(path): is \(otherKind), not \(what)") }
        guard let format, !expected.contains(format) else { return }
        let lookalikes: Set<DetectedFormat> = [.caffeModel, .tensorflowGraph]
        if lookalikes.contains(format) && !expected.isDisjoint(with: lookalikes) { return }
        if format == .coreML && !hasDescription { return }
        let advice = sameProgram.contains(format) ? "" : ": \(format.advice)"
        throw FormatDetectionError(message: "\(path): is \(format.noun), not \(what)\(advice)")
    }
}

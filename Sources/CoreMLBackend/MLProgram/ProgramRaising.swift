import ModelFormat
import CoreMLSchema
import Protobuf

/// What a program value is while it is read back: a tensor of the IR (a
/// map, whatever view of it the program reshapes to), or a constant.
enum ProgramValue {
    case tensor(String)
    case constant(ProgramConstant)
}

/// A constant's values and shape ([]: a scalar).
struct ProgramConstant {
    var shape: [Int]
    var floats: Weights?
    var ints: [Int] = []
    var bools: [Bool] = []
    var strings: [String] = []
    var longInts: [Int64] = []
    /// An integer tensor's values of a byte or sub-byte type (a compressed constant's levels, offsets or indices).
    var bytes: ConstantBytes?
}

/// An integer tensor's values, `count` of `type` packed in `buffer`:
/// borrowed from the mapped weight file (a compressed package's levels are
/// not copied to be read), or a copy of a program's immediate bytes.
struct ConstantBytes: @unchecked Sendable {
    // Sendable: `buffer` is immutable memory that `owner` (a mapped file, or `ByteCopy`) keeps alive.
    private let owner: any AnyObject & Sendable
    let buffer: UnsafeRawBufferPointer
    let type: PackedInteger
    let count: Int

    /// `buffer` holds exactly `type.byteCount(count)` bytes (the caller checked).
    init(borrowing buffer: UnsafeRawBufferPointer, owner: any AnyObject & Sendable, type: PackedInteger, count: Int) {
        precondition(buffer.count == type.byteCount(count), "\(count) \(type.name) values in \(buffer.count) bytes")
        (self.buffer, self.owner, self.type, self.count) = (buffer, owner, type, count)
    }

    init(copying bytes: UnsafeRawBufferPointer, type: PackedInteger, count: Int) {
        let copy = ByteCopy(bytes)
        self.init(borrowing: UnsafeRawBufferPointer(copy.memory), owner: copy, type: type, count: count)
    }

    /// Value `index` as a number.
    @inline(__always)
    func value(_ index: Int) -> Float {
        Float(type.value(buffer, at: index))
    }

    private final class ByteCopy: @unchecked Sendable {
        let memory: UnsafeMutableRawBufferPointer

        init(_ bytes: UnsafeRawBufferPointer) {
            memory = .allocate(byteCount: bytes.count, alignment: 1)
            memory.copyMemory(from: bytes)
        }

        deinit { memory.deallocate() }
    }
}

extension SpecReader {
    /// The model a program written by `MLProgramWriter` holds: its
    /// operations raised back into IR nodes (`raise`), the classifier from
    /// its `classify`, inputs and outputs from the description.
    func program(_ program: UnsafeMutablePointer<MILProgram>, description: UnsafeMutablePointer<MLModelDescription>?,
                 blobs: BlobReader) throws -> (Model, ProgramFacts) {
        guard let description else { throw fail("the model has no description (inputs and outputs)", at: program) }
        let functions = CArrays.buffer(program.pointee.functions, program.pointee.n_functions)
        guard let entry = functions.first(where: { CArrays.string($0?.pointee.key) == "main" }) ?? nil, let function = entry.pointee.value else {
            throw fail("the program has no function 'main'", at: program)
        }
        let opset = CArrays.string(function.pointee.opset)
        let blocks = CArrays.buffer(function.pointee.block_specializations, function.pointee.n_block_specializations)
        guard let blockEntry = blocks.first(where: { CArrays.string($0?.pointee.key) == opset }) ?? nil, let block = blockEntry.pointee.value else {
            throw fail("function 'main' has no block for its opset '\(opset)'", at: function)
        }
        var inputs = try CArrays.buffer(description.pointee.input, description.pointee.n_input).map { try input($0) }
        let operations = Array(CArrays.buffer(block.pointee.operations, block.pointee.n_operations))
        let tensorModel = ProgramRaising.isTensorProgram(inputs: inputs, operations: operations)
        if tensorModel { inputs = try CArrays.buffer(description.pointee.input, description.pointee.n_input).map { try input($0, .exact) } }
        var raising = ProgramRaising(reader: self, blobs: blobs)
        raising.tensorModel = tensorModel
        var counts: [String: Int] = [:]
        for input in inputs {
            raising.values[input.name] = .tensor(input.name)
            raising.images[input.name] = input.image
        }
        for case let input? in CArrays.buffer(function.pointee.inputs, function.pointee.n_inputs) {
            if let type = input.pointee.type { raising.programShapes[CArrays.string(input.pointee.name)] = try raising.shape(of: type) }
        }
        for case let operation? in operations {
            for case let entry? in CArrays.buffer(operation.pointee.inputs, operation.pointee.n_inputs) {
                guard let argument = entry.pointee.value else { continue }
                for case let binding? in CArrays.buffer(argument.pointee.arguments, argument.pointee.n_arguments)
                where binding.pointee.binding_case == CORE_ML__SPECIFICATION__MILSPEC__ARGUMENT__BINDING__BINDING_NAME {
                    raising.readers[CArrays.string(binding.pointee.name), default: 0] += 1
                }
            }
        }
        for case let operation? in operations {
            try raising.raise(operation)
            counts[CArrays.string(operation.pointee.type), default: 0] += 1
        }
        for index in inputs.indices {
            if let image = raising.images[inputs[index].name] { inputs[index].kind = .image(image) }
        }
        let probabilitiesName = CArrays.string(description.pointee.predictedprobabilitiesname)
        var outputs: [Output] = []
        for case let feature? in CArrays.buffer(description.pointee.output, description.pointee.n_output) {
            let name = CArrays.string(feature.pointee.name)
            if raising.classifier != nil, name == raising.classifier?.predictedFeatureName || name == probabilitiesName { continue }
            outputs.append(try output(feature, tensorModel ? .exact : .rank5))
            guard case .tensor(let tensor)? = raising.values[name] else { throw fail("no operation makes the output '\(name)'", at: feature) }
            raising.rename(tensor, to: name)
        }
        var model = Model(inputs: inputs, outputs: outputs, nodes: raising.nodes, classifier: raising.classifier,
                          metadata: metadata(description.pointee.metadata))
        model.computesInFloat16 = raising.computesInFloat16
        return (model, ProgramFacts(opset: opset, counts: counts, computesInFloat16: raising.computesInFloat16,
                                    weightFiles: blobs.files.map { ($0.name, $0.file.bytes.count) }))
    }
}

/// Operations back into nodes, one function per form `ProgramLowering` writes.
struct ProgramRaising {
    let reader: SpecReader
    let blobs: BlobReader
    var values: [String: ProgramValue] = [:]
    /// The shape the program declares for each value.
    var programShapes: [String: [Int]] = [:]
    var nodes: [Node] = []
    var classifier: Classifier?
    /// A program of tensor inputs (`raiseTensor` reads its rank-N operations).
    var tensorModel = false
    /// The constants made `Constant` nodes (`operands`, `constantNode`).
    var constantNodes: Set<String> = []
    /// How many operations read each named value.
    var readers: [String: Int] = [:]
    /// Whether an operation computes in float16 (the program was written with float16 compute precision).
    var computesInFloat16 = false
    /// A log-softmax's operations read so far (`raiseLogSoftmaxPart`).
    var logSoftmaxParts = LogSoftmaxParts()
    /// The image inputs, their preprocessing filled in as it is read.
    var images: [String: ImageInput] = [:]

    func fail(_ message: String, _ at: UnsafeRawPointer?) -> CoreMLFormatError {
        reader.fail(message, at: at)
    }

    /// The IR's axis of an axis of the program's value: a tensor model's as written, a map's `[1, C, H, W]` axis 1...3
    /// counted from the end of its `[C, H, W]` (nil: the batch axis or past the map).
    func irAxis(_ axis: Int) -> Int? {
        tensorModel ? axis : (1...3).contains(axis) ? axis - 4 : nil
    }

    /// Every reference to tensor `old` named `new` instead.
    mutating func rename(_ old: String, to new: String) {
        for index in nodes.indices {
            nodes[index].inputs = nodes[index].inputs.map { $0 == old ? new : $0 }
            nodes[index].outputs = nodes[index].outputs.map { $0 == old ? new : $0 }
        }
    }

    /// The bindings of input `key` of `operation` (nil: not given; empty: given no value).
    func bindings(_ operation: UnsafeMutablePointer<MILOperation>, _ key: String) -> UnsafeBufferPointer<UnsafeMutablePointer<MILBinding>?>? {
        for case let entry? in CArrays.buffer(operation.pointee.inputs, operation.pointee.n_inputs) where CArrays.string(entry.pointee.key) == key {
            guard let argument = entry.pointee.value else { return UnsafeBufferPointer(start: nil, count: 0) }
            return CArrays.buffer(argument.pointee.arguments, argument.pointee.n_arguments)
        }
        return nil
    }

    /// The value bound to input `key` of `operation` (nil: not given).
    func argument(_ operation: UnsafeMutablePointer<MILOperation>, _ key: String) throws -> [ProgramValue]? {
        try bindings(operation, key)?.map { binding in
            guard let binding else { throw fail("an empty binding of '\(key)'", operation) }
            switch binding.pointee.binding_case {
            case CORE_ML__SPECIFICATION__MILSPEC__ARGUMENT__BINDING__BINDING_NAME:
                let name = CArrays.string(binding.pointee.name)
                guard let value = values[name] else { throw fail("'\(key)' names '\(name)', which no earlier operation makes", binding) }
                return value
            case CORE_ML__SPECIFICATION__MILSPEC__ARGUMENT__BINDING__BINDING_VALUE:
                return .constant(try constant(binding.pointee.value))
            default:
                throw fail("'\(key)' is bound to nothing", binding)
            }
        }
    }

    /// The program value name input `key` of `operation` is bound to (nil:
    /// not given, or bound to a literal).
    func boundName(_ operation: UnsafeMutablePointer<MILOperation>, _ key: String) -> String? {
        guard let bindings = bindings(operation, key), bindings.count == 1, let binding = bindings[0],
              binding.pointee.binding_case == CORE_ML__SPECIFICATION__MILSPEC__ARGUMENT__BINDING__BINDING_NAME else { return nil }
        return CArrays.string(binding.pointee.name)
    }

    /// The shape the program declares for the value bound to `x`, whose IR tensor is `tensor` (an input's
    /// `[1, C, H, W]` view is an alias of the input, whose own shape is `[C, H, W]`).
    func sourceShape(_ operation: UnsafeMutablePointer<MILOperation>, tensor: String) -> [Int] {
        boundName(operation, "x").flatMap { programShapes[$0] } ?? programShapes[tensor] ?? []
    }

    /// Refuses a reshape whose `shape` is not the output shape the program
    /// declares for it (which the reader takes): each size that size, -1
    /// (at most once) or 0 (the input's size there, which must be it).
    func checkReshape(_ operation: UnsafeMutablePointer<MILOperation>, name: String, declared: [Int]) throws {
        guard let given = try constant(operation, "shape") else { throw fail("reshape '\(name)' has no constant shape", operation) }
        let shape = given.ints, source = sourceShape(operation, tensor: try tensor(operation, "x"))
        let agrees = shape.count == declared.count && shape.filter({ $0 == -1 }).count <= 1
            && shape.indices.allSatisfy { shape[$0] == declared[$0] || shape[$0] == -1 || (shape[$0] == 0 && source.count > $0 && source[$0] == declared[$0]) }
        guard agrees else { throw fail("reshape '\(name)' has the shape \(shape), not its declared output \(declared)", operation) }
    }

    func tensor(_ operation: UnsafeMutablePointer<MILOperation>, _ key: String) throws -> String {
        guard case .tensor(let name)? = try argument(operation, key)?.first else { throw fail("input '\(key)' is not a tensor", operation) }
        return name
    }

    func constant(_ operation: UnsafeMutablePointer<MILOperation>, _ key: String) throws -> ProgramConstant? {
        guard let bound = try argument(operation, key) else { return nil }
        guard case .constant(let value)? = bound.first else { throw fail("input '\(key)' is not a constant", operation) }
        return value
    }

    func floats(_ operation: UnsafeMutablePointer<MILOperation>, _ key: String) throws -> Weights {
        guard let floats = try constant(operation, key)?.floats else { throw fail("input '\(key)' is not a float constant", operation) }
        return floats
    }

    func float(_ operation: UnsafeMutablePointer<MILOperation>, _ key: String) throws -> Float {
        let values = try floats(operation, key)
        guard values.count == 1 else { throw fail("input '\(key)' is not one value", operation) }
        return values.values[0]
    }

    func ints(_ operation: UnsafeMutablePointer<MILOperation>, _ key: String) throws -> [Int] {
        guard let value = try constant(operation, key) else { throw fail("input '\(key)' is missing", operation) }
        return value.ints
    }

    func bool(_ operation: UnsafeMutablePointer<MILOperation>, _ key: String) throws -> Bool {
        try constant(operation, key)?.bools.first ?? false
    }

    /// The shape an operation declares for its first output.
    func outputShape(_ operation: UnsafeMutablePointer<MILOperation>) throws -> [Int] {
        guard operation.pointee.n_outputs > 0, let type = operation.pointee.outputs[0]?.pointee.type else { throw fail("an operation has no output", operation) }
        return try shape(of: type)
    }

    func shape(of type: UnsafeMutablePointer<MILValueType>) throws -> [Int] {
        guard type.pointee.type_case == CORE_ML__SPECIFICATION__MILSPEC__VALUE_TYPE__TYPE_TENSOR_TYPE, let tensor = type.pointee.tensortype else { return [] }
        return try CArrays.buffer(tensor.pointee.dimensions, tensor.pointee.n_dimensions).map { dimension in
            guard let dimension, dimension.pointee.dimension_case == CORE_ML__SPECIFICATION__MILSPEC__DIMENSION__DIMENSION_CONSTANT,
                  let size = Int(exactly: dimension.pointee.constant.pointee.size), size > 0, size <= TensorShape.maximumCount else {
                throw fail("a dimension is not a constant size", dimension)
            }
            return size
        }
    }

    /// The data type of a tensor type (nil: not a tensor).
    static func dataType(of type: UnsafeMutablePointer<MILValueType>?) -> MILDataType? {
        guard let type, type.pointee.type_case == CORE_ML__SPECIFICATION__MILSPEC__VALUE_TYPE__TYPE_TENSOR_TYPE else { return nil }
        return type.pointee.tensortype?.pointee.datatype
    }

    /// A constant value: immediate, or a blob of the weight file.
    func constant(_ value: UnsafeMutablePointer<MILValue>?) throws -> ProgramConstant {
        guard let value, let type = value.pointee.type else { throw fail("a constant has no type", value) }
        if type.pointee.type_case == CORE_ML__SPECIFICATION__MILSPEC__VALUE_TYPE__TYPE_LIST_TYPE {
            // The classifier's classes: a list of scalar strings or int64s.
            guard value.pointee.value_case == CORE_ML__SPECIFICATION__MILSPEC__VALUE__VALUE_IMMEDIATE_VALUE,
                  let list = value.pointee.immediatevalue.pointee.list else { throw fail("a list constant holds no list", value) }
            var result = ProgramConstant(shape: [list.pointee.n_values])
            for element in CArrays.buffer(list.pointee.values, list.pointee.n_values) {
                let scalar = try constant(element)
                result.strings += scalar.strings
                result.longInts += scalar.longInts
            }
            return result
        }
        let shape = try self.shape(of: type)
        let count = shape.checkedProduct ?? .max
        guard count <= TensorShape.maximumCount else { throw fail("a constant of \(shape) values", value) }
        switch value.pointee.value_case {
        case CORE_ML__SPECIFICATION__MILSPEC__VALUE__VALUE_BLOB_FILE_VALUE:
            let blob = value.pointee.blobfilevalue.pointee
            let reference = CArrays.string(blob.filename)
            do {
                if let integer = PackedInteger(Self.dataType(of: type)) {
                    return ProgramConstant(shape: shape, bytes: try blobs.bytes(in: reference, at: blob.offset, count: count, type: integer))
                }
                return ProgramConstant(shape: shape, floats: try blobs.floats(in: reference, at: blob.offset, count: count))
            } catch let error as BlobReader.Failure {
                throw fail(BlobReader.fileName(reference).map { "\($0): \(error.description)" } ?? error.description, value)
            }
        case CORE_ML__SPECIFICATION__MILSPEC__VALUE__VALUE_IMMEDIATE_VALUE:
            guard let tensor = value.pointee.immediatevalue.pointee.tensor else { throw fail("an immediate value holds no tensor", value) }
            var result = ProgramConstant(shape: shape)
            // Floats, bools and strings are the fields of exactly float32, bool and string values (coremltools' helper
            // `_tensor_field_by_type`): a value typed otherwise is not read as they hold it.
            let fields: [UInt32: (MILDataType, String)] = [
                CORE_ML__SPECIFICATION__MILSPEC__TENSOR_VALUE__VALUE_FLOATS.rawValue: (CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT32, "float32"),
                CORE_ML__SPECIFICATION__MILSPEC__TENSOR_VALUE__VALUE_BOOLS.rawValue: (CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__BOOL, "bool"),
                CORE_ML__SPECIFICATION__MILSPEC__TENSOR_VALUE__VALUE_STRINGS.rawValue: (CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__STRING, "string"),
            ]
            if let (wanted, held) = fields[UInt32(tensor.pointee.value_case.rawValue)], Self.dataType(of: type) != wanted {
                throw fail("a constant holds \(held) values and is typed otherwise (MIL data type \(Self.dataType(of: type).map { "\($0.rawValue)" } ?? "none"))", value)
            }
            switch tensor.pointee.value_case {
            case CORE_ML__SPECIFICATION__MILSPEC__TENSOR_VALUE__VALUE_FLOATS:
                result.floats = Weights(CArrays.array(tensor.pointee.floats.pointee.values, tensor.pointee.floats.pointee.n_values))
            case CORE_ML__SPECIFICATION__MILSPEC__TENSOR_VALUE__VALUE_INTS:
                result.ints = CArrays.array(tensor.pointee.ints.pointee.values, tensor.pointee.ints.pointee.n_values).map { Int($0) }
            case CORE_ML__SPECIFICATION__MILSPEC__TENSOR_VALUE__VALUE_BOOLS:
                result.bools = CArrays.array(tensor.pointee.bools.pointee.values, tensor.pointee.bools.pointee.n_values).map { $0 != 0 }
            case CORE_ML__SPECIFICATION__MILSPEC__TENSOR_VALUE__VALUE_STRINGS:
                result.strings = CArrays.strings(tensor.pointee.strings.pointee.values, tensor.pointee.strings.pointee.n_values)
            case CORE_ML__SPECIFICATION__MILSPEC__TENSOR_VALUE__VALUE_LONG_INTS:
                result.longInts = CArrays.array(tensor.pointee.longints.pointee.values, tensor.pointee.longints.pointee.n_values)
            case CORE_ML__SPECIFICATION__MILSPEC__TENSOR_VALUE__VALUE_BYTES:
                // Float16, uint8, int8 or uint32 values, little-endian, as coremltools writes them (sub-byte ones packed least
                // significant bits first): exactly the declared count.
                let raw = tensor.pointee.bytes.pointee.values
                let bytes = UnsafeRawBufferPointer(start: raw.data, count: raw.data == nil ? 0 : raw.len)
                let dataType = Self.dataType(of: type)
                if let integer = PackedInteger(dataType) {
                    guard bytes.count == integer.byteCount(count) else { throw fail("a constant declares \(count) values and holds \(bytes.count) bytes", value) }
                    result.bytes = ConstantBytes(copying: bytes, type: integer, count: count)
                    return result
                }
                let widths: [MILDataType: Int] = [CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT16: 2, CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__UINT32: 4]
                guard let width = dataType.flatMap({ widths[$0] }) else {
                    throw fail("a constant in bytes that is not float16, uint32 or an integer of 8 bits or fewer", tensor)
                }
                guard bytes.count == count * width else { throw fail("a constant declares \(count) values and holds \(bytes.count) bytes", value) }
                func word(_ index: Int, _ width: Int) -> Int { (0..<width).reduce(0) { $0 | Int(bytes[width * index + $1]) << (8 * $1) } }
                switch dataType {
                case CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT16:
                    result.floats = Weights((0..<count).map { HalfRounding.value(UInt16(word($0, 2))) })
                    result.floats?.storedPrecision = .float16
                default:
                    result.ints = (0..<count).map { word($0, 4) }
                }
            default:
                throw fail("an immediate value of a kind not read yet", tensor)
            }
            let held = max(result.floats?.count ?? 0, result.ints.count, result.bools.count, result.strings.count, result.longInts.count,
                           result.bytes?.count ?? 0)
            guard held == count else { throw fail("a constant declares \(count) values and holds \(held)", value) }
            return result
        default:
            throw fail("a constant holds no value", value)
        }
    }
}

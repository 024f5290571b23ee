import CProtobufC
import CoreMLSchema

// Short names for the protobuf-c structs of Schemas/mil.proto.
typealias MILProgram = CoreML__Specification__MILSpec__Program
typealias MILFunctionEntry = CoreML__Specification__MILSpec__Program__FunctionsEntry
typealias MILFunction = CoreML__Specification__MILSpec__Function
typealias MILBlockEntry = CoreML__Specification__MILSpec__Function__BlockEntry
typealias MILBlock = CoreML__Specification__MILSpec__Block
typealias MILValueEntry = CoreML__Specification__MILSpec__ValueEntry
typealias MILOperation = CoreML__Specification__MILSpec__Operation
typealias MILInputEntry = CoreML__Specification__MILSpec__Operation__InputsEntry
typealias MILArgument = CoreML__Specification__MILSpec__Argument
typealias MILBinding = CoreML__Specification__MILSpec__Argument__Binding
typealias MILNamedValueType = CoreML__Specification__MILSpec__NamedValueType
typealias MILValueType = CoreML__Specification__MILSpec__ValueType
typealias MILTensorType = CoreML__Specification__MILSpec__TensorType
typealias MILListType = CoreML__Specification__MILSpec__ListType
typealias MILDictionaryType = CoreML__Specification__MILSpec__DictionaryType
typealias MILDimension = CoreML__Specification__MILSpec__Dimension
typealias MILConstantDimension = CoreML__Specification__MILSpec__Dimension__ConstantDimension
typealias MILValue = CoreML__Specification__MILSpec__Value
typealias MILImmediate = CoreML__Specification__MILSpec__Value__ImmediateValue
typealias MILBlobFileValue = CoreML__Specification__MILSpec__Value__BlobFileValue
typealias MILTensorValue = CoreML__Specification__MILSpec__TensorValue
typealias MILFloats = CoreML__Specification__MILSpec__TensorValue__RepeatedFloats
typealias MILInts = CoreML__Specification__MILSpec__TensorValue__RepeatedInts
typealias MILBools = CoreML__Specification__MILSpec__TensorValue__RepeatedBools
typealias MILStrings = CoreML__Specification__MILSpec__TensorValue__RepeatedStrings
typealias MILLongInts = CoreML__Specification__MILSpec__TensorValue__RepeatedLongInts
typealias MILBytes = CoreML__Specification__MILSpec__TensorValue__RepeatedBytes
typealias MILListValue = CoreML__Specification__MILSpec__ListValue
typealias MILDictionaryValue = CoreML__Specification__MILSpec__DictionaryValue
typealias MILDataType = CoreML__Specification__MILSpec__DataType

/// An immediate tensor's values, row-major; its MIL data type follows.
enum MILData {
    case floats([Float])
    case ints([Int32])
    case bools([Bool])
    case strings([String])
    case longInts([Int64])
    /// Float16 values as bit patterns (`HalfRounding`), written little-endian in `bytes` as coremltools writes them.
    case halfs([UInt16])
    /// Written in `bytes` too, as coremltools writes uint32 immediates (little-endian).
    case uint32s([UInt32])
    /// Integers of `type` already packed (`PackedInteger.pack`), written in `bytes`.
    case integers([UInt8], PackedInteger)

    var dataType: MILDataType {
        switch self {
        case .floats: CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT32
        case .ints: CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__INT32
        case .bools: CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__BOOL
        case .strings: CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__STRING
        case .longInts: CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__INT64
        case .halfs: CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT16
        case .uint32s: CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__UINT32
        case .integers(_, let type): type.dataType
        }
    }
}

/// The MIL type and value messages, allocated in the builder's arena.
extension SpecBuilder {
    /// A tensor type; `shape` nil is a scalar (rank 0).
    func milTensorType(_ dataType: MILDataType, _ shape: [Int]?) -> UnsafeMutablePointer<MILValueType> {
        let tensor: UnsafeMutablePointer<MILTensorType> = new(core_ml__specification__milspec__tensor_type__init)
        tensor.pointee.datatype = dataType
        let dimensions = shape ?? []
        tensor.pointee.rank = Int64(dimensions.count)
        (tensor.pointee.n_dimensions, tensor.pointee.dimensions) = array(dimensions.map { size in
            let constant: UnsafeMutablePointer<MILConstantDimension> = new(core_ml__specification__milspec__dimension__constant_dimension__init)
            constant.pointee.size = UInt64(size)
            let dimension: UnsafeMutablePointer<MILDimension> = new(core_ml__specification__milspec__dimension__init)
            dimension.pointee.dimension_case = CORE_ML__SPECIFICATION__MILSPEC__DIMENSION__DIMENSION_CONSTANT
            dimension.pointee.constant = constant
            return dimension
        })
        let type: UnsafeMutablePointer<MILValueType> = new(core_ml__specification__milspec__value_type__init)
        type.pointee.type_case = CORE_ML__SPECIFICATION__MILSPEC__VALUE_TYPE__TYPE_TENSOR_TYPE
        type.pointee.tensortype = tensor
        return type
    }

    /// A list type of `length` elements of `element`.
    func milListType(_ element: UnsafeMutablePointer<MILValueType>, length: Int) -> UnsafeMutablePointer<MILValueType> {
        let list: UnsafeMutablePointer<MILListType> = new(core_ml__specification__milspec__list_type__init)
        list.pointee.type = element
        let constant: UnsafeMutablePointer<MILConstantDimension> = new(core_ml__specification__milspec__dimension__constant_dimension__init)
        constant.pointee.size = UInt64(length)
        let dimension: UnsafeMutablePointer<MILDimension> = new(core_ml__specification__milspec__dimension__init)
        dimension.pointee.dimension_case = CORE_ML__SPECIFICATION__MILSPEC__DIMENSION__DIMENSION_CONSTANT
        dimension.pointee.constant = constant
        list.pointee.length = dimension
        let type: UnsafeMutablePointer<MILValueType> = new(core_ml__specification__milspec__value_type__init)
        type.pointee.type_case = CORE_ML__SPECIFICATION__MILSPEC__VALUE_TYPE__TYPE_LIST_TYPE
        type.pointee.listtype = list
        return type
    }

    /// A dictionary type from `key` to `value`.
    func milDictionaryType(_ key: UnsafeMutablePointer<MILValueType>, _ value: UnsafeMutablePointer<MILValueType>)
        -> UnsafeMutablePointer<MILValueType> {
        let dictionary: UnsafeMutablePointer<MILDictionaryType> = new(core_ml__specification__milspec__dictionary_type__init)
        (dictionary.pointee.keytype, dictionary.pointee.valuetype) = (key, value)
        let type: UnsafeMutablePointer<MILValueType> = new(core_ml__specification__milspec__value_type__init)
        type.pointee.type_case = CORE_ML__SPECIFICATION__MILSPEC__VALUE_TYPE__TYPE_DICTIONARY_TYPE
        type.pointee.dictionarytype = dictionary
        return type
    }

    /// An immediate tensor value of `shape` (nil: a scalar).
    func milValue(_ data: MILData, shape: [Int]?) -> UnsafeMutablePointer<MILValue> {
        let tensor: UnsafeMutablePointer<MILTensorValue> = new(core_ml__specification__milspec__tensor_value__init)
        switch data {
        case .floats(let values):
            let repeated: UnsafeMutablePointer<MILFloats> = new(core_ml__specification__milspec__tensor_value__repeated_floats__init)
            (repeated.pointee.n_values, repeated.pointee.values) = floats(values)
            (tensor.pointee.value_case, tensor.pointee.floats) = (CORE_ML__SPECIFICATION__MILSPEC__TENSOR_VALUE__VALUE_FLOATS, repeated)
        case .ints(let values):
            let repeated: UnsafeMutablePointer<MILInts> = new(core_ml__specification__milspec__tensor_value__repeated_ints__init)
            (repeated.pointee.n_values, repeated.pointee.values) = (values.count, arena.copy(values))
            (tensor.pointee.value_case, tensor.pointee.ints) = (CORE_ML__SPECIFICATION__MILSPEC__TENSOR_VALUE__VALUE_INTS, repeated)
        case .bools(let values):
            let repeated: UnsafeMutablePointer<MILBools> = new(core_ml__specification__milspec__tensor_value__repeated_bools__init)
            (repeated.pointee.n_values, repeated.pointee.values) = bools(values)
            (tensor.pointee.value_case, tensor.pointee.bools) = (CORE_ML__SPECIFICATION__MILSPEC__TENSOR_VALUE__VALUE_BOOLS, repeated)
        case .strings(let values):
            let repeated: UnsafeMutablePointer<MILStrings> = new(core_ml__specification__milspec__tensor_value__repeated_strings__init)
            (repeated.pointee.n_values, repeated.pointee.values) = strings(values)
            (tensor.pointee.value_case, tensor.pointee.strings) = (CORE_ML__SPECIFICATION__MILSPEC__TENSOR_VALUE__VALUE_STRINGS, repeated)
        case .longInts(let values):
            let repeated: UnsafeMutablePointer<MILLongInts> = new(core_ml__specification__milspec__tensor_value__repeated_long_ints__init)
            (repeated.pointee.n_values, repeated.pointee.values) = (values.count, arena.copy(values))
            (tensor.pointee.value_case, tensor.pointee.longints) = (CORE_ML__SPECIFICATION__MILSPEC__TENSOR_VALUE__VALUE_LONG_INTS, repeated)
        case .halfs(let values):
            setBytes(tensor, values.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] })
        case .uint32s(let values):
            setBytes(tensor, values.flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } })
        case .integers(let packed, _):
            setBytes(tensor, packed)
        }
        let immediate: UnsafeMutablePointer<MILImmediate> = new(core_ml__specification__milspec__value__immediate_value__init)
        (immediate.pointee.value_case, immediate.pointee.tensor) = (CORE_ML__SPECIFICATION__MILSPEC__VALUE__IMMEDIATE_VALUE__VALUE_TENSOR, tensor)
        let value: UnsafeMutablePointer<MILValue> = new(core_ml__specification__milspec__value__init)
        value.pointee.type = milTensorType(data.dataType, shape)
        (value.pointee.value_case, value.pointee.immediatevalue) = (CORE_ML__SPECIFICATION__MILSPEC__VALUE__VALUE_IMMEDIATE_VALUE, immediate)
        return value
    }

    private func setBytes(_ tensor: UnsafeMutablePointer<MILTensorValue>, _ bytes: [UInt8]) {
        let repeated: UnsafeMutablePointer<MILBytes> = new(core_ml__specification__milspec__tensor_value__repeated_bytes__init)
        repeated.pointee.values = ProtobufCBinaryData(len: bytes.count, data: arena.copy(bytes))
        (tensor.pointee.value_case, tensor.pointee.bytes) = (CORE_ML__SPECIFICATION__MILSPEC__TENSOR_VALUE__VALUE_BYTES, repeated)
    }

    /// A float32 (or float16) tensor stored in the weight file, its metadata record at `offset`.
    func milBlobValue(shape: [Int], offset: Int, float16: Bool = false) -> UnsafeMutablePointer<MILValue> {
        milBlobValue(shape: shape, offset: offset,
                     dataType: float16 ? CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT16 : CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT32)
    }

    /// A tensor of `dataType` stored in the weight file, its metadata record at `offset`.
    func milBlobValue(shape: [Int], offset: Int, dataType: MILDataType) -> UnsafeMutablePointer<MILValue> {
        let blob: UnsafeMutablePointer<MILBlobFileValue> = new(core_ml__specification__milspec__value__blob_file_value__init)
        blob.pointee.filename = string(BlobFile.referenceName)
        blob.pointee.offset = UInt64(offset)
        let value: UnsafeMutablePointer<MILValue> = new(core_ml__specification__milspec__value__init)
        value.pointee.type = milTensorType(dataType, shape)
        (value.pointee.value_case, value.pointee.blobfilevalue) = (CORE_ML__SPECIFICATION__MILSPEC__VALUE__VALUE_BLOB_FILE_VALUE, blob)
        return value
    }

    /// A list of scalar strings or int64s (the classifier's classes).
    func milList(_ elements: [MILData]) -> UnsafeMutablePointer<MILValue> {
        let list: UnsafeMutablePointer<MILListValue> = new(core_ml__specification__milspec__list_value__init)
        (list.pointee.n_values, list.pointee.values) = array(elements.map { milValue($0, shape: nil) })
        let immediate: UnsafeMutablePointer<MILImmediate> = new(core_ml__specification__milspec__value__immediate_value__init)
        (immediate.pointee.value_case, immediate.pointee.list) = (CORE_ML__SPECIFICATION__MILSPEC__VALUE__IMMEDIATE_VALUE__VALUE_LIST, list)
        let value: UnsafeMutablePointer<MILValue> = new(core_ml__specification__milspec__value__init)
        let elementType = elements.first?.dataType ?? CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__STRING
        value.pointee.type = milListType(milTensorType(elementType, nil), length: elements.count)
        (value.pointee.value_case, value.pointee.immediatevalue) = (CORE_ML__SPECIFICATION__MILSPEC__VALUE__VALUE_IMMEDIATE_VALUE, immediate)
        return value
    }

    /// A string-keyed attribute entry.
    func milEntry(_ key: String, _ value: UnsafeMutablePointer<MILValue>) -> UnsafeMutablePointer<MILValueEntry> {
        let entry: UnsafeMutablePointer<MILValueEntry> = new(core_ml__specification__milspec__value_entry__init)
        (entry.pointee.key, entry.pointee.value) = (string(key), value)
        return entry
    }

    /// A named value of `type` (an input or an operation's output).
    func milNamed(_ name: String, _ type: UnsafeMutablePointer<MILValueType>) -> UnsafeMutablePointer<MILNamedValueType> {
        let named: UnsafeMutablePointer<MILNamedValueType> = new(core_ml__specification__milspec__named_value_type__init)
        (named.pointee.name, named.pointee.type) = (string(name), type)
        return named
    }
}

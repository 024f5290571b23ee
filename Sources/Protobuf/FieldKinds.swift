import CProtobufC

/// How a protobuf-c field type sits on the wire and in its C struct.
extension ProtobufCFieldDescriptor {
    var isRepeated: Bool { label == PROTOBUF_C_LABEL_REPEATED }
    var isOneofMember: Bool { flags & PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue != 0 }
    var fieldName: String { String(cString: name) }

    /// Bytes per value on the wire for fixed-width types, nil for varints
    /// and length-delimited types.
    var fixedWidth: Int? {
        switch type {
        case PROTOBUF_C_TYPE_SFIXED32, PROTOBUF_C_TYPE_FIXED32, PROTOBUF_C_TYPE_FLOAT: return 4
        case PROTOBUF_C_TYPE_SFIXED64, PROTOBUF_C_TYPE_FIXED64, PROTOBUF_C_TYPE_DOUBLE: return 8
        default: return nil
        }
    }

    var isVarint: Bool {
        switch type {
        case PROTOBUF_C_TYPE_INT32, PROTOBUF_C_TYPE_SINT32, PROTOBUF_C_TYPE_INT64, PROTOBUF_C_TYPE_SINT64,
             PROTOBUF_C_TYPE_UINT32, PROTOBUF_C_TYPE_UINT64, PROTOBUF_C_TYPE_BOOL, PROTOBUF_C_TYPE_ENUM:
            return true
        default: return false
        }
    }

    /// Whether a repeated field of this type may arrive packed.
    var isPackable: Bool { isVarint || fixedWidth != nil }

    /// Size of one element in the C struct (or in a repeated field's array).
    var storageSize: Int {
        switch type {
        case PROTOBUF_C_TYPE_INT64, PROTOBUF_C_TYPE_SINT64, PROTOBUF_C_TYPE_SFIXED64,
             PROTOBUF_C_TYPE_UINT64, PROTOBUF_C_TYPE_FIXED64, PROTOBUF_C_TYPE_DOUBLE:
            return 8
        case PROTOBUF_C_TYPE_STRING, PROTOBUF_C_TYPE_MESSAGE:
            return MemoryLayout<UnsafeRawPointer>.size
        case PROTOBUF_C_TYPE_BYTES:
            return MemoryLayout<ProtobufCBinaryData>.size
        default:
            return 4  // 32-bit numbers, enums and protobuf_c_boolean
        }
    }

    /// The wire type a single (unpacked) value of this field uses.
    var wireType: WireType {
        if isVarint { return .varint }
        switch fixedWidth {
        case 4: return .fixed32
        case 8: return .fixed64
        default: return .lengthDelimited
        }
    }

    var typeName: String {
        switch type {
        case PROTOBUF_C_TYPE_INT32: "int32"
        case PROTOBUF_C_TYPE_SINT32: "sint32"
        case PROTOBUF_C_TYPE_SFIXED32: "sfixed32"
        case PROTOBUF_C_TYPE_INT64: "int64"
        case PROTOBUF_C_TYPE_SINT64: "sint64"
        case PROTOBUF_C_TYPE_SFIXED64: "sfixed64"
        case PROTOBUF_C_TYPE_UINT32: "uint32"
        case PROTOBUF_C_TYPE_FIXED32: "fixed32"
        case PROTOBUF_C_TYPE_UINT64: "uint64"
        case PROTOBUF_C_TYPE_FIXED64: "fixed64"
        case PROTOBUF_C_TYPE_FLOAT: "float"
        case PROTOBUF_C_TYPE_DOUBLE: "double"
        case PROTOBUF_C_TYPE_BOOL: "bool"
        case PROTOBUF_C_TYPE_ENUM: "enum"
        case PROTOBUF_C_TYPE_STRING: "string"
        case PROTOBUF_C_TYPE_BYTES: "bytes"
        default: "message"
        }
    }
}

/// Writes one scalar, given as its raw wire bits, into C storage of the
/// field's type. Shared by the binary and the text decoder.
@inline(__always)
func storeScalar(_ bits: UInt64, as field: ProtobufCFieldDescriptor, to address: UnsafeMutableRawPointer) {
    switch field.type {
    case PROTOBUF_C_TYPE_INT32, PROTOBUF_C_TYPE_ENUM, PROTOBUF_C_TYPE_SFIXED32:
        address.storeBytes(of: Int32(truncatingIfNeeded: bits), as: Int32.self)
    case PROTOBUF_C_TYPE_SINT32:
        let value = UInt32(truncatingIfNeeded: bits)
        address.storeBytes(of: Int32(bitPattern: (value >> 1) ^ (0 &- (value & 1))), as: Int32.self)
    case PROTOBUF_C_TYPE_UINT32, PROTOBUF_C_TYPE_FIXED32, PROTOBUF_C_TYPE_FLOAT:
        address.storeBytes(of: UInt32(truncatingIfNeeded: bits), as: UInt32.self)
    case PROTOBUF_C_TYPE_SINT64:
        address.storeBytes(of: Int64(bitPattern: (bits >> 1) ^ (0 &- (bits & 1))), as: Int64.self)
    case PROTOBUF_C_TYPE_BOOL:
        address.storeBytes(of: Int32(bits != 0 ? 1 : 0), as: Int32.self)
    default:  // int64, sfixed64, uint64, fixed64, double
        address.storeBytes(of: bits, as: UInt64.self)
    }
}

/// Marks a singular field present: the oneof case for oneof members, the
/// `has_` flag for proto2 optional scalars and bytes.
@inline(__always)
func markPresent(_ field: ProtobufCFieldDescriptor, in message: UnsafeMutableRawPointer) {
    if field.isOneofMember {
        (message + Int(field.quantifier_offset)).storeBytes(of: field.id, as: UInt32.self)
    } else if field.label == PROTOBUF_C_LABEL_OPTIONAL,
              field.type != PROTOBUF_C_TYPE_MESSAGE, field.type != PROTOBUF_C_TYPE_STRING {
        (message + Int(field.quantifier_offset)).storeBytes(of: Int32(1), as: Int32.self)
    }
}

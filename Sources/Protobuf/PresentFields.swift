import CProtobufC

/// The fields a decoded protobuf-c message actually carries, read from its
/// own descriptor: a proto2 optional scalar by its `has_` flag, a oneof
/// member by its case, a message or string by a non-null pointer (a string
/// other than its default's), a repeated field when it holds any element.
/// A frontend's attribute ledger checks these, so that a field the file
/// sets is never passed over unseen.
public enum PresentFields {
    /// `(name, value)` for each field `message` carries, in field order;
    /// values rendered as the file spells them: numbers (`3`, `0.5`,
    /// `1e-05`), `true` / `false`, enum names (`MAX`), strings, a repeated
    /// field's elements joined with `,`, a message as `{...}`.
    /// - Parameter message: a protobuf-c message (its first member is the
    ///   `ProtobufCMessage` base, which names the descriptor).
    public static func list(_ message: UnsafeRawPointer) -> [(name: String, value: String)] {
        let base = message.assumingMemoryBound(to: ProtobufCMessage.self).pointee
        guard let descriptor = base.descriptor else { return [] }
        var present: [(name: String, value: String)] = []
        for index in 0..<Int(descriptor.pointee.n_fields) {
            let field = descriptor.pointee.fields[index]
            let name = String(cString: field.name)
            let storage = message + Int(field.offset)
            if field.label == PROTOBUF_C_LABEL_REPEATED {
                let count = (message + Int(field.quantifier_offset)).load(as: Int.self)
                guard count > 0, let array = storage.load(as: UnsafeRawPointer?.self) else { continue }
                let values = (0..<count).map { render(array + $0 * field.storageSize, field) }
                present.append((name, values.joined(separator: ",")))
                continue
            }
            let isSet: Bool
            if field.isOneofMember {
                isSet = (message + Int(field.quantifier_offset)).load(as: UInt32.self) == field.id
            } else if field.type == PROTOBUF_C_TYPE_MESSAGE {
                isSet = storage.load(as: UnsafeRawPointer?.self) != nil
            } else if field.type == PROTOBUF_C_TYPE_STRING {
                let pointer = storage.load(as: UnsafeRawPointer?.self)
                isSet = pointer != nil && pointer != field.default_value.map { UnsafeRawPointer($0) }
            } else if field.label == PROTOBUF_C_LABEL_OPTIONAL {
                isSet = (message + Int(field.quantifier_offset)).load(as: Int32.self) != 0
            } else {
                isSet = true  // required (proto2), or proto3 scalars: always there
            }
            if isSet { present.append((name, render(storage, field))) }
        }
        return present
    }

    /// One value stored at `address` as `field`'s type.
    static func render(_ address: UnsafeRawPointer, _ field: ProtobufCFieldDescriptor) -> String {
        switch field.type {
        case PROTOBUF_C_TYPE_INT32, PROTOBUF_C_TYPE_SINT32, PROTOBUF_C_TYPE_SFIXED32:
            return String(address.load(as: Int32.self))
        case PROTOBUF_C_TYPE_UINT32, PROTOBUF_C_TYPE_FIXED32:
            return String(address.load(as: UInt32.self))
        case PROTOBUF_C_TYPE_INT64, PROTOBUF_C_TYPE_SINT64, PROTOBUF_C_TYPE_SFIXED64:
            return String(address.load(as: Int64.self))
        case PROTOBUF_C_TYPE_UINT64, PROTOBUF_C_TYPE_FIXED64:
            return String(address.load(as: UInt64.self))
        case PROTOBUF_C_TYPE_FLOAT:
            return number(Double(address.load(as: Float.self)), float: address.load(as: Float.self).description)
        case PROTOBUF_C_TYPE_DOUBLE:
            return number(address.load(as: Double.self), float: address.load(as: Double.self).description)
        case PROTOBUF_C_TYPE_BOOL:
            return address.load(as: Int32.self) != 0 ? "true" : "false"
        case PROTOBUF_C_TYPE_ENUM:
            let value = address.load(as: Int32.self)
            if let enumDescriptor = field.descriptor?.assumingMemoryBound(to: ProtobufCEnumDescriptor.self),
               let named = protobuf_c_enum_descriptor_get_value(enumDescriptor, value) {
                return String(cString: named.pointee.name)
            }
            return String(value)
        case PROTOBUF_C_TYPE_STRING:
            return address.load(as: UnsafePointer<CChar>?.self).map { String(cString: $0) } ?? ""
        case PROTOBUF_C_TYPE_BYTES:
            return "<\(address.load(as: ProtobufCBinaryData.self).len) bytes>"
        default:
            return "{...}"
        }
    }

    /// A float as the file would spell it: whole numbers without ".0"
    /// (`1`, not `1.0`), others in their shortest form (`0.5`, `1e-05`).
    static func number(_ value: Double, float description: String) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return description
    }
}

import CoreMLSchema

/// An integer type of a compressed constant's levels, offsets and indices:
/// uint8 and int8 a byte each, iOS 18's sub-byte types (int4, uint1, uint2,
/// uint3, uint4, uint6) packed least significant bits first, as Core ML's
/// MILBlob packs them (`SubByteTypes.cpp`), in a blob or an immediate value.
struct PackedInteger: Hashable, Sendable {
    let bits: Int
    let signed: Bool

    static let uint8 = PackedInteger(bits: 8, signed: false), int8 = PackedInteger(bits: 8, signed: true)
    static let int4 = PackedInteger(bits: 4, signed: true)

    /// The unsigned type of `bits` (an index of iOS 18's lookup table: 1, 2, 3, 4, 6 or 8 bits).
    static func unsigned(_ bits: Int) -> PackedInteger { PackedInteger(bits: bits, signed: false) }

    /// Each type: its MIL data type and MILBlob's `BlobDataType` number.
    private static let table: [(PackedInteger, MILDataType, UInt32)] = [
        (.uint8, CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__UINT8, 3),
        (.int8, CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__INT8, 4),
        (.int4, CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__INT4, 8),
        (.unsigned(1), CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__UINT1, 9),
        (.unsigned(2), CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__UINT2, 10),
        (.unsigned(4), CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__UINT4, 11),
        (.unsigned(3), CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__UINT3, 12),
        (.unsigned(6), CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__UINT6, 13),
    ]

    init(bits: Int, signed: Bool) {
        (self.bits, self.signed) = (bits, signed)
    }

    init?(_ dataType: MILDataType?) {
        guard let entry = Self.table.first(where: { $0.1 == dataType }) else { return nil }
        self = entry.0
    }

    init?(blobType: UInt32) {
        guard let entry = Self.table.first(where: { $0.2 == blobType }) else { return nil }
        self = entry.0
    }

    var dataType: MILDataType { Self.table.first { $0.0 == self }!.1 }
    var blobType: UInt32 { Self.table.first { $0.0 == self }!.2 }
    var name: String { "\(signed ? "int" : "uint")\(bits)" }

    /// The values it holds: 0 ..< 2^bits, or -2^(bits-1) ..< 2^(bits-1).
    var range: ClosedRange<Int> { signed ? -(1 << (bits - 1))...(1 << (bits - 1)) - 1 : 0...(1 << bits) - 1 }

    /// The bytes `count` values take, the last one's unused bits zero.
    func byteCount(_ count: Int) -> Int { (count * bits + 7) / 8 }

    /// `levels` packed least significant bits first: each its low `bits` (a signed value's two's complement).
    func pack(_ levels: [UInt8]) -> [UInt8] {
        var packed = [UInt8](repeating: 0, count: byteCount(levels.count))
        levels.withUnsafeBufferPointer { levels in
            packed.withUnsafeMutableBytes { Quantizer.pack(levels, bits: bits, into: $0, order: .leastSignificantFirst) }
        }
        return packed
    }

    /// Value `index` of `packed`.
    @inline(__always)
    func value(_ packed: UnsafeRawBufferPointer, at index: Int) -> Int {
        let level = Quantizer.level(packed, bits: bits, at: index, order: .leastSignificantFirst)
        return signed && level >> (bits - 1) == 1 ? level - (1 << bits) : level
    }
}

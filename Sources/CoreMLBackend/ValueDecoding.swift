import ModelFormat
import CoreMLSchema
import Protobuf

/// Checked conversions of stored numbers: counts, sizes, edges, enums.
extension SpecReader {
    /// The largest size accepted for any single dimension or count.
    static let maximumCount: UInt64 = 1 << 31

    func count(_ value: UInt64, _ what: String, _ layer: String, allowZero: Bool = false) throws -> Int {
        guard value <= Self.maximumCount, allowZero || value > 0 else {
            throw fail("layer '\(layer)': \(what) is \(value)", at: nil)
        }
        return Int(value)
    }

    func counts(_ pointer: UnsafeMutablePointer<UInt64>?, _ n: Int, _ layer: String, allowZero: Bool = false) throws -> [Int] {
        try CArrays.buffer(pointer, n).map { try count($0, "a size", layer, allowZero: allowZero) }
    }

    /// Signed int64 values (indices, axes, sizes) within +-2^31.
    func integers(_ pointer: UnsafeMutablePointer<Int64>?, _ n: Int, _ what: String, _ layer: String) throws -> [Int] {
        try integers(CArrays.array(pointer, n), what, layer)
    }

    func integers(_ values: [Int64], _ what: String, _ layer: String) throws -> [Int] {
        let limit = Int64(Self.maximumCount)
        guard values.allSatisfy({ (-limit...limit).contains($0) }) else { throw fail("layer '\(layer)': \(what) \(values) is out of range", at: nil) }
        return values.map { Int($0) }
    }

    /// A [height, width] pair; Core ML's documented default when absent.
    func size2(_ pointer: UnsafeMutablePointer<UInt64>?, _ n: Int, default value: Int, _ what: String, _ layer: String,
               allowZero: Bool = false) throws -> Size2 {
        if n == 0 { return Size2(square: value) }
        guard n == 2 else { throw fail("layer '\(layer)': \(what) has \(n) values, expected 2", at: nil) }
        let values = try counts(pointer, n, layer, allowZero: allowZero)
        return Size2(values[0], values[1])
    }

    func edges(_ amounts: UnsafeMutablePointer<MLBorderAmounts>?, _ layer: String) throws -> Edges {
        guard let amounts, amounts.pointee.n_borderamounts > 0 else { return .zero }
        let sizes = CArrays.buffer(amounts.pointee.borderamounts, amounts.pointee.n_borderamounts)
        guard sizes.count == 2, let height = sizes[0], let width = sizes[1] else {
            throw fail("layer '\(layer)': border amounts have \(sizes.count) entries, expected 2 (height, width)", at: amounts)
        }
        return Edges(top: try count(height.pointee.startedgesize, "top padding", layer, allowZero: true),
                     bottom: try count(height.pointee.endedgesize, "bottom padding", layer, allowZero: true),
                     left: try count(width.pointee.startedgesize, "left padding", layer, allowZero: true),
                     right: try count(width.pointee.endedgesize, "right padding", layer, allowZero: true))
    }

    func topLeftHeavy(_ same: UnsafeMutablePointer<MLSamePadding>?, _ layer: String) throws -> Bool {
        guard let same else { return false }
        switch same.pointee.asymmetrymode {
        case CORE_ML__SPECIFICATION__SAME_PADDING__SAME_PADDING_MODE__BOTTOM_RIGHT_HEAVY: return false
        case CORE_ML__SPECIFICATION__SAME_PADDING__SAME_PADDING_MODE__TOP_LEFT_HEAVY: return true
        default: throw fail("layer '\(layer)' has the unknown same-padding mode \(same.pointee.asymmetrymode.rawValue)", at: same)
        }
    }

    /// Flatten and reshape orders share their numbering: 0 channel first, 1 channel last.
    func order(_ raw: UInt32, _ layer: String, at message: UnsafeRawPointer) throws -> ChannelOrder {
        switch raw {
        case 0: return .channelFirst
        case 1: return .channelLast
        default: throw fail("layer '\(layer)' has the unknown order \(raw)", at: message)
        }
    }
}

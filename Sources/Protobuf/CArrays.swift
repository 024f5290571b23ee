import CProtobufC

/// Reading protobuf-c struct fields from Swift: repeated fields are a
/// pointer and a count, strings are C strings, absent means nil.
public enum CArrays {
    /// The elements of a repeated field; empty when the pointer is nil
    /// (an absent field, or a payload skipped by a structure-only decode).
    @inlinable
    public static func buffer<T>(_ pointer: UnsafeMutablePointer<T>?, _ count: Int) -> UnsafeBufferPointer<T> {
        guard let pointer, count > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: pointer, count: count)
    }

    /// The elements of a repeated field as an array.
    @inlinable
    public static func array<T>(_ pointer: UnsafeMutablePointer<T>?, _ count: Int) -> [T] {
        Array(buffer(pointer, count))
    }

    /// A C string field as a Swift string ("" when nil).
    @inlinable
    public static func string(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    /// The strings of a repeated string field.
    public static func strings(_ pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ count: Int) -> [String] {
        buffer(pointer, count).map { string($0) }
    }
}

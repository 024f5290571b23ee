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

    /// Whether a C string field holds UTF-8 (an absent one does). Names must
    /// be compared as the file's bytes: decoded with U+FFFD for the bytes
    /// that are not UTF-8, two names could become one.
    public static func isUTF8(_ pointer: UnsafePointer<CChar>?) -> Bool {
        pointer.map { String(validatingCString: $0) != nil } ?? true
    }

    /// The strings of a repeated string field.
    public static func strings(_ pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ count: Int) -> [String] {
        buffer(pointer, count).map { string($0) }
    }
}

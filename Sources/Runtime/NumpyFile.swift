import Naming
import ModelFormat
import FileIO
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// NumPy `.npy` files, for exchanging tensors with Python (reference inputs
/// and expected outputs for the runtime's exact checks).
///
/// Reads format versions 1.0, 2.0 and 3.0, C-order arrays of little-endian
/// `float32` (`<f4`), `float64` (`<f8`), `uint8` (`|u1`), `int32` (`<i4`)
/// and `int64` (`<i8`), all converted to `Float` (float64 and large integers
/// are rounded to the nearest float). Writes float32, version 1.0, with the
/// same bytes `numpy.save` produces.
public enum NumpyFile {
    /// The array in `path` as the value of input `input`, which takes
    /// `expected` ([C, H, W]; a [C] vector as [C] or [C, 1, 1]), with or
    /// without a leading batch of 1 (as PyTorch and ONNX arrays have it).
    /// - Throws: `RuntimeError` when it cannot be read or does not fit.
    ///
    /// The header is read and its shape compared with `expected` before any
    /// of the data is read; then exactly the bytes the shape declares are.
    public static func tensor(path: String, fitting expected: TensorShape, input: String) throws(RuntimeError) -> Tensor {
        var file = try NumpyInput(path: path)
        defer { file.close() }
        let header = try readHeader(&file)
        let stored = header.shape
        let shape = stored.first == 1 && stored.count > expected.featureShape.count ? Array(stored.dropFirst()) : stored
        guard shape == expected.featureShape || shape == expected.dimensions else {
            throw RuntimeError("\(path): shape \(stored) does not fit input '\(input)', which takes \(expected.featureShape)")
        }
        return Tensor(shape: expected, values: try readData(&file, header: header))
    }

    /// Refuses a tensor holding NaN or an infinity, naming `input`, the
    /// first such value's flat index and its position in `tensor`'s shape:
    /// kernels differ on them (oneDNN's fused ReLU makes NaN 0, the generic
    /// kernel keeps it), so a prediction from them would look normal.
    /// - Throws: `RuntimeError` naming `path` and `input`.
    public static func checkFinite(_ tensor: Tensor, input: String, path: String) throws(RuntimeError) {
        guard let index = tensor.values.firstIndex(where: { !$0.isFinite }) else { return }
        var position: [Int] = [], rest = index
        for size in tensor.shape.dimensions.reversed() {
            position.insert(rest % size, at: 0)
            rest /= size
        }
        let count = tensor.values.lazy.filter { !$0.isFinite }.count
        throw RuntimeError("\(path): input '\(input)' holds \(tensor.values[index]) at index \(index) \(position)"
                           + (count > 1 ? " (and \(count - 1) more non-finite values)" : "")
                           + "; kernels differ on non-finite values (\(option: .allowNonFinite) feeds them anyway)")
    }

    /// The longest header dictionary read: 64 KiB (the most a version 1.0
    /// header holds; numpy itself reads at most 10,000 bytes by default).
    public static let maximumHeaderBytes = 65_535

    /// The shape and values (in C order) of the array in the file at `path`.
    /// A 0-dimensional array has shape `[]` and one value.
    /// - Throws: `RuntimeError` naming `path`: unreadable file, bad magic or
    ///   header, unsupported dtype, Fortran order, or a data size that does
    ///   not match the shape (checked before anything is allocated for it).
    public static func read(path: String) throws(RuntimeError) -> (shape: [Int], values: [Float]) {
        var file = try NumpyInput(path: path)
        defer { file.close() }
        let header = try readHeader(&file)
        return (header.shape, try readData(&file, header: header))
    }

    /// The magic, version and header dictionary at the start of `file`
    /// (nothing past them is read).
    static func readHeader(_ file: inout NumpyInput) throws(RuntimeError) -> NumpyHeader {
        let path = file.path
        let fail = { (message: String) in RuntimeError("\(path): \(message)") }

        let magic = try file.read(8)
        guard magic.count == 8, magic.starts(with: [0x93] + Array("NUMPY".utf8)) else {
            throw fail("not a .npy file (bad magic)")
        }
        let major = magic[6], minor = magic[7]
        guard [1, 2, 3].contains(major), minor == 0 else {
            throw fail("unsupported .npy format version \(major).\(minor)")
        }
        let lengthBytes = try file.read(major == 1 ? 2 : 4)
        guard lengthBytes.count == (major == 1 ? 2 : 4) else { throw fail("truncated header") }
        let headerLength = lengthBytes.reversed().reduce(0) { $0 << 8 | Int($1) }
        // numpy refuses headers over 10,000 bytes unless told otherwise (max_header_size).
        guard headerLength <= maximumHeaderBytes else {
            throw fail("header of \(headerLength) bytes announced, more than the limit of \(maximumHeaderBytes)")
        }
        guard headerLength <= file.size - file.offset else {
            throw fail("truncated header (\(headerLength) bytes announced, \(file.size - file.offset) in the file)")
        }
        let headerBytes = try file.read(headerLength)
        return try NumpyHeader(parsing: headerBytes, fail: fail)
    }

    /// The array data after `header`: exactly the bytes its shape and dtype
    /// declare, compared with what the file holds before any is read.
    static func readData(_ file: inout NumpyInput, header: NumpyHeader) throws(RuntimeError) -> [Float] {
        let path = file.path
        let fail = { (message: String) in RuntimeError("\(path): \(message)") }
        var count = 1
        for dimension in header.shape {
            let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
            guard !overflow else { throw fail("shape \(header.shapeText) is too large") }
            count = product
        }
        let (needed, overflow) = count.multipliedReportingOverflow(by: header.dtype.size)
        let available = file.size - file.offset
        guard !overflow, needed == available else {
            throw fail("shape \(header.shapeText) needs \(overflow ? "too many" : String(needed)) bytes of data, the file has \(available)")
        }
        let data = try file.read(needed)
        guard data.count == needed else { throw fail("file shrank while being read") }
        return header.dtype.floats(from: data, count: count)
    }

    /// Writes `values` as a float32 array of `shape` (C order), numpy format
    /// 1.0, atomically: a temporary file in the same folder is renamed over
    /// `path` only once completely written.
    /// `inputs` are the files the run reads, which `path` must not be.
    /// - Throws: `RuntimeError` when `shape` does not hold `values.count`
    ///   values, or the file cannot be written.
    public static func write(_ values: [Float], shape: [Int], to path: String, inputs: [String] = []) throws(RuntimeError) {
        let bytes = try encoded(values, shape: shape, path: path)
        do {
            try AtomicFile.write(bytes, to: path, inputs: inputs)
        } catch {
            throw RuntimeError(String(mentioning: error))
        }
    }

    /// Writes `values` as `write(_:shape:to:inputs:)` does, as the file for
    /// `path` in `set` (one of its targets): not in place before the set's
    /// commit, and on a failure no file of the set is.
    public static func write(_ values: [Float], shape: [Int], to path: String, in set: AtomicFileSet) throws(RuntimeError) {
        let bytes = try encoded(values, shape: shape, path: path)
        do {
            try set.write(bytes, to: path)
        } catch {
            throw RuntimeError(String(mentioning: error))
        }
    }

    /// The bytes of the .npy file (`path` for messages).
    private static func encoded(_ values: [Float], shape: [Int], path: String) throws(RuntimeError) -> [UInt8] {
        guard shape.allSatisfy({ $0 >= 0 }), shape.checkedProduct == values.count else {
            throw RuntimeError("\(path): shape \(NumpyHeader.text(of: shape)) does not hold \(values.count) values")
        }
        var header = "{'descr': '<f4', 'fortran_order': False, 'shape': \(NumpyHeader.text(of: shape)), }"
        // numpy leaves room to grow the first axis in place.
        if let first = shape.first { header += String(repeating: " ", count: max(0, 21 - String(first).count)) }
        let unpadded = 10 + header.utf8.count + 1
        header += String(repeating: " ", count: (64 - unpadded % 64) % 64) + "\n"
        let headerLength = header.utf8.count
        guard headerLength <= Int(UInt16.max) else {
            throw RuntimeError("\(path): shape \(NumpyHeader.text(of: shape)) has too many dimensions for a .npy 1.0 header")
        }
        var bytes = [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(headerLength & 0xFF), UInt8(headerLength >> 8)]
        bytes += Array(header.utf8)
        bytes.reserveCapacity(bytes.count + 4 * values.count)
        for value in values {
            let bits = value.bitPattern
            bytes += [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24)]
        }
        return bytes
    }
}

/// The parsed header dictionary: `{'descr': ..., 'fortran_order': ..., 'shape': (...)}`.
struct NumpyHeader {
    var dtype: NumpyDType
    var shape: [Int]

    var shapeText: String { Self.text(of: shape) }

    /// Python's spelling of a shape tuple: `()`, `(3,)`, `(3, 4)`.
    static func text(of shape: [Int]) -> String {
        shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
    }

    init(parsing bytes: [UInt8], fail: (String) -> RuntimeError) throws(RuntimeError) {
        var parser = PythonLiteralParser(bytes: bytes)
        guard let entries = parser.dictionary() else {
            throw fail("malformed header (not a Python dict literal)")
        }
        guard case .string(let descr)? = entries["descr"] else { throw fail("header has no 'descr'") }
        guard let dtype = NumpyDType(descr) else {
            throw fail("unsupported dtype '\(descr)' (supported: <f4, <f8, |u1, <i4, <i8)")
        }
        guard case .bool(let fortran)? = entries["fortran_order"] else { throw fail("header has no 'fortran_order'") }
        guard !fortran else {
            throw fail("Fortran-order arrays are not supported (save np.ascontiguousarray(a) instead)")
        }
        guard case .tuple(let shape)? = entries["shape"], shape.allSatisfy({ $0 >= 0 }) else {
            throw fail("header has no valid 'shape'")
        }
        self.dtype = dtype
        self.shape = shape
    }
}

/// The element types `NumpyFile` reads.
enum NumpyDType {
    case float32, float64, uint8, int32, int64

    init?(_ descr: String) {
        switch descr {
        case "<f4": self = .float32
        case "<f8": self = .float64
        case "|u1", "<u1", "u1": self = .uint8
        case "<i4": self = .int32
        case "<i8": self = .int64
        default: return nil
        }
    }

    var size: Int {
        switch self {
        case .uint8: 1
        case .float32, .int32: 4
        case .float64, .int64: 8
        }
    }

    /// `count` little-endian elements of this type, as floats.
    func floats(from data: [UInt8], count: Int) -> [Float] {
        data.withUnsafeBytes { raw in
            [Float](unsafeUninitializedCapacity: count) { out, initialized in
                for i in 0..<count {
                    switch self {
                    case .uint8: out[i] = Float(raw[i])
                    case .float32: out[i] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
                    case .int32: out[i] = Float(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * i, as: Int32.self)))
                    case .float64: out[i] = Float(Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self))))
                    case .int64: out[i] = Float(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: 8 * i, as: Int64.self)))
                    }
                }
                initialized = count
            }
        }
    }
}

/// Just enough of Python's literal syntax for `.npy` headers: a dict of
/// string keys to strings, booleans and tuples of integers.
struct PythonLiteralParser {
    enum Value: Equatable {
        case string(String)
        case bool(Bool)
        case tuple([Int])
    }

    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The whole input as a dict, or nil when it is anything else.
    mutating func dictionary() -> [String: Value]? {
        guard take("{") else { return nil }
        var entries: [String: Value] = [:]
        while !take("}") {
            guard case .string(let key)? = value(), take(":"), let value = value() else { return nil }
            entries[key] = value
            if !take(",") {
                guard take("}") else { return nil }
                break
            }
        }
        skipSpaces()
        return position == bytes.count ? entries : nil
    }

    mutating func value() -> Value? {
        skipSpaces()
        guard position < bytes.count else { return nil }
        switch bytes[position] {
        case UInt8(ascii: "'"), UInt8(ascii: "\""):
            let quote = bytes[position]
            guard let end = bytes[(position + 1)...].firstIndex(of: quote) else { return nil }
            defer { position = end + 1 }
            return .string(String(decoding: bytes[(position + 1)..<end], as: UTF8.self))
        case UInt8(ascii: "("):
            position += 1
            var items: [Int] = []
            while !take(")") {
                guard let item = integer() else { return nil }
                items.append(item)
                if !take(",") {
                    guard take(")") else { return nil }
                    break
                }
            }
            return .tuple(items)
        default:
            if word("True") { return .bool(true) }
            if word("False") { return .bool(false) }
            return nil
        }
    }

    /// A non-negative decimal integer (Python 2 headers may add an `L`).
    mutating func integer() -> Int? {
        skipSpaces()
        var result = 0, digits = 0
        while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
            let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(bytes[position] - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            result = sum
            digits += 1
            position += 1
        }
        if digits > 0, position < bytes.count, bytes[position] == UInt8(ascii: "L") { position += 1 }
        return digits > 0 ? result : nil
    }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        skipSpaces()
        guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
        position += 1
        return true
    }

    mutating func word(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard bytes[position...].starts(with: utf8) else { return false }
        position += utf8.count
        return true
    }

    mutating func skipSpaces() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }
}

/// A file read from the start, knowing its size up front.
struct NumpyInput {
    let path: String
    let descriptor: Int32
    let size: Int
    var offset = 0

    init(path: String) throws(RuntimeError) {
        self.path = path
        do {
            (descriptor, size) = try ReadableFile.open(path)
        } catch {
            throw RuntimeError(error.description)
        }
    }

    /// Up to `count` bytes (fewer at the end of the file).
    mutating func read(_ count: Int) throws(RuntimeError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try ReadableFile.read(descriptor, count: count, path: path)
        } catch {
            throw RuntimeError(error.description)
        }
        offset += bytes.count
        return bytes
    }

    func close() {
        posixClose(descriptor)
    }
}

// The system call, under a name the type above does not hide.
@discardableResult
private func posixClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}

import CHDF5
#if canImport(Glibc)
import Glibc
#endif

extension HDF5File {
    /// The string attribute `name` of `object` (`"/"` for the root group), such
    /// as Keras's `model_config`; nil if the object has no such attribute.
    ///
    /// Variable-length and fixed-length strings are read, ASCII or UTF-8 (bytes
    /// that are not UTF-8 become U+FFFD). A fixed-length string ends at its
    /// first NUL, and a space-padded one loses its trailing spaces. The
    /// attribute must hold one string (scalar, or a 1-D array of one); throws
    /// if it holds something else, or if `object` is absent.
    public func stringAttribute(_ name: String, of object: String) throws -> String? {
        try hdf5Lock.run {
            try readStrings(name, of: object, single: true)?.first
        }
    }

    /// The 1-D string array attribute `name` of `object`, such as Keras's
    /// `weight_names`; nil if the object has no such attribute.
    ///
    /// Strings are read as by `stringAttribute(_:of:)`; a scalar string gives
    /// one element. An empty attribute of any type gives `[]` (Keras writes
    /// `weight_names` of a layer without weights as an empty float array).
    public func stringArrayAttribute(_ name: String, of object: String) throws -> [String]? {
        try hdf5Lock.run {
            try readStrings(name, of: object, single: false)
        }
    }

    /// `stringArrayAttribute(name, of:)` of each of `objects`, in order, with
    /// the variable-length strings of all of them read in one child process
    /// instead of one each (Keras's `weight_names` of every layer). When that
    /// read fails, each is read alone again, so that the error names its object.
    public func stringArrayAttributes(_ name: String, of objects: [String]) throws -> [[String]?] {
        try hdf5Lock.run {
            var results = [[String]?](repeating: nil, count: objects.count)
            var pending: [(index: Int, strings: VariableStrings)] = []
            defer { for item in pending { item.strings.close() } }
            for (index, object) in objects.enumerated() {
                switch try openStrings(name, of: object, single: false) {
                case .read(let strings): results[index] = strings
                case .variable(let strings): pending.append((index, strings))
                }
            }
            guard !pending.isEmpty else { return results }
            let counts = pending.map(\.strings.count)
            let (product, overflow) = limits.maximumAttributeBytes.multipliedReportingOverflow(by: pending.count)
            let limit = overflow ? Int.max / 4 : min(product, Int.max / 4)
            if let records = try? readIsolated(pending.map(\.strings), limit: limit, object: "/", name: name) {
                var start = 0
                var withinLimits = true
                for (item, count) in zip(pending, counts) {
                    let strings = records[start..<start + count].map { $0 ?? "" }
                    withinLimits = withinLimits && strings.reduce(0, { $0 + $1.utf8.count }) <= limits.maximumAttributeBytes
                    results[item.index] = strings
                    start += count
                }
                // Over an attribute's limit: the reads one by one say which.
                if withinLimits { return results }
            }
            for item in pending {
                results[item.index] = try variableLengthStrings(item.strings, name, objects[item.index])
            }
            return results
        }
    }

    /// Whether `object` has an attribute `name`, without reading it; throws
    /// if `object` is absent.
    public func hasAttribute(_ name: String, of object: String) throws -> Bool {
        try hdf5Lock.run {
            let objectID = try openObject(object, as: nil)
            defer { H5Oclose(objectID) }
            return try attributeExists(name, objectID, object)
        }
    }

    // MARK: Internals, called with `hdf5Lock` held.

    /// Whether the open object `objectID` has an attribute `name`.
    func attributeExists(_ name: String, _ objectID: hid_t, _ object: String) throws -> Bool {
        let found = H5Aexists(objectID, name)
        guard found >= 0 else { throw failure(object, "cannot look up attribute \(name)") }
        return found > 0
    }

    /// An attribute's variable-length strings, still to be read: the open
    /// attribute, the string type to read them as, and how many.
    struct VariableStrings {
        let attribute: hid_t
        let memory: hid_t
        let count: Int

        func close() {
            H5Tclose(memory)
            H5Aclose(attribute)
        }
    }

    /// What `openStrings` found: the strings (nil if absent), or
    /// variable-length ones to read in a child process.
    enum OpenedStrings {
        case read([String]?)
        case variable(VariableStrings)
    }

    /// The strings of an attribute, nil if absent; `single` requires one string.
    func readStrings(_ name: String, of object: String, single: Bool) throws -> [String]? {
        switch try openStrings(name, of: object, single: single) {
        case .read(let strings):
            return strings
        case .variable(let strings):
            defer { strings.close() }
            return try variableLengthStrings(strings, name, object)
        }
    }

    /// Checks an attribute and reads it unless its strings are variable-length.
    func openStrings(_ name: String, of object: String, single: Bool) throws -> OpenedStrings {
        let objectID = try openObject(object, as: nil)
        defer { H5Oclose(objectID) }
        guard try attributeExists(name, objectID, object) else { return .read(nil) }
        let attribute = H5Aopen(objectID, name, hdf5_default_plist())
        guard attribute >= 0 else { throw failure(object, "cannot open attribute \(name)") }
        var keepsAttribute = false
        defer { if !keepsAttribute { H5Aclose(attribute) } }
        let space = H5Aget_space(attribute)
        guard space >= 0 else { throw failure(object, "cannot read the dataspace of attribute \(name)") }
        defer { H5Sclose(space) }
        let type = H5Aget_type(attribute)
        guard type >= 0 else { throw failure(object, "cannot read the datatype of attribute \(name)") }
        defer { H5Tclose(type) }

        let count = try stringCount(space, name, object, single: single)
        if count == 0 && !single { return .read([]) }
        let typeClass = H5Tget_class(type)
        guard typeClass == H5T_STRING else {
            throw error(object, "attribute \(name) holds \(className(typeClass)) values, not strings")
        }
        guard count <= limits.maximumAttributeBytes else {
            throw error(object, "attribute \(name) holds \(count) strings, more than the limit")
        }
        let variable = H5Tis_variable_str(type)
        guard variable >= 0 else { throw failure(object, "cannot read the datatype of attribute \(name)") }
        guard variable > 0 else { return .read(try fixedLengthStrings(attribute, type, count, name, object)) }
        let memory = H5Tcopy(hdf5_c_string())
        guard memory >= 0 else { throw failure(object, "cannot make a string type") }
        // The same character set as stored: HDF5 does not convert between them.
        guard H5Tset_size(memory, hdf5_variable_size()) >= 0, H5Tset_cset(memory, H5Tget_cset(type)) >= 0 else {
            H5Tclose(memory)
            throw failure(object, "cannot make a string type")
        }
        keepsAttribute = true
        return .variable(VariableStrings(attribute: attribute, memory: memory, count: count))
    }

    /// How many strings the attribute's dataspace holds: 1 for a scalar, the
    /// length of a 1-D array, 0 for a null dataspace.
    func stringCount(_ space: hid_t, _ name: String, _ object: String, single: Bool) throws -> Int {
        switch H5Sget_simple_extent_type(space) {
        case H5S_SCALAR: return 1
        case H5S_NULL: if single { break } else { return 0 }
        case H5S_SIMPLE:
            let rank = H5Sget_simple_extent_ndims(space)
            var dims = [hsize_t](repeating: 0, count: 1)
            if rank == 1, H5Sget_simple_extent_dims(space, &dims, nil) == 1, !single || dims[0] == 1 {
                return Int(clamping: dims[0])
            }
        default: throw failure(object, "cannot read the dataspace of attribute \(name)")
        }
        let points = H5Sget_simple_extent_npoints(space)
        let rank = H5Sget_simple_extent_ndims(space)
        throw error(object, "attribute \(name) holds \(points) values of rank \(rank), "
            + (single ? "not one string" : "not a list of strings"))
    }

    /// Reads variable-length strings in a child process (see isolated_read.h:
    /// libhdf5 1.10 crashes on some corrupted global heaps, where they live).
    func variableLengthStrings(_ strings: VariableStrings, _ name: String, _ object: String) throws -> [String] {
        // A null reference (not written by h5py) reads as "".
        try readIsolated([strings], limit: limits.maximumAttributeBytes, object: object, name: name).map { $0 ?? "" }
    }

    /// The strings of all of `attributes`, one after another, read in one
    /// child process; at most `limit` bytes of them.
    private func readIsolated(_ attributes: [VariableStrings], limit: Int, object: String, name: String) throws -> [String?] {
        let total = attributes.reduce(0) { $0 + $1.count }
        let result = hdf5_read_strings_batch_isolated(attributes.map(\.attribute), attributes.map(\.memory),
                                                      attributes.map(\.count), attributes.count, limit + 8 * total,
                                                      Int32(limits.attributeReadSeconds))
        return try isolatedRecords(result, count: total, limit: limit, object: object, what: "cannot read attribute \(name)",
                                   reading: "its strings", corrupt: "corrupt variable-length data")
    }

    /// The `count` records an isolated read sent (all it sent, when `count`
    /// is nil; nil for a record marked absent), or the error its status
    /// says; frees the result's data.
    func isolatedRecords(_ result: hdf5_isolated_result, count: Int?, limit: Int, object: String,
                         what prefix: String, reading: String, corrupt: String) throws -> [String?] {
        defer { free(result.data) }
        let bytes = UnsafeRawBufferPointer(start: result.data, count: result.size)
        switch result.status {
        case HDF5_ISOLATED_READ: break
        case HDF5_ISOLATED_HDF5_ERROR: throw error(object, "\(prefix): \(String(decoding: bytes, as: UTF8.self))")
        case HDF5_ISOLATED_CRASHED:
            throw error(object, "\(prefix): libhdf5 crashed reading \(reading) (signal \(result.code)): \(corrupt)")
        case HDF5_ISOLATED_FAILED:
            throw error(object, "\(prefix): the reading process failed (status \(result.code))")
        case HDF5_ISOLATED_TOO_LARGE: throw error(object, "\(prefix): it holds more than \(limit) bytes")
        case HDF5_ISOLATED_TIMED_OUT: throw error(object, "\(prefix): libhdf5 took over \(result.code) s")
        default: throw error(object, "\(prefix): cannot start a reading process (errno \(result.code))")
        }
        var records: [String?] = []
        var offset = 0
        var total = 0
        while count.map({ records.count < $0 }) ?? (offset < bytes.count) {
            guard offset + 8 <= bytes.count else { throw error(object, "\(prefix): incomplete data") }
            let length = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
            guard length != .max else {
                records.append(nil)
                continue
            }
            guard length <= UInt64(bytes.count - offset) else { throw error(object, "\(prefix): incomplete data") }
            total += Int(length)
            guard total <= limit else { throw error(object, "\(prefix): it holds more than \(limit) bytes") }
            records.append(String(decoding: bytes[offset..<offset + Int(length)], as: UTF8.self))
            offset += Int(length)
        }
        return records
    }

    /// Reads fixed-length strings: each ends at its first NUL, and space-padded
    /// ones lose their trailing spaces.
    func fixedLengthStrings(_ attribute: hid_t, _ type: hid_t, _ count: Int,
                            _ name: String, _ object: String) throws -> [String] {
        let size = H5Tget_size(type)
        let (total, overflow) = size.multipliedReportingOverflow(by: count)
        guard size > 0, !overflow, total <= limits.maximumAttributeBytes else {
            throw error(object, "attribute \(name) holds \(count) strings of \(size) bytes, more than the limit")
        }
        let memory = H5Tcopy(type)
        guard memory >= 0 else { throw failure(object, "cannot make a string type") }
        defer { H5Tclose(memory) }
        var bytes = [UInt8](repeating: 0, count: total)
        guard H5Aread(attribute, memory, &bytes) >= 0 else { throw failure(object, "cannot read attribute \(name)") }
        let spacePadded = H5Tget_strpad(type) == H5T_STR_SPACEPAD
        return (0..<count).map { index in
            var string = bytes[index * size..<(index + 1) * size].prefix { $0 != 0 }
            while spacePadded, string.last == UInt8(ascii: " ") { string = string.dropLast() }
            return String(decoding: string, as: UTF8.self)
        }
    }
}

import CHDF5

extension HDF5File {
    /// The dimensions of `dataset`, outermost first (`[]` for a scalar).
    /// Throws if it is absent, not a dataset, or of rank above the limit.
    public func shape(of dataset: String) throws -> [Int] {
        try hdf5Lock.run {
            let id = try openObject(dataset, as: .dataset)
            defer { H5Oclose(id) }
            return try dimensions(of: id, dataset)
        }
    }

    /// The elements of the numeric `dataset` in row-major order, converted by
    /// libhdf5 from the stored type (any integer or floating-point type, either
    /// byte order) to `Float`, with its shape.
    ///
    /// Refused before anything is allocated: more elements than
    /// `limits.maximumElements`; more bytes than the file could hold (its size,
    /// times `limits.maximumCompressionRatio` if compressed); chunks above
    /// `limits.maximumChunkBytes`; a filter this libhdf5 lacks; data kept in
    /// other files (external storage, virtual datasets); non-numeric types.
    public func readFloats(_ dataset: String) throws -> (shape: [Int], values: [Float]) {
        try hdf5Lock.run {
            let id = try openObject(dataset, as: .dataset)
            defer { H5Oclose(id) }
            let shape = try dimensions(of: id, dataset)
            let count = try elementCount(shape, dataset)
            let elementSize = try numericElementSize(id, dataset)
            let missingFilters = try checkStorage(id, dataset, rank: shape.count, count: count,
                                                  elementSize: elementSize)
            guard count > 0 else { return (shape, []) }
            var values = [Float](repeating: 0, count: count)
            let status = values.withUnsafeMutableBytes { buffer in
                H5Dread(id, hdf5_native_float(), hdf5_space_all(), hdf5_space_all(), hdf5_default_plist(),
                        buffer.baseAddress)
            }
            guard status >= 0 else {
                guard let filter = missingFilters.first else { throw failure(dataset, "cannot read the data") }
                _ = innermostHDF5Error()
                throw error(dataset, "cannot read the data: \(filter) is not in this HDF5 library "
                    + "(plugins are not loaded)")
            }
            return (shape, values)
        }
    }

    // MARK: Internals, called with `hdf5Lock` held.

    /// The dimensions of the open dataset `id`, checked against the rank limit.
    func dimensions(of id: hid_t, _ dataset: String) throws -> [Int] {
        let space = H5Dget_space(id)
        guard space >= 0 else { throw failure(dataset, "cannot read the dataspace") }
        defer { H5Sclose(space) }
        switch H5Sget_simple_extent_type(space) {
        case H5S_SCALAR: return []
        case H5S_SIMPLE: break
        case H5S_NULL: throw error(dataset, "has no data (null dataspace)")
        default: throw failure(dataset, "cannot read the dataspace")
        }
        let rank = Int(H5Sget_simple_extent_ndims(space))
        guard rank >= 0 else { throw failure(dataset, "cannot read the rank") }
        guard rank <= limits.maximumRank else {
            throw error(dataset, "rank \(rank) is above the limit of \(limits.maximumRank)")
        }
        var dims = [hsize_t](repeating: 0, count: rank)
        guard H5Sget_simple_extent_dims(space, &dims, nil) >= 0 else {
            throw failure(dataset, "cannot read the dimensions")
        }
        return dims.map { Int(clamping: $0) }
    }

    /// The number of elements in `shape`, at most `limits.maximumElements`.
    func elementCount(_ shape: [Int], _ dataset: String) throws -> Int {
        var count = 1
        for dimension in shape {
            let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
            guard !overflow, product <= limits.maximumElements else {
                throw error(dataset, "shape \(shape) has more elements than the limit of \(limits.maximumElements)")
            }
            count = product
        }
        return count
    }

    /// The size in bytes of the stored elements, which must be integers or
    /// floating-point numbers.
    func numericElementSize(_ id: hid_t, _ dataset: String) throws -> Int {
        let type = H5Dget_type(id)
        guard type >= 0 else { throw failure(dataset, "cannot read the datatype") }
        defer { H5Tclose(type) }
        let typeClass = H5Tget_class(type)
        guard typeClass == H5T_INTEGER || typeClass == H5T_FLOAT else {
            throw error(dataset, "holds \(className(typeClass)) values, not numbers")
        }
        let size = H5Tget_size(type)
        guard (1...16).contains(size) else { throw error(dataset, "has \(size)-byte numbers") }
        return size
    }

    /// Refuses data the file cannot hold, oversized chunks, missing filters and
    /// data stored outside the file. Returns the missing optional filters (as
    /// h5py marks lzf): chunks may have been stored without them.
    func checkStorage(_ id: hid_t, _ dataset: String, rank: Int, count: Int, elementSize: Int) throws -> [String] {
        let plist = H5Dget_create_plist(id)
        guard plist >= 0 else { throw failure(dataset, "cannot read the storage properties") }
        defer { H5Pclose(plist) }
        let layout = H5Pget_layout(plist)
        guard layout != H5D_VIRTUAL else {
            throw error(dataset, "is a virtual dataset (data in other files), which is not read")
        }
        guard H5Pget_external_count(plist) == 0 else {
            throw error(dataset, "keeps its data in external files, which are not read")
        }
        let filters = H5Pget_nfilters(plist)
        guard filters >= 0 else { throw failure(dataset, "cannot read the filters") }
        var missingOptional: [String] = []
        for index in 0..<UInt32(filters) {
            var flags: UInt32 = 0
            var parameterCount = 0
            var config: UInt32 = 0
            var name = [CChar](repeating: 0, count: 256)
            let filter = H5Pget_filter2(plist, index, &flags, &parameterCount, nil, name.count, &name, &config)
            guard filter >= 0 else { throw failure(dataset, "cannot read filter \(index)") }
            guard H5Zfilter_avail(filter) <= 0 else { continue }
            _ = innermostHDF5Error()
            let label = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let description = "filter \(filter)" + (label.isEmpty ? "" : " (\(label))")
            guard flags & UInt32(H5Z_FLAG_OPTIONAL) != 0 else {
                throw error(dataset, "is stored with \(description), which this HDF5 library does not have "
                    + "(plugins are not loaded)")
            }
            missingOptional.append(description)
        }
        let bytes = count * elementSize  // at most 2^31 * 16: no overflow
        let ratio = filters > 0 ? limits.maximumCompressionRatio : 1
        let (capacity, overflow) = fileSize.multipliedReportingOverflow(by: ratio)
        if !overflow, bytes > capacity {
            throw error(dataset, "declares \(count) elements (\(bytes) bytes), more than the "
                + "\(fileSize)-byte file can hold" + (filters > 0 ? " compressed \(ratio) to 1" : ""))
        }
        if layout == H5D_CHUNKED {
            var chunk = [hsize_t](repeating: 0, count: max(rank, 1))
            guard H5Pget_chunk(plist, Int32(rank), &chunk) == Int32(rank) else {
                throw failure(dataset, "cannot read the chunk dimensions")
            }
            let chunkBytes = chunk.prefix(rank).reduce(Double(elementSize)) { $0 * Double($1) }
            guard chunkBytes <= Double(limits.maximumChunkBytes) else {
                throw error(dataset, "has chunks of \(Array(chunk.prefix(rank))) elements, above the limit of "
                    + "\(limits.maximumChunkBytes) bytes")
            }
        }
        return missingOptional
    }

    /// A readable name for a datatype class.
    func className(_ typeClass: H5T_class_t) -> String {
        switch typeClass {
        case H5T_STRING: "string"
        case H5T_COMPOUND: "compound"
        case H5T_ENUM: "enum"
        case H5T_ARRAY: "array"
        case H5T_VLEN: "variable-length"
        case H5T_OPAQUE: "opaque"
        case H5T_REFERENCE: "reference"
        case H5T_BITFIELD: "bitfield"
        case H5T_TIME: "time"
        case H5T_INTEGER: "integer"
        case H5T_FLOAT: "floating-point"
        default: "unknown"
        }
    }
}

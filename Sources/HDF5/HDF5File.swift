import CHDF5
import FileIO
import Foundation

/// An HDF5 file opened read-only through libhdf5, for reading model weights:
/// group listings, numeric datasets as `Float`s and string attributes.
///
/// Files are treated as untrusted: HDF5 never loads filter plugins here,
/// external links, external raw-data files and virtual datasets are refused
/// (they would read other files), and a dataset's declared size is checked
/// against `HDF5Limits` and the file's size before anything is allocated.
/// Object paths are relative to the root group (`data/conv1/0`) or absolute
/// (`/data/conv1/0`). The file is closed when the object is released.
///
/// Every call into libhdf5 holds one process-wide lock, and the stored
/// properties never change after `init`, hence `@unchecked Sendable`.
public final class HDF5File: @unchecked Sendable {
    /// The path the file was opened with.
    public let path: String
    /// The limits datasets and attributes of this file are checked against.
    public let limits: HDF5Limits
    /// The size of the file in bytes.
    public let fileSize: Int
    let file: hid_t
    /// Link access property list used for every path lookup: no external links.
    let linkAccess: hid_t

    /// Whether `bytes` are an HDF5 file: its signature at 0, or after a
    /// user block at 512, 1024, 2048 (what libhdf5 itself looks for first).
    /// The one test of the format, for every reader that must tell it apart.
    public static func isHDF5(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let signature: [UInt8] = [0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A]
        return [0, 512, 1024, 2048].contains { offset in
            bytes.count >= offset + 8 && zip(bytes[offset..<offset + 8], signature).allSatisfy { $0 == $1 }
        }
    }


    /// Opens the HDF5 file at `path` read-only.
    ///
    /// Throws `HDF5Error` if the file does not exist, does not start with the
    /// HDF5 signature, or libhdf5 cannot open it (a truncated file, say).
    public init(path: String, limits: HDF5Limits = HDF5Limits()) throws {
        self.path = path
        self.limits = limits
        // libhdf5 opens the file by name: a FIFO would block it forever.
        do {
            try ReadableFile.check(path)
        } catch {
            throw HDF5Error(path: path, object: nil, message: error.message)
        }
        if let failure = hdf5Lock.loadFailure {
            throw HDF5Error(path: path, object: nil, message: failure)
        }
        (file, linkAccess, fileSize) = try hdf5Lock.run {
            let isHDF5 = FileSystem.withCString(path) { H5Fis_hdf5($0) }
            guard isHDF5 >= 0 else {
                throw HDF5Error(path: path, object: nil, message: "cannot read: \(innermostHDF5Error())")
            }
            guard isHDF5 > 0 else {
                throw HDF5Error(path: path, object: nil, message: "not an HDF5 file (no HDF5 signature)")
            }
            let access = hdf5_file_access()
            guard access >= 0 else {
                throw HDF5Error(path: path, object: nil, message: "cannot set up file access: \(innermostHDF5Error())")
            }
            defer { H5Pclose(access) }
            let file = FileSystem.withCString(path) { H5Fopen($0, hdf5_access_read_only(), access) }
            guard file >= 0 else {
                throw HDF5Error(path: path, object: nil, message: "cannot open HDF5 file: \(innermostHDF5Error())")
            }
            var size: hsize_t = 0
            let linkAccess = hdf5_link_access_without_external()
            guard linkAccess >= 0, H5Fget_filesize(file, &size) >= 0 else {
                let message = innermostHDF5Error()
                if linkAccess >= 0 { H5Pclose(linkAccess) }
                H5Fclose(file)
                throw HDF5Error(path: path, object: nil, message: "cannot open HDF5 file: \(message)")
            }
            return (file, linkAccess, Int(clamping: size))
        }
    }

    deinit {
        hdf5Lock.run {
            H5Pclose(linkAccess)
            H5Fclose(file)
        }
    }

    /// The names of the links in `group` (`"/"` for the root group), sorted by
    /// their UTF-8 bytes. Throws if `group` is absent or not a group.
    public func children(of group: String) throws -> [String] {
        try children(ofEach: [group])[0]
    }

    /// `children(of:)` of each of `groups`, in order, all listed in one
    /// child process instead of one each (Caffe's layer groups). When that
    /// listing fails, each group is listed alone again, so that the error
    /// names its group.
    public func children(ofEach groups: [String]) throws -> [[String]] {
        try hdf5Lock.run {
            var ids: [hid_t] = []
            defer { for id in ids { H5Oclose(id) } }
            for group in groups { ids.append(try openObject(group, as: .group)) }
            let sorted = { (names: [String]) in names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
            if ids.count > 1, let lists = try? isolatedLinkNames(ids, groups.joined(separator: ", ")) {
                return lists.map(sorted)
            }
            return try zip(ids, groups).map { id, group in sorted(try isolatedLinkNames([id], group)[0]) }
        }
    }

    /// What `path` names: `.group`, `.dataset` or `.datatype`; nil if there is
    /// no such link (or any group on the way is missing). Throws for a link
    /// that cannot or must not be followed (dangling, external, user-defined).
    public func kind(of path: String) throws -> HDF5ObjectKind? {
        try hdf5Lock.run {
            guard try exists(path) else { return nil }
            let id = try openObject(path, as: nil)
            defer { H5Oclose(id) }
            return kindOf(id)
        }
    }

    // MARK: Internals, called with `hdf5Lock` held.

    /// The names of a group's links, listed (with the group's link count)
    /// in a child process: libhdf5 1.10.8 frees garbage on some corrupt dense
    /// groups and reads through a null pointer counting the links of some
    /// corrupt symbol-table ones (see isolated_read.h).
    /// Each group's names are at most `maximumAttributeBytes` long in all.
    private func isolatedLinkNames(_ ids: [hid_t], _ group: String) throws -> [[String]] {
        let limit = limits.maximumAttributeBytes
        let (groupBytes, o1) = (limit + 8 * limits.maximumLinks + 32).multipliedReportingOverflow(by: ids.count)
        let result = hdf5_link_names_isolated(ids, ids.count, linkAccess, UInt64(limits.maximumLinks),
                                              o1 ? Int.max / 4 : min(groupBytes, Int.max / 4), Int32(limits.attributeReadSeconds))
        let (totalLimit, o2) = limit.multipliedReportingOverflow(by: ids.count)
        var records = try isolatedRecords(result, count: nil, limit: o2 ? Int.max / 4 : totalLimit, object: group,
                                          what: "cannot list the group", reading: "its links", corrupt: "corrupt link storage")[...]
        var lists: [[String]] = []
        for _ in ids {
            guard let first = records.popFirst(), let count = first.flatMap({ Int($0) }), count <= records.count else {
                throw error(group, "cannot list the group: incomplete data")
            }
            let names = try records.prefix(count).enumerated().map { index, name in
                guard let name else { throw failure(group, "cannot read link \(index)") }
                return name
            }
            guard names.reduce(0, { $0 + $1.utf8.count }) <= limit else {
                throw error(group, "cannot list the group: it holds more than \(limit) bytes")
            }
            lists.append(names)
            records = records.dropFirst(count)
        }
        guard records.isEmpty else { throw error(group, "cannot list the group: incomplete data") }
        return lists
    }

    /// An error about `object` (nil: the file).
    func error(_ object: String?, _ message: String) -> HDF5Error {
        HDF5Error(path: path, object: object, message: message)
    }

    /// An error about `object` after a failed libhdf5 call: `what` failed,
    /// followed by HDF5's own most specific message when it left one.
    func failure(_ object: String?, _ what: String) -> HDF5Error {
        let detail = innermostHDF5Error()
        return error(object, detail.isEmpty ? what : "\(what): \(detail)")
    }

    /// Whether every link along `path` exists, with groups before the last one
    /// (the root always exists); throws at an external or user-defined link. H5Lexists fails rather than answer for a
    /// path whose intermediate link is missing or names a dataset.
    func exists(_ path: String) throws -> Bool {
        let components = path.split(separator: "/")
        var prefix = ""
        for (index, component) in components.enumerated() {
            prefix += "/" + component
            let found = H5Lexists(file, prefix, linkAccess)
            guard found >= 0 else { throw failure(path, "cannot look up \(prefix)") }
            if found == 0 { return false }
            let type = hdf5_link_type(file, prefix, linkAccess)
            guard type >= 0 else { throw failure(path, "cannot look up \(prefix)") }
            guard type == H5L_TYPE_HARD.rawValue || type == H5L_TYPE_SOFT.rawValue else {
                throw error(path, "\(prefix) is "
                    + (type == H5L_TYPE_EXTERNAL.rawValue ? "an external link (to another file)" : "a user-defined link")
                    + ", which is not followed")
            }
            if index < components.count - 1 {
                let id = H5Oopen(file, prefix, linkAccess)
                guard id >= 0 else { throw failure(path, "cannot open \(prefix)") }
                defer { H5Oclose(id) }
                if kindOf(id) != .group { return false }
            }
        }
        return true
    }

    /// Opens the object at `path`, which must be of kind `expected` unless that
    /// is nil; close the result with `H5Oclose`.
    func openObject(_ path: String, as expected: HDF5ObjectKind?) throws -> hid_t {
        guard try exists(path) else {
            throw error(path, "no such \(expected?.rawValue ?? "object")")
        }
        let id = H5Oopen(file, path.isEmpty ? "/" : path, linkAccess)
        guard id >= 0 else { throw failure(path, "cannot open the object") }
        if let expected {
            let actual = kindOf(id)
            if actual != expected {
                H5Oclose(id)
                let name = actual.map { "a \($0.rawValue)" } ?? "an unknown object"
                throw error(path, "is \(name), not a \(expected.rawValue)")
            }
        }
        return id
    }

    /// The kind of an open object.
    func kindOf(_ id: hid_t) -> HDF5ObjectKind? {
        switch H5Iget_type(id) {
        case H5I_GROUP: .group
        case H5I_DATASET: .dataset
        case H5I_DATATYPE: .datatype
        default: nil
        }
    }
}

import Naming
import FileIO
import ModelFormat
import CaffeSchema
import Protobuf

/// One learned blob: its shape and values.
struct Blob {
    var shape: [Int]
    /// The values, or (HDF5 weights) only their count until `loaded()`.
    var values: Weights
    /// Reads values left in the file; called by `loaded()` only.
    var load: (() throws -> Weights)? = nil

    var count: Int { values.count }

    /// The values, read now when they were left in the file: a layer asks
    /// for them only once the blob's shape matched it, so a blob declared
    /// far larger than the deploy layer needs is never read.
    func loaded() throws -> Weights { try load?() ?? values }
}

/// Learned blobs by layer name, from a `.caffemodel` (either format; a
/// training snapshot may hold data, loss and accuracy layers that the deploy
/// file does not, and lack deploy-only ones: layers are matched by name).
struct CaffeWeights {
    /// By the layer name's bytes: Caffe matches names byte for byte (Swift
    /// strings compare up to Unicode equivalence). A name that is not UTF-8
    /// can match no deploy layer (those are checked to be UTF-8): skipped.
    var blobs: [[UInt8]: [Blob]]
    let source: String

    /// Reads a binary caffemodel; float payloads stay in the mapped file.
    static func read(caffemodel path: String) throws -> CaffeWeights {
        let file = try MappedFile(path: path)
        // Shapes and value counts first, payloads skipped: a blob whose
        // count does not fit its shape is refused before any value is
        // copied (unaligned payloads are; a hole of gigabytes would be).
        _ = try blobTable(file, path: path, structureOnly: true)
        return try blobTable(file, path: path, structureOnly: false)
    }

    private static func blobTable(_ file: MappedFile, path: String, structureOnly: Bool) throws -> CaffeWeights {
        let decoded: Decoded<NetParameter>
        do {
            decoded = try BinaryDecoder.decode(NetParameter.self, descriptor: proto_caffe_net_descriptor(),
                                               bytes: file.bytes, owner: file, options: DecodeOptions(structureOnly: structureOnly))
        } catch {
            throw CaffeError("\(path): \(String(mentioning: error))")
        }
        let net = decoded.root.pointee
        var table: [[UInt8]: [Blob]] = [:]
        for case let layer? in CArrays.buffer(net.layer, net.n_layer) {
            guard let name = layer.pointee.name.flatMap({ String(validatingCString: $0) }) else { continue }
            table[Array(name.utf8)] = try blobs(CArrays.buffer(layer.pointee.blobs, layer.pointee.n_blobs), owner: decoded, layer: name, path: path)
        }
        for case let layer? in CArrays.buffer(net.layers, net.n_layers) {
            guard let name = layer.pointee.name.flatMap({ String(validatingCString: $0) }) else { continue }
            table[Array(name.utf8)] = try blobs(CArrays.buffer(layer.pointee.blobs, layer.pointee.n_blobs), owner: decoded, layer: name, path: path)
        }
        guard !table.isEmpty else { throw CaffeError("\(path): the caffemodel holds no layers") }
        return CaffeWeights(blobs: table, source: path)
    }

    static func blobs(_ protos: UnsafeBufferPointer<UnsafeMutablePointer<BlobProto>?>, owner: Decoded<NetParameter>,
                      layer: String, path: String) throws -> [Blob] {
        try protos.enumerated().map { index, proto in
            guard let proto else { throw CaffeError("\(path): layer '\(layer)' blob \(index) is empty") }
            return try blob(proto, owner: owner, what: "\(path): layer '\(layer)' blob \(index)")
        }
    }

    /// A blob's shape (BlobShape, or the legacy num/channels/height/width)
    /// and values (float, or double converted; unloaded when the file was
    /// read structure-only), checked against each other.
    static func blob(_ proto: UnsafeMutablePointer<BlobProto>, owner: AnyObject & Sendable, what: String) throws -> Blob {
        let p = proto.pointee
        var shape: [Int]
        if let blobShape = p.shape {
            shape = CArrays.array(blobShape.pointee.dim, blobShape.pointee.n_dim).map { Int($0) }
        } else {
            shape = [p.num, p.channels, p.height, p.width].map { Int($0) }
            while shape.count > 1 && shape.first == 1 { shape.removeFirst() }  // legacy shapes pad with leading 1s
        }
        guard shape.allSatisfy({ $0 >= 0 && $0 <= 1 << 31 }) else { throw CaffeError("\(what): shape \(shape) is invalid") }
        let values: Weights
        if p.n_data > 0 {
            values = p.data.map { Weights(borrowing: UnsafeBufferPointer(start: $0, count: p.n_data), owner: owner) }
                ?? Weights(unloadedCount: p.n_data)
        } else if p.n_double_data > 0 {
            values = p.double_data.map { Weights(UnsafeBufferPointer(start: $0, count: p.n_double_data).map { Float($0) }) }
                ?? Weights(unloadedCount: p.n_double_data)
        } else {
            values = Weights([])
        }
        let expected = shape.checkedProduct
        guard expected == values.count else {
            throw CaffeError("\(what): shape \(shape) needs \(expected.map(String.init) ?? "too many") values, the blob holds \(values.count)")
        }
        return Blob(shape: shape, values: values)
    }
}


import HDF5

extension CaffeWeights {
    /// Reads Caffe's HDF5 snapshot format: blob i of a layer is the dataset
    /// `data/<layer>/<i>`, in the blob's shape. Only the shapes are read
    /// here; a blob's values are read when its layer asks for them, after
    /// the shape was checked against the deploy layer (a dataset declared
    /// 2 GB over a sparse file's hole was read whole, 4.2 GB, before the
    /// deploy file's shape refused it), and never for a layer the deploy
    /// file lacks.
    static func read(hdf5 path: String) throws -> CaffeWeights {
        let file = try HDF5File(path: path)
        var table: [[UInt8]: [Blob]] = [:]
        for (layer, indices) in try blobIndices(file, path) {
            table[Array(layer.utf8)] = try indices.map { index in
                let dataset = "data/\(layer)/\(index)"
                let shape = try file.shape(of: dataset)
                guard let count = shape.checkedProduct else { throw CaffeError("\(path): \(dataset) has the shape \(shape), too large") }
                return Blob(shape: shape, values: Weights(unloadedCount: count), load: {
                    let (stored, values) = try file.readFloats(dataset)
                    guard stored == shape else { throw CaffeError("\(path): \(dataset) changed shape while being read") }
                    return Weights(values)
                })
            }
        }
        return CaffeWeights(blobs: table, source: path)
    }

    /// Each layer group of `data` with its blob numbers 0..<n, all listed
    /// before any value is read, in one child process (HDF5File lists groups
    /// in a child; a fork costs more the more memory the parent holds).
    static func blobIndices(_ file: HDF5File, _ path: String) throws -> [(layer: String, indices: [Int])] {
        let layers = try file.children(of: "data")
        let lists = try file.children(ofEach: layers.map { "data/\($0)" })
        return try zip(layers, lists).map { layer, names in
            let indices = names.compactMap(Int.init).sorted()
            guard indices == Array(0..<indices.count) else {
                throw CaffeError("\(path): data/\(layer) holds blobs \(indices), expected 0..<\(indices.count)")
            }
            return (layer, indices)
        }
    }
}

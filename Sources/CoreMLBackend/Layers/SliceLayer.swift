import ModelFormat
import CoreMLSchema
import Protobuf

/// Along one of a map's C, H, W (axis -3, -2 or -1 alone), the classic
/// slice layer of specification 1 (Core ML slices those axes of a
/// [1, C, H, W] tensor with it too); over every axis in order,
/// sliceStatic of specification 4, written with explicit bounds (no masks,
/// no squeezed axes). Both are read back as the slice they are.
/// `SpecificationVersion.checkWritable` refuses other slices, and a
/// classic one of anything but a map.
extension Slice: LayerCoding {
    static var layerCases: [LayerCase] {
        [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SLICE, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SLICE_STATIC]
    }
    /// SliceLayerParams' SliceAxis in the order of its numbers (CHANNEL_AXIS
    /// = 0, HEIGHT_AXIS, WIDTH_AXIS): one table for writing and reading.
    static let classicAxes: [Axis] = [.channel, .height, .width]

    var specificationVersion: Int32 { mapAxis == nil ? 4 : 1 }
    var layerTypeName: String { mapAxis == nil ? "sliceND" : "slice" }
    // Along a map's axis, counted from the end: the same on a map written with a batch axis.
    var keepsShape: Bool { mapAxis != nil }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        if let axis = mapAxis {
            builder.set(layer, Self.layerCases[0], \.slice, core_ml__specification__slice_layer_params__init) { p in
                p.startindex = Int64(begin[0])
                p.endindex = Int64(end[0])
                p.stride = UInt64(strides[0])
                p.axis = .init(UInt32(Self.classicAxes.firstIndex(of: axis)!))
            }
            return
        }
        builder.set(layer, Self.layerCases[1], \.slicestatic, core_ml__specification__slice_static_layer_params__init) { p in
            (p.n_beginids, p.beginids) = builder.int64s(begin)
            (p.n_endids, p.endids) = builder.int64s(end)
            (p.n_strides, p.strides) = builder.int64s(strides)
            let none = Array(repeating: false, count: begin.count)
            (p.n_beginmasks, p.beginmasks) = builder.bools(none)
            (p.n_endmasks, p.endmasks) = builder.bools(none)
            (p.n_squeezemasks, p.squeezemasks) = builder.bools(none)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        if layer.layer_case == layerCases[0] {
            let params = layer.slice!
            let p = params.pointee
            let axis = try reader.enumCase(classicAxes, p.axis.rawValue, "slice axis", of: name, at: params)
            let bounds = try reader.integers([p.startindex, p.endindex], "slice start and end", name)
            return .slice(Slice(axis: axis, start: bounds[0], end: bounds[1], stride: p.stride == 0 ? 1 : try reader.count(p.stride, "stride", name)))
        }
        let params = layer.slicestatic!
        let p = params.pointee
        let masks = CArrays.array(p.beginmasks, p.n_beginmasks) + CArrays.array(p.endmasks, p.n_endmasks)
            + CArrays.array(p.squeezemasks, p.n_squeezemasks)
        guard masks.allSatisfy({ $0 == 0 }) else {
            throw reader.fail("layer '\(name)': slices with begin, end or squeeze masks are not supported", at: params)
        }
        return .slice(Slice(begin: try reader.integers(p.beginids, p.n_beginids, "beginIds", name),
                            end: try reader.integers(p.endids, p.n_endids, "endIds", name),
                            strides: try reader.integers(p.strides, p.n_strides, "strides", name)))
    }
}

extension SpecificationVersion {
    /// Refuses a slice Core ML has no layer for as the IR states it: the
    /// classic layer slices one of C, H, W of a [C, H, W] map (in a model of
    /// maps) or a [1, C, H, W] tensor; sliceStatic lists every axis of its
    /// input (`Slice.axes` nil).
    /// - Throws: `ModelError` naming the layer.
    static func checkSlice(_ slice: Slice, _ node: Node, input: TensorShape?, tensorModel: Bool) throws(ModelError) {
        guard let input else { return }
        let batchedMap = input.rank == 4 && input.dimensions[0] == 1
        if let axis = slice.mapAxis {
            guard batchedMap || (input.rank == 3 && !tensorModel) else {
                throw ModelError(node: node.name, "Core ML's slice layer takes the \(axis) axis of a [C, H, W] map or [1, C, H, W] tensor, "
                                 + "not of \(input)")
            }
        } else if let axes = slice.axes {
            throw ModelError(node: node.name, "Core ML's sliceStatic lists every axis of its input: a slice of axes \(axes) of \(input) "
                             + "is not written yet")
        }
    }
}

import Conversion
import ModelFormat

/// A `[region]` section (YOLOv2): its anchors and classes, decoded as
/// layers by `YOLORegion`.
struct DarknetRegion {
    let decoding: YOLORegion
    var classes: Int { decoding.classes }

    init(_ section: DarknetConfig.Section) throws {
        let values: [Float] = try section.list("anchors")
        let classes = try section.int("classes")
        let count = try section.int("num", values.count / 2)
        guard classes > 0, count > 0, values.count == 2 * count, values.allSatisfy(YOLORegion.isAnchorSize) else {
            throw section.error("needs classes > 0 and num pairs of anchors above 0 and at most \(ShapeInference.maximumSize) "
                                + "(anchors=\(section.string("anchors", "")), num=\(count))")
        }
        guard try section.int("coords", 4) == 4 else { throw section.error("coords=\(section.string("coords", "")) is not converted (4 is)") }
        // Darknet's parse_region: softmax defaults to 0, and then the class scores stay raw (no softmax).
        guard try section.int("softmax", 0) == 1 else {
            throw section.error("softmax=\(section.string("softmax", "0 (the default, the key being absent)")) is not converted: "
                                + "the decoding takes softmax=1 (class probabilities by softmax)")
        }
        decoding = YOLORegion(anchors: stride(from: 0, to: values.count, by: 2).map { (values[$0], values[$0 + 1]) }, classes: classes)
    }

    /// Appends the decoding of `grid` to `walk`'s nodes.
    /// - Throws: `DarknetError` when the grid's channels are not A * (5 + C).
    func decode(_ grid: String, _ walk: inout DarknetWalk, section: DarknetConfig.Section) throws {
        do {
            for node in try decoding.nodes(grid: grid, shape: walk.shapes[grid]!) { _ = try walk.emit(node) }
        } catch let error as ModelError {
            throw section.error(error.message)
        }
    }
}

/// A `[yolo]` section (YOLOv3, YOLOv4): the anchors its `mask` picks, in
/// pixels of the network's input, decoded as layers by `YOLORegion` with a
/// `YOLOHead`.
typealias YOLOHeadLayer = (section: DarknetConfig.Section, index: Int, grid: String)

extension DarknetWalk {
    /// The model's outputs for the network's `[yolo]` layers: their grids
    /// (`RegionOutput.grid`), or their decoding into one pair of outputs,
    /// the heads' rows in the order of the layers.
    mutating func yolo(_ net: DarknetConfig.Section, heads: [YOLOHeadLayer]) throws -> [String] {
        regionType = "yolo"
        guard region != .grid else {
            var grids: [String] = []
            for head in heads where !grids.contains(head.grid) { grids.append(head.grid) }
            return grids
        }
        let input = Size2(try net.int("height"), try net.int("width"))
        var decoded: [(decoding: YOLORegion, grid: String, shape: TensorShape)] = []
        for head in heads {
            let section = head.section
            let values: [Float] = try section.list("anchors")
            let classes = try section.int("classes", 20)
            let count = try section.int("num", 1)
            let mask: [Int] = section.options["mask"] == nil ? Array(0..<count) : try section.list("mask")
            guard classes > 0, count > 0, values.count == 2 * count, values.allSatisfy(YOLORegion.isAnchorSize) else {
                throw section.error("needs classes > 0 and num pairs of anchors above 0 and at most \(ShapeInference.maximumSize) "
                                    + "(anchors=\(section.string("anchors", "")), num=\(count))")
            }
            guard !mask.isEmpty, mask.allSatisfy({ (0..<count).contains($0) }) else {
                throw section.error("mask=\(section.string("mask", "")) does not pick among the num=\(count) anchors")
            }
            guard let scale = Float(section.string("scale_x_y", "1")), scale.isFinite, scale >= 1, scale <= 16 else {
                throw section.error("scale_x_y=\(section.string("scale_x_y", "")) is not a number from 1 to 16")
            }
            let newCoords = try section.int("new_coords", 0)
            guard newCoords <= 1 else { throw section.error("new_coords=\(newCoords) is not converted (0 and 1 are)") }
            let shape = shapes[head.grid]!
            guard shape.dimensions.count == 3, shape.channels == mask.count * (5 + classes) else {
                throw section.error("reads \(shape.dimensions) and expects \(mask.count) anchors x (5 + \(classes) classes) = \(mask.count * (5 + classes)) channels")
            }
            let anchors = mask.map { (values[2 * $0], values[2 * $0 + 1]) }
            let style = YOLOHead(scaleXY: scale, newCoords: newCoords == 1, input: input)
            decoded.append((YOLORegion(anchors: anchors, classes: classes, yolo: style, prefix: "yolo_\(head.index)_"), head.grid, shape))
        }
        do {
            for node in try YOLORegion.nodes(heads: decoded) { _ = try emit(node) }
        } catch let error as ModelError {
            throw heads[heads.count - 1].section.error(error.message)
        }
        regionClasses = decoded[0].decoding.classes
        return [YOLORegion.confidenceName, YOLORegion.coordinatesName]
    }
}

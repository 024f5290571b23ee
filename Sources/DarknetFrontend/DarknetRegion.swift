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

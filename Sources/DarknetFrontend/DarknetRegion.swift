import ModelFormat

/// YOLOv2's `[region]` decoding as layers, for the raw grid
/// [A * (5 + C), H, W] (A anchors, C classes): per anchor a and cell
/// (y, x), with t the anchor's five channels,
///
///     box        = ((sigmoid(tx) + x) / W, (sigmoid(ty) + y) / H,
///                   exp(tw) * anchor_w / W, exp(th) * anchor_h / H)
///     confidence = softmax(class channels) * sigmoid(to)
///
/// The outputs `raw_coordinates` [1, N, 4] and `raw_confidence` [1, N, C]
/// hold one row per cell and anchor (N = H * W * A; cells row-major, then
/// anchors, as OpenCV orders them): box centre and size in fractions of
/// the image, as Core ML's non-maximum suppression and Vision take them.
struct DarknetRegion {
    static let confidenceName = "raw_confidence"
    static let coordinatesName = "raw_coordinates"
    var anchors: [(width: Float, height: Float)]
    var classes: Int

    init(_ section: DarknetConfig.Section) throws {
        let values: [Float] = try section.list("anchors")
        classes = try section.int("classes")
        let count = try section.int("num", values.count / 2)
        guard classes > 0, count > 0, values.count == 2 * count, values.allSatisfy({ $0.isFinite && $0 > 0 }) else {
            throw section.error("needs classes > 0 and num pairs of positive anchors (anchors=\(section.string("anchors", "")), num=\(count))")
        }
        guard try section.int("coords", 4) == 4, try section.int("softmax", 1) == 1 else {
            throw section.error("coords other than 4, or softmax=0, are not converted")
        }
        anchors = stride(from: 0, to: values.count, by: 2).map { (values[$0], values[$0 + 1]) }
    }

    /// Appends the decoding of `grid` to `walk`'s nodes.
    /// - Throws: `DarknetError` when the grid's channels are not A * (5 + C).
    func decode(_ grid: String, _ walk: inout DarknetWalk, section: DarknetConfig.Section) throws {
        let shape = walk.shapes[grid]!
        let (height, width, per) = (shape.height, shape.width, 5 + classes)
        guard shape.channels == anchors.count * per else {
            throw section.error("expects \(anchors.count) x (5 + \(classes)) = \(anchors.count * per) channels, and its input has \(shape.channels)")
        }
        let gridX = try walk.emit(Node(name: "region_grid_x", operation: .constant(shape: [1, height, width], data: Weights(
            (0..<height * width).map { Float($0 % width) })), inputs: [], outputs: ["region_grid_x"]))
        let gridY = try walk.emit(Node(name: "region_grid_y", operation: .constant(shape: [1, height, width], data: Weights(
            (0..<height * width).map { Float($0 / width) })), inputs: [], outputs: ["region_grid_y"]))
        var boxes: [String] = [], scores: [String] = []
        for (a, anchor) in anchors.enumerated() {
            let first = a * per
            func channel(_ k: Int, _ name: String) throws -> String {
                try walk.emit(Node("region_\(a)_\(name)", .slice(Slice(axis: .channel, start: first + k, end: first + k + 1)), input: grid))
            }
            func then(_ input: String, _ name: String, _ operation: Op) throws -> String {
                try walk.emit(Node("region_\(a)_\(name)", operation, input: input))
            }
            func centre(_ k: Int, _ name: String, _ offset: String, _ size: Int) throws -> String {
                let shifted = try walk.emit(Node(name: "region_\(a)_\(name)_cell", operation: .add(constant: 0),
                                                 inputs: [try then(try channel(k, name), "\(name)_sigmoid", .activation(.sigmoid)), offset],
                                                 outputs: ["region_\(a)_\(name)_cell"]))
                return try then(shifted, "\(name)_scaled", .activation(.linear(alpha: 1 / Float(size), beta: 0)))
            }
            func extent(_ k: Int, _ name: String, _ prior: Float, _ size: Int) throws -> String {
                let grown = try then(try channel(k, name), "\(name)_exp", .unary(Unary(kind: .exp)))
                return try then(grown, "\(name)_scaled", .activation(.linear(alpha: prior / Float(size), beta: 0)))
            }
            let box = [try centre(0, "x", gridX, width), try centre(1, "y", gridY, height),
                       try extent(2, "w", anchor.width, width), try extent(3, "h", anchor.height, height)]
            boxes.append(try walk.emit(Node(name: "region_\(a)_box", operation: .concat, inputs: box, outputs: ["region_\(a)_box"])))
            let objectness = try then(try channel(4, "objectness"), "objectness_sigmoid", .activation(.sigmoid))
            let probabilities = try then(try walk.emit(Node("region_\(a)_classes", .slice(Slice(axis: .channel, start: first + 5, end: first + per)),
                                                             input: grid)), "softmax", .softmax)
            scores.append(try walk.emit(Node(name: "region_\(a)_confidence", operation: .multiply(constant: 1),
                                             inputs: [probabilities, objectness], outputs: ["region_\(a)_confidence"])))
        }
        try rows(boxes, columns: 4, name: Self.coordinatesName, height: height, width: width, &walk)
        try rows(scores, columns: classes, name: Self.confidenceName, height: height, width: width, &walk)
    }

    /// The anchors' [columns, H, W] maps as rows [1, H * W * A, columns]:
    /// stacked along channels ([A * columns, H, W]), moved to
    /// [H, W, A * columns], read as rows.
    private func rows(_ maps: [String], columns: Int, name: String, height: Int, width: Int, _ walk: inout DarknetWalk) throws {
        let stacked = maps.count == 1 ? maps[0]
            : try walk.emit(Node(name: "\(name)_stacked", operation: .concat, inputs: maps, outputs: ["\(name)_stacked"]))
        let moved = try walk.emit(Node("\(name)_by_cell", .permute(axes: [0, 2, 3, 1]), input: stacked))
        _ = try walk.emit(Node(name, .reshape(targetShape: [1, height * width * maps.count, columns], order: .channelFirst), input: moved))
    }
}

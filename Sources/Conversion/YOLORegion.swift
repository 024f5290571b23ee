import ModelFormat

/// YOLOv2's region decoding as layers, for the raw grid [A * (5 + C), H, W]
/// (A anchors, C classes): per anchor a and cell (y, x), with t the
/// anchor's five channels,
///
///     box        = ((sigmoid(tx) + x) / W, (sigmoid(ty) + y) / H,
///                   exp(tw) * anchor_w / W, exp(th) * anchor_h / H)
///     confidence = softmax(class channels) * sigmoid(to)
///
/// The outputs `raw_coordinates` [1, N, 4] and `raw_confidence` [1, N, C]
/// hold one row per cell and anchor (N = H * W * A; cells row-major, then
/// anchors, as OpenCV orders them): box centre and size in fractions of
/// the image, as Core ML's non-maximum suppression and Vision take them.
/// Darknet's `[region]` (`DarknetRegion`) and a graph's YOLOv2 output
/// (`--yolo-anchors`) both decode through it.
public struct YOLORegion: Sendable {
    public static let confidenceName = "raw_confidence"
    public static let coordinatesName = "raw_coordinates"
    /// Width and height of each anchor, in grid cells.
    public var anchors: [(width: Float, height: Float)]
    public var classes: Int

    public init(anchors: [(width: Float, height: Float)], classes: Int) {
        self.anchors = anchors
        self.classes = classes
    }

    /// Anchors from a flat list of width, height pairs (as Darknet's cfg
    /// and `--yolo-anchors` write them), with C found from the grid's
    /// channels when `classes` is nil.
    /// - Throws: `ModelError` when the values are not positive pairs or the
    ///   channels are not A * (5 + C).
    public init(anchorValues values: [Float], classes: Int?, gridChannels: Int) throws(ModelError) {
        guard !values.isEmpty, values.count % 2 == 0, values.allSatisfy(Self.isAnchorSize) else {
            throw ModelError("anchors must be pairs of widths and heights above 0 and at most \(ShapeInference.maximumSize) grid cells, not \(values)")
        }
        let count = values.count / 2
        let classes = classes ?? (gridChannels % count == 0 ? gridChannels / count - 5 : 0)
        guard classes > 0, gridChannels == count * (5 + classes) else {
            throw ModelError("the grid's \(gridChannels) channels are not \(count) anchors x (5 + classes)")
        }
        self.init(anchors: stride(from: 0, to: values.count, by: 2).map { (values[$0], values[$0 + 1]) }, classes: classes)
    }

    /// An anchor's width or height: above 0, at most ShapeInference's bound
    /// on a dimension (in grid cells; a larger one is no real anchor).
    public static func isAnchorSize(_ value: Float) -> Bool { value > 0 && value <= Float(ShapeInference.maximumSize) }

    /// The decoding's nodes for `grid` of `shape`.
    /// - Throws: `ModelError` when the channels are not A * (5 + C).
    public func nodes(grid: String, shape: TensorShape) throws(ModelError) -> [Node] {
        let (height, width, per) = (shape.height, shape.width, 5 + classes)
        guard shape.dimensions.count == 3, shape.channels == anchors.count * per else {
            throw ModelError("expects \(anchors.count) x (5 + \(classes)) = \(anchors.count * per) channels, and its input is \(shape.dimensions)")
        }
        var nodes: [Node] = []
        func emit(_ name: String, _ operation: Op, _ inputs: String...) -> String {
            nodes.append(Node(name: name, operation: operation, inputs: inputs, outputs: [name]))
            return name
        }
        let gridX = emit("region_grid_x", .constant(shape: [1, height, width], data: Weights((0..<height * width).map { Float($0 % width) })))
        let gridY = emit("region_grid_y", .constant(shape: [1, height, width], data: Weights((0..<height * width).map { Float($0 / width) })))
        var boxes: [String] = [], scores: [String] = []
        for (a, anchor) in anchors.enumerated() {
            let first = a * per, prefix = "region_\(a)_"
            func channel(_ k: Int, _ name: String) -> String {
                emit(prefix + name, .slice(Slice(axis: .channel, start: first + k, end: first + k + 1)), grid)
            }
            func centre(_ k: Int, _ name: String, _ offset: String, _ size: Int) -> String {
                let squashed = emit(prefix + "\(name)_sigmoid", .activation(.sigmoid), channel(k, name))
                let shifted = emit(prefix + "\(name)_cell", .add(constant: 0), squashed, offset)
                return emit(prefix + "\(name)_scaled", .activation(.linear(alpha: 1 / Float(size), beta: 0)), shifted)
            }
            func extent(_ k: Int, _ name: String, _ prior: Float, _ size: Int) -> String {
                let grown = emit(prefix + "\(name)_exp", .unary(Unary(kind: .exp)), channel(k, name))
                return emit(prefix + "\(name)_scaled", .activation(.linear(alpha: prior / Float(size), beta: 0)), grown)
            }
            let box = [centre(0, "x", gridX, width), centre(1, "y", gridY, height),
                       extent(2, "w", anchor.width, width), extent(3, "h", anchor.height, height)]
            nodes.append(Node(name: prefix + "box", operation: .concat, inputs: box, outputs: [prefix + "box"]))
            boxes.append(prefix + "box")
            let objectness = emit(prefix + "objectness_sigmoid", .activation(.sigmoid), channel(4, "objectness"))
            let classScores = emit(prefix + "classes", .slice(Slice(axis: .channel, start: first + 5, end: first + per)), grid)
            scores.append(emit(prefix + "confidence", .multiply(constant: 1), emit(prefix + "softmax", .softmax, classScores), objectness))
        }
        nodes += rows(boxes, columns: 4, name: Self.coordinatesName, height: height, width: width)
        nodes += rows(scores, columns: classes, name: Self.confidenceName, height: height, width: width)
        return nodes
    }

    /// The anchors' [columns, H, W] maps as rows [1, H * W * A, columns]:
    /// stacked along channels ([A * columns, H, W]), moved to
    /// [H, W, A * columns], read as rows.
    private func rows(_ maps: [String], columns: Int, name: String, height: Int, width: Int) -> [Node] {
        var nodes: [Node] = []
        var stacked = maps[0]
        if maps.count > 1 {
            stacked = "\(name)_stacked"
            nodes.append(Node(name: stacked, operation: .concat, inputs: maps, outputs: [stacked]))
        }
        nodes.append(Node("\(name)_by_cell", .permute(axes: [0, 2, 3, 1]), input: stacked))
        nodes.append(Node(name, .reshape(targetShape: [1, height * width * maps.count, columns], order: .channelFirst), input: "\(name)_by_cell"))
        return nodes
    }
}

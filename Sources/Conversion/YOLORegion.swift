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
    /// Width and height of each anchor, in grid cells (in pixels of the
    /// input for a `yolo` head).
    public var anchors: [(width: Float, height: Float)]
    public var classes: Int
    /// Darknet's `[yolo]` decoding instead of `[region]`'s (see `YOLOHead`).
    public var yolo: YOLOHead?
    /// The first characters of the decoding's node names.
    public var prefix = "region_"

    public init(anchors: [(width: Float, height: Float)], classes: Int, yolo: YOLOHead? = nil, prefix: String = "region_") {
        self.anchors = anchors
        self.classes = classes
        self.yolo = yolo
        self.prefix = prefix
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
        let (nodes, boxes, scores) = try maps(grid: grid, shape: shape)
        return nodes + Self.rows(boxes, columns: 4, name: Self.coordinatesName, height: shape.height, width: shape.width)
            + Self.rows(scores, columns: classes, name: Self.confidenceName, height: shape.height, width: shape.width)
    }

    /// The decoding of several heads (YOLOv3's scales) into one pair of
    /// outputs: each head's rows in turn (its cells row-major, then its
    /// anchors), as OpenCV lists its [yolo] layers' detections. One head
    /// decodes as `nodes(grid:shape:)` does.
    /// - Throws: `ModelError` when a grid's channels are not A * (5 + C)
    ///   or the heads' classes differ.
    public static func nodes(heads: [(decoding: YOLORegion, grid: String, shape: TensorShape)]) throws(ModelError) -> [Node] {
        guard heads.count > 1 else { return try heads[0].decoding.nodes(grid: heads[0].grid, shape: heads[0].shape) }
        let classes = heads[0].decoding.classes
        guard heads.allSatisfy({ $0.decoding.classes == classes }) else {
            throw ModelError("the heads decode different class counts: \(heads.map { String($0.decoding.classes) }.joined(separator: ", "))")
        }
        var nodes: [Node] = [], boxRows: [String] = [], scoreRows: [String] = [], count = 0
        for head in heads {
            let (decoding, boxes, scores) = try head.decoding.maps(grid: head.grid, shape: head.shape)
            let (height, width, prefix) = (head.shape.height, head.shape.width, head.decoding.prefix)
            let rows = height * width * boxes.count
            // Rows as [N_i, columns, 1], concatenated along channels below: NeuralNetwork's concat joins channels.
            nodes += decoding + Self.rows(boxes, columns: 4, name: prefix + "coordinates", height: height, width: width, target: [rows, 4, 1])
                + Self.rows(scores, columns: classes, name: prefix + "confidence", height: height, width: width, target: [rows, classes, 1])
            boxRows.append(prefix + "coordinates")
            scoreRows.append(prefix + "confidence")
            count += rows
        }
        for (name, inputs, columns) in [(coordinatesName, boxRows, 4), (confidenceName, scoreRows, classes)] {
            nodes.append(Node(name: name + "_joined", operation: .concat, inputs: inputs, outputs: [name + "_joined"]))
            nodes.append(Node(name, .reshape(targetShape: [1, count, columns], order: .channelFirst), input: name + "_joined"))
        }
        return nodes
    }

    /// The nodes decoding `grid`, and per anchor its box map [4, H, W] and
    /// its confidence map [C, H, W].
    private func maps(grid: String, shape: TensorShape) throws(ModelError) -> (nodes: [Node], boxes: [String], scores: [String]) {
        let (height, width, per) = (shape.height, shape.width, 5 + classes)
        guard shape.dimensions.count == 3, shape.channels == anchors.count * per else {
            throw ModelError("expects \(anchors.count) x (5 + \(classes)) = \(anchors.count * per) channels, and its input is \(shape.dimensions)")
        }
        var nodes: [Node] = []
        func emit(_ name: String, _ operation: Op, _ inputs: String...) -> String {
            nodes.append(Node(name: name, operation: operation, inputs: inputs, outputs: [name]))
            return name
        }
        let gridX = emit(prefix + "grid_x", .constant(shape: [1, height, width], data: Weights((0..<height * width).map { Float($0 % width) })))
        let gridY = emit(prefix + "grid_y", .constant(shape: [1, height, width], data: Weights((0..<height * width).map { Float($0 / width) })))
        // new_coords: the grid holds values already squashed by the convolution's logistic activation.
        let squash = yolo?.newCoords != true
        var boxes: [String] = [], scores: [String] = []
        for (a, anchor) in anchors.enumerated() {
            let first = a * per, prefix = self.prefix + "\(a)_"
            func channel(_ k: Int, _ name: String) -> String {
                emit(prefix + name, .slice(Slice(axis: .channel, start: first + k, end: first + k + 1)), grid)
            }
            func centre(_ k: Int, _ name: String, _ offset: String, _ size: Int) -> String {
                var squashed = squash ? emit(prefix + "\(name)_sigmoid", .activation(.sigmoid), channel(k, name)) : channel(k, name)
                if let scale = yolo?.scaleXY, scale != 1 {
                    squashed = emit(prefix + "\(name)_scale_x_y", .activation(.linear(alpha: scale, beta: -(scale - 1) / 2)), squashed)
                }
                let shifted = emit(prefix + "\(name)_cell", .add(constant: 0), squashed, offset)
                return emit(prefix + "\(name)_scaled", .activation(.linear(alpha: 1 / Float(size), beta: 0)), shifted)
            }
            func extent(_ k: Int, _ name: String, _ prior: Float, _ size: Int, _ input: Int?) -> String {
                // [region]: anchors in grid cells; [yolo]: in pixels of the network's input.
                let scale = prior / Float(input ?? size)
                guard squash else {
                    let value = channel(k, name)
                    let squared = emit(prefix + "\(name)_square", .multiply(constant: 1), value, value)
                    return emit(prefix + "\(name)_scaled", .activation(.linear(alpha: 4 * scale, beta: 0)), squared)
                }
                let grown = emit(prefix + "\(name)_exp", .unary(Unary(kind: .exp)), channel(k, name))
                return emit(prefix + "\(name)_scaled", .activation(.linear(alpha: scale, beta: 0)), grown)
            }
            let box = [centre(0, "x", gridX, width), centre(1, "y", gridY, height),
                       extent(2, "w", anchor.width, width, yolo?.input.width), extent(3, "h", anchor.height, height, yolo?.input.height)]
            nodes.append(Node(name: prefix + "box", operation: .concat, inputs: box, outputs: [prefix + "box"]))
            boxes.append(prefix + "box")
            let objectness = squash ? emit(prefix + "objectness_sigmoid", .activation(.sigmoid), channel(4, "objectness")) : channel(4, "objectness")
            let classScores = emit(prefix + "classes", .slice(Slice(axis: .channel, start: first + 5, end: first + per)), grid)
            let probabilities = yolo == nil ? emit(prefix + "softmax", .softmax, classScores)
                : squash ? emit(prefix + "classes_sigmoid", .activation(.sigmoid), classScores) : classScores
            scores.append(emit(prefix + "confidence", .multiply(constant: 1), probabilities, objectness))
        }
        return (nodes, boxes, scores)
    }

    /// The anchors' [columns, H, W] maps as rows [1, H * W * A, columns]:
    /// stacked along channels ([A * columns, H, W]), moved to
    /// [H, W, A * columns], read as rows.
    /// `target` another shape of the same order (default [1, H * W * A, columns]).
    private static func rows(_ maps: [String], columns: Int, name: String, height: Int, width: Int, target: [Int]? = nil) -> [Node] {
        var nodes: [Node] = []
        var stacked = maps[0]
        if maps.count > 1 {
            stacked = "\(name)_stacked"
            nodes.append(Node(name: stacked, operation: .concat, inputs: maps, outputs: [stacked]))
        }
        nodes.append(Node("\(name)_by_cell", .permute(axes: [0, 2, 3, 1]), input: stacked))
        nodes.append(Node(name, .reshape(targetShape: target ?? [1, height * width * maps.count, columns], order: .channelFirst), input: "\(name)_by_cell"))
        return nodes
    }
}

/// What a Darknet `[yolo]` head decodes differently from `[region]`: per
/// anchor and cell,
///
///     x = (sigmoid(tx) * scaleXY - (scaleXY - 1) / 2 + cx) / W   (y alike)
///     w = exp(tw) * anchor_w / input.width                     (h alike)
///     confidence = sigmoid(class channels) * sigmoid(to)
///
/// and with `newCoords` (the grid already through a logistic activation)
/// no sigmoid, and w = tw² * 4 * anchor_w / input.width.
public struct YOLOHead: Sendable, Equatable {
    public var scaleXY: Float
    public var newCoords: Bool
    /// The network's input size, in pixels: the anchors' unit.
    public var input: Size2

    public init(scaleXY: Float, newCoords: Bool, input: Size2) {
        self.scaleXY = scaleXY
        self.newCoords = newCoords
        self.input = input
    }
}

extension ConversionOptions {
    /// With `yoloAnchors`, the model's one output is a YOLOv2 grid: it is
    /// decoded as layers (`YOLORegion`; C from the labels, else from the
    /// grid's channels) and the model becomes a detector (thresholds from
    /// `detectionThresholds`, else Darknet's 0.45 and 0.25; per class),
    /// the labels its classes'.
    /// - Throws: `ModelError` when the model has not one [A * (5 + C), H, W]
    ///   output; `ConversionOptionError` for labels that do not fit.
    public mutating func applyYOLODecoding(to model: inout Model) throws {
        guard let anchors = yoloAnchors else {
            if detectorOutput == nil, detectionThresholds.iou != nil || detectionThresholds.confidence != nil {
                throw ConversionOptionError("thresholds apply to a detector: give \(option: .yoloAnchors) for a YOLOv2 output")
            }
            return
        }
        guard model.outputs.count == 1, model.classifier == nil, model.detector == nil else {
            throw ModelError("\(option: .yoloAnchors) decodes one YOLOv2 output, and the model has \(model.outputs.count): \(model.outputs.map(\.name))")
        }
        let grid = model.outputs[0].name
        var shapes = try ShapeInference.shapes(of: model)
        let shape = shapes[grid]!
        let decoding = try YOLORegion(anchorValues: anchors, classes: classLabels?.count, gridChannels: shape.dimensions.count == 3 ? shape.channels : -1)
        let detector = try takeDetector(classes: decoding.classes, source: "the YOLOv2 output '\(grid)'", defaults: darknetThresholds)
        _ = try ShapeInference.append(try decoding.nodes(grid: grid, shape: shape), to: &model.nodes, shapes: &shapes)
        model.outputs = [Output(name: YOLORegion.confidenceName), Output(name: YOLORegion.coordinatesName)]
        model.detector = detector
    }
}

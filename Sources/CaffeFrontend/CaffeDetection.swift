import ModelFormat
import CaffeSchema
import Protobuf

/// SSD's priors of one feature map (or several concatenated), computed at
/// conversion time as the SSD fork's PriorBoxLayer computes them: per cell
/// (row-major), per min_size: the min_size square, then (with max_size)
/// the sqrt(min * max) square, then one box per aspect ratio other than 1
/// (each ratio once, and 1/ratio with flip), as corners in fractions of
/// the image, clipped to 0-1 with clip; and each prior's four variances.
struct PriorTable {
    /// xmin, ymin, xmax, ymax per prior.
    var corners: [Double] = []
    var variances: [Double] = []
    var count: Int { corners.count / 4 }

    init(corners: [Double], variances: [Double]) {
        self.corners = corners
        self.variances = variances
    }

    /// Sizes, steps, ratios and variances above this are refused: no image
    /// is that large (ShapeInference's bound on a dimension).
    static let largest = Double(ShapeInference.maximumSize)

    /// Whether `value` is a number from just above 0 to `largest`.
    static func isSize(_ value: Double) -> Bool { value > 0 && value <= largest }

    init(_ p: Caffe__PriorBoxParameter, feature: TensorShape, image: TensorShape, fail: (String) -> CaffeError) throws {
        let minSizes = CArrays.array(p.min_size, p.n_min_size).map(Double.init)
        let maxSizes = CArrays.array(p.max_size, p.n_max_size).map(Double.init)
        guard !minSizes.isEmpty, minSizes.allSatisfy(Self.isSize) else {
            throw fail("prior_box_param needs min_size values above 0 and at most \(ShapeInference.maximumSize)")
        }
        guard maxSizes.isEmpty || maxSizes.count == minSizes.count, zip(minSizes, maxSizes).allSatisfy({ $1 > $0 && Self.isSize($1) }) else {
            throw fail("prior_box_param needs one max_size per min_size, each larger (and at most \(ShapeInference.maximumSize))")
        }
        var ratios: [Double] = [1]
        for ratio in CArrays.array(p.aspect_ratio, p.n_aspect_ratio).map(Double.init) {
            guard Self.isSize(ratio) else { throw fail("aspect_ratio \(ratio) is not a number above 0 and at most \(ShapeInference.maximumSize)") }
            if ratios.contains(where: { abs($0 - ratio) < 1e-6 }) { continue }
            ratios.append(ratio)
            if p.flip != 0 { ratios.append(1 / ratio) }
        }
        let given = CArrays.array(p.variance, p.n_variance).map(Double.init)
        guard [0, 1, 4].contains(given.count), given.allSatisfy(Self.isSize) else {
            throw fail("prior_box_param takes one or four variances above 0 and at most \(ShapeInference.maximumSize), not \(given)")
        }
        let variance = given.isEmpty ? [0.1, 0.1, 0.1, 0.1] : given.count == 1 ? Array(repeating: given[0], count: 4) : given
        let imageWidth = Double(p.has_img_size != 0 ? p.img_size : p.has_img_w != 0 ? p.img_w : UInt32(image.width))
        let imageHeight = Double(p.has_img_size != 0 ? p.img_size : p.has_img_h != 0 ? p.img_h : UInt32(image.height))
        let (rows, columns) = (feature.height, feature.width)
        let stepWidth = Double(p.has_step != 0 ? p.step : p.has_step_w != 0 ? p.step_w : Float(imageWidth / Double(columns)))
        let stepHeight = Double(p.has_step != 0 ? p.step : p.has_step_h != 0 ? p.step_h : Float(imageHeight / Double(rows)))
        guard [imageWidth, imageHeight, stepWidth, stepHeight].allSatisfy(Self.isSize), (0...1).contains(p.offset) else {
            throw fail("prior_box_param's image size and step must be above 0 and at most \(ShapeInference.maximumSize), its offset from 0 to 1")
        }
        let perCell = minSizes.count * (ratios.count + (maxSizes.isEmpty ? 0 : 1))
        guard let total = [rows, columns, perCell, 4].checkedProduct, total <= TensorShape.maximumCount else { throw fail("makes too many priors") }
        corners.reserveCapacity(total)
        for row in 0..<rows {
            for column in 0..<columns {
                let centreX = (Double(column) + Double(p.offset)) * stepWidth, centreY = (Double(row) + Double(p.offset)) * stepHeight
                for (index, minSize) in minSizes.enumerated() {
                    var sizes = [(minSize, minSize)]
                    if !maxSizes.isEmpty { sizes.append(((minSize * maxSizes[index]).squareRoot(), (minSize * maxSizes[index]).squareRoot())) }
                    sizes += ratios.dropFirst().map { (minSize * $0.squareRoot(), minSize / $0.squareRoot()) }
                    for (width, height) in sizes {
                        let box = [(centreX - width / 2) / imageWidth, (centreY - height / 2) / imageHeight,
                                   (centreX + width / 2) / imageWidth, (centreY + height / 2) / imageHeight]
                        corners += p.clip != 0 ? box.map { min(max($0, 0), 1) } : box
                        variances += variance
                    }
                }
            }
        }
    }

    static func concatenated(_ tables: [PriorTable]) -> PriorTable {
        PriorTable(corners: tables.flatMap(\.corners), variances: tables.flatMap(\.variances))
    }
}

/// SSD's DetectionOutput (code type CENTER_SIZE, locations shared by the
/// classes) as layers decoding every prior's box, and the settings of the
/// non-maximum suppression that replaces the rest of it. With l the
/// location rows, v the variances and the prior's centre (px, py) and size
/// (pw, ph):
///
///     box        = (v0 * l0 * pw + px, v1 * l1 * ph + py, exp(v2 * l2) * pw, exp(v3 * l3) * ph)
///     confidence = the softmax's columns, the background's dropped
///
/// written on [4, N, 1] maps (coordinate, prior) and moved to the rows
/// `raw_coordinates` [1, N, 4] and `raw_confidence` [1, N, C].
struct SSDDetection {
    let parameters: Caffe__DetectionOutputParameter
    let priors: PriorTable
    /// The DetectionOutput layer's name, for messages.
    let layer: String
    /// keep_top_k: the most boxes kept, the most confident of every
    /// class's kept ones (the suppression's output row cap); nil for -1 or
    /// less (Caffe's and OpenCV's "no cap").
    var keepTopK: Int? { parameters.has_keep_top_k != 0 && parameters.keep_top_k > -1 ? Int(parameters.keep_top_k) : nil }
    /// nms_param's top_k when it caps: each class's candidates taken, the
    /// most confident, before suppression, fewer than the priors. Core ML's
    /// suppression has no such cap (the converter refuses it unless told
    /// to ignore it).
    var candidateCap: Int? {
        guard let nms = parameters.nms_param?.pointee, nms.has_top_k != 0, nms.top_k > -1, Int(nms.top_k) < priors.count else { return nil }
        return Int(nms.top_k)
    }
    /// Classes the network scores, the background's included.
    var scored: Int { Int(parameters.num_classes) }
    /// The background's column, if any.
    var background: Int? { parameters.background_label_id < 0 ? nil : Int(parameters.background_label_id) }
    /// The file's float32 thresholds as the decimals written in it (0.45, not 0.4499999881).
    var iouThreshold: Double { Self.decimal(parameters.nms_param.map { $0.pointee.nms_threshold } ?? 0.3) }
    var confidenceThreshold: Double { parameters.has_confidence_threshold != 0 ? Self.decimal(parameters.confidence_threshold) : 0 }

    static func decimal(_ value: Float) -> Double { Double(value.description) ?? Double(value) }

    init(_ parameters: Caffe__DetectionOutputParameter, priors: PriorTable, layer: String, fail: (String) -> CaffeError) throws {
        self.parameters = parameters
        self.priors = priors
        self.layer = layer
        guard keepTopK != 0 else { throw fail("keep_top_k 0 keeps no box (-1 keeps every one)") }
        guard parameters.code_type == CAFFE__PRIOR_BOX_PARAMETER__CODE_TYPE__CENTER_SIZE else {
            throw fail("code_type \(parameters.code_type.rawValue) is not converted (CENTER_SIZE, as MobileNet-SSD and SSD300 use, is)")
        }
        guard (parameters.nms_param.map { $0.pointee.eta } ?? 1) == 1 else {
            throw fail("nms_param eta \(parameters.nms_param.map { $0.pointee.eta } ?? 1) (adaptive suppression) is not supported; Core ML's suppression has a fixed threshold")
        }
        guard parameters.share_location != 0 else { throw fail("share_location: false (a box per class) is not converted") }
        guard parameters.num_classes >= 2 || parameters.num_classes == 1 && parameters.background_label_id < 0 else {
            throw fail("num_classes \(parameters.num_classes) leaves no class to detect")
        }
        guard (background ?? 0) < scored else { throw fail("background_label_id \(parameters.background_label_id) is not one of the \(scored) classes") }
        guard (0...1).contains(iouThreshold), confidenceThreshold >= 0, confidenceThreshold.isFinite else {
            throw fail("nms_threshold must be from 0 to 1 and confidence_threshold 0 or more")
        }
    }

    /// The decoding nodes, reading `location` (N x 4 values) and
    /// `confidence` (N x classes values, after the softmax).
    func nodes(location: String, confidence: String, shapes: [String: TensorShape], prefix: String,
               fail: (String) -> CaffeError) throws -> [Node] {
        let n = priors.count
        guard shapes[location]?.count == 4 * n else {
            throw fail("its locations have \(shapes[location]?.count ?? 0) values; the priors call for \(n) x 4")
        }
        guard shapes[confidence]?.count == scored * n else {
            throw fail("its confidences have \(shapes[confidence]?.count ?? 0) values; \(n) priors of \(scored) classes call for \(scored * n)")
        }
        func constant(_ name: String, _ rows: [[Double]]) -> Node {
            Node(name: "\(prefix)__\(name)", operation: .constant(shape: [rows.count, n, 1], data: Weights(rows.flatMap { $0.map(Float.init) })),
                 inputs: [], outputs: ["\(prefix)__\(name)"])
        }
        func step(_ name: String, _ operation: Op, _ inputs: String...) -> Node {
            Node(name: "\(prefix)__\(name)", operation: operation, inputs: inputs.map { $0.hasPrefix("raw_") || $0 == location || $0 == confidence ? $0 : "\(prefix)__\($0)" },
                 outputs: [name.hasPrefix("raw_") ? name : "\(prefix)__\(name)"])
        }
        let c = priors.corners
        func column(_ k: Int, _ j: Int, _ combine: (Double, Double) -> Double) -> [Double] {
            (0..<n).map { (prior: Int) -> Double in combine(c[4 * prior + k], c[4 * prior + j]) }
        }
        let centres = [column(0, 2) { ($0 + $1) / 2 }, column(1, 3) { ($0 + $1) / 2 }]
        let sizes = [column(2, 0) { $0 - $1 }, column(3, 1) { $0 - $1 }]
        let variances = parameters.variance_encoded_in_target != 0 ? Array(repeating: Array(repeating: 1.0, count: n), count: 4)
            : (0..<4).map { k in (0..<n).map { priors.variances[4 * $0 + k] } }
        let byRow: Op = .permute(axes: [0, 2, 1, 3]), toRows: Op = .permute(axes: [0, 3, 2, 1])
        var nodes = [
            step("location_rows", .reshape(targetShape: [n, 4, 1], order: .channelFirst), location),
            step("location", byRow, "location_rows"),
            constant("variances", variances),
            step("scaled", .multiply(constant: 1), "location", "variances"),
            step("offsets", .slice(Slice(axis: .channel, start: 0, end: 2)), "scaled"),
            step("log_sizes", .slice(Slice(axis: .channel, start: 2, end: 4)), "scaled"),
            constant("prior_sizes", sizes),
            constant("prior_centres", centres),
            step("moved", .multiply(constant: 1), "offsets", "prior_sizes"),
            step("centres", .add(constant: 0), "moved", "prior_centres"),
            step("grown", .unary(Unary(kind: .exp)), "log_sizes"),
            step("sizes", .multiply(constant: 1), "grown", "prior_sizes"),
            step("boxes", .concat, "centres", "sizes"),
            step("raw_coordinates", toRows, "boxes"),
            step("confidence_rows", .reshape(targetShape: [n, scored, 1], order: .channelFirst), confidence),
            step("confidence", byRow, "confidence_rows"),
        ]
        switch background {
        case nil:
            nodes.append(step("raw_confidence", toRows, "confidence"))
        case let b?:
            var kept: [String] = []
            for (name, range) in [("classes_before", 0..<b), ("classes_after", b + 1..<scored)] where !range.isEmpty {
                nodes.append(step(name, .slice(Slice(axis: .channel, start: range.lowerBound, end: range.upperBound)), "confidence"))
                kept.append(name)
            }
            if kept.count == 2 { nodes.append(step("classes", .concat, kept[0], kept[1])) }
            nodes.append(step("raw_confidence", toRows, kept.count == 2 ? "classes" : kept[0]))
        }
        return nodes
    }
}

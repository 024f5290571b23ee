import Images

/// Resizing images to a model's input size, as Vision's
/// `VNImageCropAndScaleOption` does before Core ML sees them.
///
/// Interpolation is separable, per axis:
/// - bilinear with pixel-center alignment (OpenCV's `INTER_LINEAR`
///   convention: `src = (dst + 0.5) * scale - 0.5`, clamped to the image)
///   when the axis is enlarged or reduced by at most 2x;
/// - area averaging (each output pixel is the coverage-weighted mean of the
///   source pixels under it, OpenCV's `INTER_AREA`) when reduced by more
///   than 2x, where bilinear would skip pixels and alias.
///
/// Sums are in floating point, rounded to the nearest integer (ties to even,
/// as OpenCV's `cvRound`) at the end.
/// OpenCV's `INTER_LINEAR` for 8-bit images uses 11-bit fixed-point weights,
/// so results may differ from `cv2.resize` by 1 in a few pixels.
public enum ImageResize {
    /// How the image is fitted to the target size, named as Vision's
    /// `VNImageCropAndScaleOption` names it.
    public enum Mode: String, Sendable, Equatable, CaseIterable {
        /// Scales uniformly so the shorter side fits, then keeps the center
        /// (Vision's `centerCrop`, `VNCoreMLRequest`'s default). The crop is
        /// computed in source pixels and resampled once, so a non-integer
        /// crop offset is not rounded.
        case centerCrop
        /// Scales each axis independently to fill the target exactly; the
        /// aspect ratio changes (Vision's `scaleFill`; iOS 18's
        /// `CoreMLRequest` defaults to it as `scaleToFill`).
        case scaleFill
        /// Scales uniformly so the longer side fits and centers the image;
        /// the bands left over are black (Vision's `scaleFit`, whose padding
        /// Vision does not document: no pixel parity is promised).
        case scaleFit
    }

    /// `image` resized to `width` x `height`, keeping its channel count.
    /// - Precondition: `width`, `height` and the image's size are positive.
    public static func resize(_ image: Image, width: Int, height: Int, mode: Mode = .scaleFill) -> Image {
        precondition(width > 0 && height > 0, "target size \(width)x\(height)")
        precondition(image.width > 0 && image.height > 0, "source size \(image.width)x\(image.height)")
        if mode == .scaleFit { return fitted(image, width: width, height: height) }
        var windowWidth = Double(image.width), windowHeight = Double(image.height)
        if mode == .centerCrop {
            let scale = max(Double(width) / windowWidth, Double(height) / windowHeight)
            windowWidth = Double(width) / scale
            windowHeight = Double(height) / scale
        }
        let columns = Taps(source: image.width, start: (Double(image.width) - windowWidth) / 2, length: windowWidth, count: width)
        let rows = Taps(source: image.height, start: (Double(image.height) - windowHeight) / 2, length: windowHeight, count: height)
        return resample(image, columns: columns, rows: rows)
    }

    /// Where a point of the resized image lies in the source image:
    /// `source x = scaleX * fraction x + offsetX` (fractions of the
    /// resized image's width and height, source coordinates in pixels),
    /// as `resize` places the image in `mode`.
    public struct Placement: Equatable, Sendable {
        public var scaleX: Double, offsetX: Double, scaleY: Double, offsetY: Double

        /// A rectangle given by its centre and size in fractions of the
        /// resized image, in source pixels: (left, top, width, height).
        public func sourceRectangle(x: Double, y: Double, width: Double, height: Double) -> (left: Double, top: Double, width: Double, height: Double) {
            (scaleX * (x - width / 2) + offsetX, scaleY * (y - height / 2) + offsetY, scaleX * width, scaleY * height)
        }
    }

    /// How `resize` places a `sourceWidth` x `sourceHeight` image in a
    /// `width` x `height` one.
    public static func placement(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int, mode: Mode) -> Placement {
        let (sourceW, sourceH) = (Double(sourceWidth), Double(sourceHeight))
        switch mode {
        case .scaleFill:
            return Placement(scaleX: sourceW, offsetX: 0, scaleY: sourceH, offsetY: 0)
        case .centerCrop:
            let scale = max(Double(width) / sourceW, Double(height) / sourceH)
            let (windowW, windowH) = (Double(width) / scale, Double(height) / scale)
            return Placement(scaleX: windowW, offsetX: (sourceW - windowW) / 2, scaleY: windowH, offsetY: (sourceH - windowH) / 2)
        case .scaleFit:
            // As `fitted` lays it out: the inner image at whole pixels (left, top) of the target.
            let scale = min(Double(width) / sourceW, Double(height) / sourceH)
            let innerW = min(width, max(1, Int((sourceW * scale).rounded()))), innerH = min(height, max(1, Int((sourceH * scale).rounded())))
            let (perX, perY) = (sourceW / Double(innerW), sourceH / Double(innerH))
            return Placement(scaleX: Double(width) * perX, offsetX: -Double((width - innerW) / 2) * perX,
                             scaleY: Double(height) * perY, offsetY: -Double((height - innerH) / 2) * perY)
        }
    }

    /// `scaleFit`: the image scaled to fit inside, centered on black.
    static func fitted(_ image: Image, width: Int, height: Int) -> Image {
        let scale = min(Double(width) / Double(image.width), Double(height) / Double(image.height))
        let innerWidth = min(width, max(1, Int((Double(image.width) * scale).rounded())))
        let innerHeight = min(height, max(1, Int((Double(image.height) * scale).rounded())))
        let inner = resize(image, width: innerWidth, height: innerHeight, mode: .scaleFill)
        let channels = image.channels, left = (width - innerWidth) / 2, top = (height - innerHeight) / 2
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<innerHeight {
            let from = y * innerWidth * channels, to = ((top + y) * width + left) * channels
            pixels[to..<to + innerWidth * channels] = inner.pixels[from..<from + innerWidth * channels]
        }
        return Image(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// Source indices and weights for each output index along one axis.
    struct Taps {
        /// Taps of output `i` are `first[i]..<first[i + 1]`.
        var first: [Int] = [0]
        var index: [Int] = []
        var weight: [Float] = []

        /// Output pixels `0..<count` covering source positions
        /// `start..<start + length` of an axis `source` pixels long.
        init(source: Int, start: Double, length: Double, count: Int) {
            let scale = length / Double(count)
            for i in 0..<count {
                if scale > 2 {
                    let low = max(0, start + Double(i) * scale), high = min(Double(source), start + Double(i + 1) * scale)
                    var j = Int(low.rounded(.down))
                    let total = high - low
                    while Double(j) < high && j < source {
                        let covered = min(high, Double(j + 1)) - max(low, Double(j))
                        if covered > 0 { add(j, Float(covered / total)) }
                        j += 1
                    }
                } else {
                    let position = start + (Double(i) + 0.5) * scale - 0.5
                    var left = Int(position.rounded(.down))
                    var fraction = position - Double(left)
                    if left < 0 { (left, fraction) = (0, 0) }
                    if left >= source - 1 { (left, fraction) = (source - 1, 0) }
                    add(left, Float(1 - fraction))
                    if fraction > 0 { add(left + 1, Float(fraction)) }
                }
                first.append(index.count)
            }
        }

        mutating func add(_ i: Int, _ w: Float) {
            index.append(i)
            weight.append(w)
        }

        var count: Int { first.count - 1 }
    }

    /// Horizontal pass into floats (only the source rows used), then vertical.
    static func resample(_ image: Image, columns: Taps, rows: Taps) -> Image {
        let channels = image.channels
        let width = columns.count, height = rows.count
        let lowRow = rows.index.min() ?? 0, highRow = rows.index.max() ?? 0
        let rowLength = width * channels
        var horizontal = [Float](repeating: 0, count: (highRow - lowRow + 1) * rowLength)
        image.pixels.withUnsafeBufferPointer { source in
            for y in lowRow...highRow {
                let sourceRow = y * image.width * channels, row = (y - lowRow) * rowLength
                for x in 0..<width {
                    for t in columns.first[x]..<columns.first[x + 1] {
                        let s = sourceRow + columns.index[t] * channels, w = columns.weight[t]
                        for c in 0..<channels { horizontal[row + x * channels + c] += w * Float(source[s + c]) }
                    }
                }
            }
        }
        var pixels = [UInt8](repeating: 0, count: height * rowLength)
        var sums = [Float](repeating: 0, count: rowLength)
        for y in 0..<height {
            for i in sums.indices { sums[i] = 0 }
            for t in rows.first[y]..<rows.first[y + 1] {
                let row = (rows.index[t] - lowRow) * rowLength, w = rows.weight[t]
                for i in 0..<rowLength { sums[i] += w * horizontal[row + i] }
            }
            for i in 0..<rowLength {
                pixels[y * rowLength + i] = UInt8(min(255, max(0, sums[i].rounded(.toNearestOrEven))))
            }
        }
        return Image(width: width, height: height, channels: channels, pixels: pixels)
    }
}

extension Image {
    /// This image with 1 channel: ITU-R BT.601 luma
    /// (`0.299 R + 0.587 G + 0.114 B`, rounded), computed exactly as the
    /// runtime's preprocessing does for grayscale inputs. A gray image is
    /// returned unchanged.
    public func toGray() -> Image {
        guard channels == 3 else { return self }
        let count = width * height
        var gray = [UInt8](repeating: 0, count: count)
        for p in 0..<count {
            let r = Float(pixels[3 * p]), g = Float(pixels[3 * p + 1]), b = Float(pixels[3 * p + 2])
            gray[p] = UInt8(min(255, (0.299 * r + 0.587 * g + 0.114 * b).rounded()))
        }
        return Image(width: width, height: height, channels: 1, pixels: gray)
    }

    /// This image with 3 channels: gray values repeated in R, G and B.
    /// An RGB image is returned unchanged.
    public func toRGB() -> Image {
        guard channels == 1 else { return self }
        var rgb = [UInt8](repeating: 0, count: 3 * pixels.count)
        for (p, value) in pixels.enumerated() {
            rgb[3 * p] = value
            rgb[3 * p + 1] = value
            rgb[3 * p + 2] = value
        }
        return Image(width: width, height: height, channels: 3, pixels: rgb)
    }
}

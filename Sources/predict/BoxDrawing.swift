import FileIO
import ImageFiles
import Images

/// `predict --draw`: the picture with each detected box outlined and
/// labelled (label and confidence), written as PNG.
enum BoxDrawing {
    static func write(_ picture: Image, boxes: [Box], to path: String, in set: AtomicFileSet) throws {
        var canvas = Canvas(picture.channels == 3 ? picture : picture.toRGB())
        let scale = max(1, min(canvas.image.width, canvas.image.height) / 300)
        let colors = boxes.map { Canvas.palette[$0.detection.label.hashValueStable % Canvas.palette.count] }
        let corners = boxes.map { box in
            (Int(box.left.rounded()), Int(box.top.rounded()), Int((box.left + box.width).rounded()), Int((box.top + box.height).rounded()))
        }
        for (corner, color) in zip(corners, colors) {
            for inset in 0..<2 * scale { canvas.outline(corner.0 + inset, corner.1 + inset, corner.2 - inset, corner.3 - inset, color) }
        }
        // Labels above their boxes (inside at the top edge), the most confident drawn last, on top.
        for (box, (corner, color)) in zip(boxes, zip(corners, colors)).reversed() {
            let text = "\(box.detection.label) \(String(format: "%.2f", box.detection.confidence))"
            let height = (Font.rows + 2) * scale
            let textTop = corner.1 - height >= 0 ? corner.1 - height : corner.1
            canvas.fill(corner.0, textTop, corner.0 + (text.count * (Font.columns + 1) + 1) * scale, textTop + height, color)
            canvas.text(text, corner.0 + scale, textTop + scale, scale: scale, color: (255, 255, 255))
        }
        try PNGEncoder.write(canvas.image, to: path, in: set)
    }
}

/// An RGB image drawn on; everything outside it is clipped.
struct Canvas {
    var image: Image
    static let palette: [(UInt8, UInt8, UInt8)] = [(230, 25, 75), (60, 180, 75), (0, 130, 200), (245, 130, 48), (145, 30, 180),
                                                   (70, 150, 150), (240, 50, 230), (128, 128, 0), (0, 0, 128), (128, 0, 0)]

    init(_ image: Image) {
        self.image = image
    }

    mutating func point(_ x: Int, _ y: Int, _ color: (UInt8, UInt8, UInt8)) {
        guard x >= 0, y >= 0, x < image.width, y < image.height else { return }
        let at = (y * image.width + x) * 3
        (image.pixels[at], image.pixels[at + 1], image.pixels[at + 2]) = color
    }

    mutating func fill(_ left: Int, _ top: Int, _ right: Int, _ bottom: Int, _ color: (UInt8, UInt8, UInt8)) {
        let (x0, x1) = (min(max(left, 0), image.width), min(max(right, 0), image.width))
        let (y0, y1) = (min(max(top, 0), image.height), min(max(bottom, 0), image.height))
        guard x0 < x1, y0 < y1 else { return }
        for y in y0..<y1 {
            for x in x0..<x1 { point(x, y, color) }
        }
    }

    mutating func outline(_ left: Int, _ top: Int, _ right: Int, _ bottom: Int, _ color: (UInt8, UInt8, UInt8)) {
        guard right > left, bottom > top else { return }
        fill(left, top, right, top + 1, color)
        fill(left, bottom - 1, right, bottom, color)
        fill(left, top, left + 1, bottom, color)
        fill(right - 1, top, right, bottom, color)
    }

    mutating func text(_ text: String, _ left: Int, _ top: Int, scale: Int, color: (UInt8, UInt8, UInt8)) {
        for (index, character) in text.enumerated() {
            let rows = Font.glyph(character)
            let x0 = left + index * (Font.columns + 1) * scale
            for (row, bits) in rows.enumerated() {
                for column in 0..<Font.columns where bits & (1 << (Font.columns - 1 - column)) != 0 {
                    fill(x0 + column * scale, top + row * scale, x0 + (column + 1) * scale, top + (row + 1) * scale, color)
                }
            }
        }
    }
}

/// A 5x7 bitmap font: letters (drawn as capitals), digits and the
/// punctuation labels use; anything else is an outlined box.
enum Font {
    static let columns = 5, rows = 7
    static let glyphs: [Character: [UInt8]] = [
        "A": [0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11], "B": [0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E],
        "C": [0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E], "D": [0x1E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1E],
        "E": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F], "F": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10],
        "G": [0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F], "H": [0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        "I": [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E], "J": [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C],
        "K": [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11], "L": [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F],
        "M": [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11], "N": [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        "O": [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "P": [0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10],
        "Q": [0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D], "R": [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        "S": [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E], "T": [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        "U": [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "V": [0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04],
        "W": [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A], "X": [0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11],
        "Y": [0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04], "Z": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F],
        "0": [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E], "1": [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        "2": [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F], "3": [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        "4": [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02], "5": [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        "6": [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E], "7": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        "8": [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E], "9": [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        " ": [0, 0, 0, 0, 0, 0, 0], "-": [0, 0, 0, 0x1F, 0, 0, 0], "_": [0, 0, 0, 0, 0, 0, 0x1F],
        ".": [0, 0, 0, 0, 0, 0x0C, 0x0C], ":": [0, 0x0C, 0x0C, 0, 0x0C, 0x0C, 0], "'": [0x0C, 0x04, 0x08, 0, 0, 0, 0],
        "/": [0, 0x01, 0x02, 0x04, 0x08, 0x10, 0], "(": [0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02],
        ")": [0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08], "+": [0, 0x04, 0x04, 0x1F, 0x04, 0x04, 0],
    ]
    static let unknown: [UInt8] = [0x1F, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1F]

    static func glyph(_ character: Character) -> [UInt8] {
        character.uppercased().first.flatMap { glyphs[$0] } ?? unknown
    }
}

extension String {
    /// A hash that is the same in every run (Swift's `hashValue` is seeded
    /// per process): a label keeps its color from one picture to the next.
    var hashValueStable: Int {
        Int(utf8.reduce(UInt32(2166136261)) { ($0 ^ UInt32($1)) &* 16777619 })
    }
}

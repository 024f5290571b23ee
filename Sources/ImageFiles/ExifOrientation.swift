import Images

/// The EXIF orientation of a JPEG (tag 0x0112 in IFD0 of the APP1 "Exif"
/// segment) or a PNG (the same TIFF data in an eXIf chunk), and turning an
/// image as it says: 1 is as stored, 2 to 8 are
/// the flips and quarter turns of the TIFF specification. Cameras store the
/// sensor's pixels and record how the camera was held here.
///
/// OpenCV's `imread` applies it (unless `IMREAD_IGNORE_ORIENTATION`), so do
/// we by default. Vision's request handlers take the orientation as a
/// parameter (`CGImagePropertyOrientation`, whose raw values 1 to 8 are
/// these) and assume `.up` (1) when an app passes none.
public enum ExifOrientation {
    /// What to do with a JPEG's EXIF orientation.
    public enum Handling: Sendable {
        /// Turn the pixels as the orientation says (OpenCV's imread).
        case apply
        /// Keep the pixels as stored (Vision given `.up`).
        case ignore
    }

    /// The orientation (1 to 8) recorded in JPEG `bytes`, or nil when there
    /// is none (no Exif APP1 before the image data, no tag 0x0112, a value
    /// outside 1...8, or a malformed segment). Reads at most each marker
    /// segment header up to the first scan and one IFD: every step moves
    /// forward through the bytes, every offset is checked against the
    /// segment, so hostile EXIF can neither loop nor read out of bounds.
    public static func orientation(ofJPEG bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var position = 2
        while position + 4 <= bytes.count {
            guard bytes[position] == 0xFF else { return nil }
            let marker = bytes[position + 1]
            if marker == 0xFF { position += 1; continue }  // fill byte
            // Markers without a length: TEM, RST0-7 (SOI, EOI end the header part).
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { position += 2; continue }
            if marker == 0xD9 || marker == 0xDA || marker == 0xD8 { return nil }  // EOI, start of scan, SOI
            let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            guard length >= 2, position + 2 + length <= bytes.count else { return nil }
            let start = position + 4, end = position + 2 + length
            if marker == 0xE1, let value = exifOrientation(bytes, from: start, to: end) { return value }
            position = end
        }
        return nil
    }

    /// The orientation (1 to 8) in the eXIf chunk of PNG `bytes` (before
    /// the image data, as the PNG specification places it), or nil. Walks
    /// the chunk headers only, each checked against the file's end.
    public static func orientation(ofPNG bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 8, bytes.starts(with: ImageFile.pngSignature) else { return nil }
        var position = 8
        while position + 8 <= bytes.count {
            let length = (0..<4).reduce(0) { $0 << 8 | Int(bytes[position + $1]) }
            let type = String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self)
            let start = position + 8
            // Data and its 4-byte CRC must fit (a length of up to 2^31 - 1 cannot overflow here).
            guard length <= bytes.count - start else { return nil }
            if type == "IDAT" || type == "IEND" { return nil }
            if type == "eXIf" { return tiffOrientation(bytes, tiff: start, end: start + length) }
            position = start + length + 4
        }
        return nil
    }

    /// The orientation tag of an APP1 payload `bytes[start..<end]` that
    /// starts "Exif\0\0", read from IFD0 only.
    static func exifOrientation(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        let header: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]  // "Exif\0\0"
        guard start + 6 <= end, (0..<6).allSatisfy({ bytes[start + $0] == header[$0] }) else { return nil }
        return tiffOrientation(bytes, tiff: start + 6, end: end)
    }

    /// The orientation tag in IFD0 of the TIFF data `bytes[tiff..<end]`.
    static func tiffOrientation(_ bytes: UnsafeRawBufferPointer, tiff: Int, end: Int) -> Int? {
        guard tiff + 8 <= end, end <= bytes.count else { return nil }
        let little: Bool
        switch (bytes[tiff], bytes[tiff + 1]) {
        case (0x49, 0x49): little = true   // "II"
        case (0x4D, 0x4D): little = false  // "MM"
        default: return nil
        }
        func integer(at offset: Int, size: Int) -> Int? {
            guard offset >= tiff, size <= end - offset else { return nil }
            var value = 0
            for index in 0..<size {
                let byte = Int(bytes[offset + (little ? size - 1 - index : index)])
                value = value << 8 | byte
            }
            return value
        }
        guard integer(at: tiff + 2, size: 2) == 42, let ifd = integer(at: tiff + 4, size: 4),
              ifd >= 8, ifd <= end - tiff, let count = integer(at: tiff + ifd, size: 2) else { return nil }
        // At most the entries that fit in the segment.
        let entries = min(count, (end - (tiff + ifd + 2)) / 12)
        for index in 0..<max(entries, 0) {
            let entry = tiff + ifd + 2 + 12 * index
            guard integer(at: entry, size: 2) == 0x0112 else { continue }
            // SHORT (3), one value, stored in the entry's first two value bytes.
            guard integer(at: entry + 2, size: 2) == 3, integer(at: entry + 4, size: 4) == 1,
                  let value = integer(at: entry + 8, size: 2), (1...8).contains(value) else { return nil }
            return value
        }
        return nil
    }

    /// `image` turned as EXIF `orientation` says (1 or an unknown value:
    /// unchanged). 5 to 8 swap width and height.
    public static func apply(_ orientation: Int, to image: Image) -> Image {
        guard (2...8).contains(orientation) else { return image }
        let (width, height, channels) = (image.width, image.height, image.channels)
        let swaps = orientation >= 5
        let (outWidth, outHeight) = swaps ? (height, width) : (width, height)
        var pixels = [UInt8](repeating: 0, count: image.pixels.count)
        image.pixels.withUnsafeBufferPointer { source in
            for y in 0..<outHeight {
                for x in 0..<outWidth {
                    // The stored pixel (sx, sy) that lands at (x, y), as OpenCV's ExifTransform turns it.
                    let (sx, sy): (Int, Int) = switch orientation {
                    case 2: (width - 1 - x, y)
                    case 3: (width - 1 - x, height - 1 - y)
                    case 4: (x, height - 1 - y)
                    case 5: (y, x)
                    case 6: (y, height - 1 - x)
                    case 7: (width - 1 - y, height - 1 - x)
                    default: (width - 1 - y, x)  // 8
                    }
                    let from = (sy * width + sx) * channels, to = (y * outWidth + x) * channels
                    for c in 0..<channels { pixels[to + c] = source[from + c] }
                }
            }
        }
        return Image(width: outWidth, height: outHeight, channels: channels, pixels: pixels)
    }
}

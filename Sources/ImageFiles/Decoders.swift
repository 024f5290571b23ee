import CImageCodecs
import FileIO
import Images

/// PNG through libpng's simplified API (`png_image`), whose setjmp-based
/// error handling stays inside libpng: failures come back as a return value
/// and a message in `png_image.message`.
enum PNGDecoder {
    /// How many of `bytes` (a PNG) the decoder may read: the size IHDR
    /// declares is checked first (`ImageFile.checkSize`, and that the file
    /// can hold its compressed rows at all: deflate packs at most 1032 bytes
    /// into one), then bounded by twice the raw scanlines (filter bytes,
    /// Adam7's extra rows, deflate's stored blocks and IDAT framing take far
    /// less) plus `ImageFile.maximumMetadataBytes`, and cut at the end of
    /// IEND (`chunksEnd`). An IHDR that libpng would refuse anyway bounds
    /// by the metadata allowance alone.
    /// - Throws: `ImageFileError` for a declared size too large, or too
    ///   large for the file, or a chunk running past what may be read.
    static func usableLength(_ bytes: UnsafeRawBufferPointer, name: String) throws(ImageFileError) -> Int {
        let fallback = min(bytes.count, ImageFile.maximumMetadataBytes)
        let unknownSize = { () throws(ImageFileError) -> Int in
            try chunksEnd(bytes, limit: fallback, what: "what a PNG may hold besides its pixels", name: name)
        }
        // Signature (8), IHDR's length (4) = 13, "IHDR", width, height, depth, color type.
        guard bytes.count >= 26, ImageFile.bigEndian(bytes, at: 8, size: 4) == 13,
              ImageFile.bigEndian(bytes, at: 12, size: 4) == 0x4948_4452 else { return try unknownSize() }
        let width = ImageFile.bigEndian(bytes, at: 16, size: 4), height = ImageFile.bigEndian(bytes, at: 20, size: 4)
        let depth = Int(bytes[24])
        let samples: Int
        switch bytes[25] {
        case 0, 3: samples = 1
        case 2: samples = 3
        case 4: samples = 2
        case 6: samples = 4
        default: return try unknownSize()
        }
        guard (1...0x7FFF_FFFF).contains(width), (1...0x7FFF_FFFF).contains(height), [1, 2, 4, 8, 16].contains(depth) else {
            return try unknownSize()
        }
        try ImageFile.checkSize(width: width, height: height, name: name)
        // At most 10^8 pixels of 64 bits: no overflow below.
        let raw = height * ((width * samples * depth + 7) / 8 + 1)
        let smallest = raw / 1032
        guard bytes.count >= smallest else {
            throw ImageFileError(file: name, message: "corrupt PNG: \(width)x\(height) declared, whose pixel data needs at least \(smallest) bytes compressed; the file has \(bytes.count)")
        }
        return try chunksEnd(bytes, limit: min(bytes.count, 2 * raw + ImageFile.maximumMetadataBytes),
                             what: "what a \(width)x\(height) PNG can use", name: name)
    }

    /// Walks the chunk headers of `bytes` (a PNG) up to `limit`: the end of
    /// IEND when it lies within (what follows it is never given to
    /// libpng), else `limit`. A chunk declaring more bytes than remain is
    /// refused here, before libpng allocates a buffer of the declared size
    /// (it does so for text chunks). A chunk type that is not four letters
    /// ends the walk: libpng says what is wrong with it.
    /// - Throws: `ImageFileError` naming the chunk and its byte offset.
    static func chunksEnd(_ bytes: UnsafeRawBufferPointer, limit: Int, what: String, name: String) throws(ImageFileError) -> Int {
        var position = 8
        while position + 8 <= limit {
            let length = ImageFile.bigEndian(bytes, at: position, size: 4)
            let typeBytes = (0..<4).map { bytes[position + 4 + $0] }
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else { return limit }
            let type = String(decoding: typeBytes, as: UTF8.self)
            // Data, then a 4-byte CRC; PNG lengths stop at 2^31 - 1.
            let end = position + 12 + length
            guard length <= 0x7FFF_FFFF, end <= limit else {
                let room = limit < bytes.count ? "past the \(limit) bytes read (\(what))" : "past the end of the file (\(bytes.count) bytes)"
                throw ImageFileError(file: name, message: "corrupt PNG: chunk '\(type)' at byte \(position) declares \(length) bytes, \(room)")
            }
            if type == "IEND" { return end }
            position = end
        }
        return limit
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, name: String) throws(ImageFileError) -> Image {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        // Reads the header only (up to the first IDAT); allocates no pixels.
        guard let base = bytes.baseAddress,
              png_image_begin_read_from_memory(&png, base, bytes.count) != 0 else {
            throw corrupt(png, name: name)
        }
        let width = Int(png.width), height = Int(png.height)
        do {
            try ImageFile.checkSize(width: width, height: height, name: name)
        } catch {
            png_image_free(&png)
            throw error
        }
        let color = png.format & PNG_FORMAT_FLAG_COLOR != 0
        // Palette entries with tRNS count as alpha too.
        let alpha = png.format & PNG_FORMAT_FLAG_ALPHA != 0
        let channels = color ? 3 : 1
        let components = channels + (alpha ? 1 : 0)
        // Read with alpha when there is some, then drop it: asking libpng for
        // a format without alpha would composite onto a background instead.
        png.format = (color ? PNG_FORMAT_FLAG_COLOR : 0) | (alpha ? PNG_FORMAT_FLAG_ALPHA : 0)
        // 16-bit files without gAMA/sRGB are sRGB-encoded, as every other
        // reader assumes (libpng's simplified API would take them as linear).
        png.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
        var buffer = [UInt8](repeating: 0, count: width * height * components)
        let finished = buffer.withUnsafeMutableBytes { out in
            png_image_finish_read(&png, nil, out.baseAddress, 0, nil)
        }
        // On failure libpng has already freed its state.
        guard finished != 0 else { throw corrupt(png, name: name) }
        let pixels = alpha ? dropAlpha(buffer, channels: channels) : buffer
        return Image(width: width, height: height, channels: channels, pixels: pixels)
    }

    static func corrupt(_ png: png_image, name: String) -> ImageFileError {
        let message = libpngMessage(png)
        return ImageFileError(file: name, message: "corrupt PNG: \(message.isEmpty ? "unreadable" : message)")
    }

    /// The message libpng left in `png` (empty when none).
    static func libpngMessage(_ png: png_image) -> String {
        withUnsafeBytes(of: png.message) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// `channels + 1` interleaved components to `channels`, alpha last.
    static func dropAlpha(_ buffer: [UInt8], channels: Int) -> [UInt8] {
        let stride = channels + 1
        let count = buffer.count / stride
        return [UInt8](unsafeUninitializedCapacity: count * channels) { out, initialized in
            buffer.withUnsafeBufferPointer { source in
                for p in 0..<count {
                    for c in 0..<channels { out[p * channels + c] = source[p * stride + c] }
                }
            }
            initialized = count * channels
        }
    }
}

/// JPEG through TurboJPEG (libjpeg-turbo), with its default accurate
/// integer IDCT and smooth chroma upsampling, as OpenCV decodes.
enum JPEGDecoder {
    /// How many of `bytes` (a JPEG) the decoder may read: the frame header
    /// (SOF, found by walking the marker segments before the first scan) is
    /// checked first (`ImageFile.checkSize`), then bounded by 16 bytes a
    /// sample (a baseline block's 64 coefficients take at most 27 bits each,
    /// twice that with 0xFF stuffing; progressive refinement passes add one
    /// bit a coefficient each) plus `ImageFile.maximumMetadataBytes`. Without
    /// a frame header in reach, the metadata allowance alone.
    /// - Throws: `ImageFileError` for a declared size too large.
    static func usableLength(_ bytes: UnsafeRawBufferPointer, name: String) throws(ImageFileError) -> Int {
        let reach = min(bytes.count, ImageFile.maximumMetadataBytes)
        var position = 2
        // Each step moves forward, at most up to the metadata allowance.
        while position + 4 <= reach {
            guard bytes[position] == 0xFF else { return reach }
            let marker = bytes[position + 1]
            if marker == 0xFF { position += 1; continue }  // fill byte
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { position += 2; continue }  // TEM, RSTn
            if marker == 0xD8 || marker == 0xD9 || marker == 0xDA { return reach }  // SOI, EOI, SOS before any frame
            let length = ImageFile.bigEndian(bytes, at: position + 2, size: 2)
            // SOF0-15 but DHT (C4), JPG (C8), DAC (CC): precision, height, width, component count.
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard length >= 8, position + 10 <= bytes.count else { return reach }
                let height = ImageFile.bigEndian(bytes, at: position + 5, size: 2)
                let width = ImageFile.bigEndian(bytes, at: position + 7, size: 2)
                let components = Int(bytes[position + 9])
                // A height of 0 (defined later by DNL) or no components: TurboJPEG says what is wrong.
                guard width > 0, height > 0, components > 0 else { return reach }
                try ImageFile.checkSize(width: width, height: height, name: name)
                return min(bytes.count, 16 * width * height * components + ImageFile.maximumMetadataBytes)
            }
            guard length >= 2 else { return reach }
            position += 2 + length
        }
        return reach
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, name: String) throws(ImageFileError) -> Image {
        guard let handle = tjInitDecompress() else {
            throw ImageFileError(file: name, message: "cannot start the JPEG decoder")
        }
        defer { tjDestroy(handle) }
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw ImageFileError(file: name, message: "empty file")
        }
        let size = UInt(bytes.count)
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, base, size, &width, &height, &subsampling, &colorspace) == 0 else {
            throw corrupt(handle, name: name)
        }
        // TurboJPEG reports a tables-only stream (or a header cut short) as 0x0.
        guard width > 0, height > 0 else {
            throw ImageFileError(file: name, message: "corrupt JPEG: no image (the header is truncated or holds only tables)")
        }
        try ImageFile.checkSize(width: Int(width), height: Int(height), name: name)

        let format: TJPF, components: Int
        switch colorspace {
        case Int32(TJCS_GRAY.rawValue): (format, components) = (TJPF_GRAY, 1)
        case Int32(TJCS_CMYK.rawValue), Int32(TJCS_YCCK.rawValue): (format, components) = (TJPF_CMYK, 4)
        default: (format, components) = (TJPF_RGB, 3)
        }
        var buffer = [UInt8](repeating: 0, count: Int(width) * Int(height) * components)
        let status = buffer.withUnsafeMutableBufferPointer { out in
            tjDecompress2(handle, base, size, out.baseAddress, width, 0, height, Int32(format.rawValue), 0)
        }
        // Warnings (truncated data, corrupt entropy data) return -1 too:
        // they are errors here, see `ImageFile`.
        guard status == 0 else { throw corrupt(handle, name: name) }
        if components == 4 {
            return Image(width: Int(width), height: Int(height), channels: 3, pixels: cmykToRGB(buffer))
        }
        return Image(width: Int(width), height: Int(height), channels: components, pixels: buffer)
    }

    static func corrupt(_ handle: tjhandle, name: String) -> ImageFileError {
        let message = tjGetErrorStr2(handle).map { String(cString: $0) } ?? ""
        return ImageFileError(file: name, message: "corrupt JPEG: \(message.isEmpty ? "unreadable" : message)")
    }

    /// Adobe-inverted CMYK (as Photoshop writes it and libjpeg returns it)
    /// to RGB, with OpenCV's formula so results compare with `cv2.imread`.
    static func cmykToRGB(_ buffer: [UInt8]) -> [UInt8] {
        let count = buffer.count / 4
        return [UInt8](unsafeUninitializedCapacity: count * 3) { out, initialized in
            buffer.withUnsafeBufferPointer { source in
                for p in 0..<count {
                    let k = Int(source[4 * p + 3])
                    for c in 0..<3 {
                        out[3 * p + c] = UInt8(k - (((255 - Int(source[4 * p + c])) * k) >> 8))
                    }
                }
            }
            initialized = count * 3
        }
    }
}

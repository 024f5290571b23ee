import CImageCodecs
import FileIO
import Images

/// PNG through libpng's simplified API (`png_image`), whose setjmp-based
/// error handling stays inside libpng: failures come back as a return value
/// and a message in `png_image.message`.
enum PNGDecoder {
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

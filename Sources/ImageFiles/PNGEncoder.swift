import CImageCodecs
import FileIO
import Images

/// Writes images as PNG through libpng's simplified API, atomically
/// (`AtomicFile`: an existing file is replaced only by a complete one, and
/// never one of `inputs`).
public enum PNGEncoder {
    /// - Throws: `ImageFileError` when libpng cannot encode the image,
    ///   `FileError` when the file cannot be written.
    public static func write(_ image: Image, to path: String, inputs: [String] = []) throws {
        try AtomicFile.write(try encoded(image, path: path), to: path, inputs: inputs)
    }

    /// Writes `image` as the file for `path` in `set` (one of its targets):
    /// not in place before the set's commit.
    /// - Throws: as `write(_:to:inputs:)`.
    public static func write(_ image: Image, to path: String, in set: AtomicFileSet) throws {
        try set.write(try encoded(image, path: path), to: path)
    }

    /// The PNG bytes of `image` (`path` for messages).
    private static func encoded(_ image: Image, path: String) throws -> [UInt8] {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(image.width)
        png.height = UInt32(image.height)
        png.format = image.channels == 3 ? UInt32(PNG_FORMAT_RGB) : UInt32(PNG_FORMAT_GRAY)
        let bytes = try image.pixels.withUnsafeBytes { pixels -> [UInt8] in
            var size: png_alloc_size_t = 0
            // First the size, then the encoding into a buffer of that size.
            guard png_image_write_to_memory(&png, nil, &size, 0, pixels.baseAddress, 0, nil) != 0 else {
                throw ImageFileError(file: path, message: "cannot be encoded as PNG: \(PNGDecoder.libpngMessage(png))")
            }
            var encoded = [UInt8](repeating: 0, count: Int(size))
            let written = encoded.withUnsafeMutableBytes { out in
                png_image_write_to_memory(&png, out.baseAddress, &size, 0, pixels.baseAddress, 0, nil)
            }
            guard written != 0 else { throw ImageFileError(file: path, message: "cannot be encoded as PNG") }
            return Array(encoded.prefix(Int(size)))
        }
        return bytes
    }
}

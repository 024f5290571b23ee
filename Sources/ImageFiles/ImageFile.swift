#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FileIO
import Images

/// Reads PNG and JPEG files into 8-bit `Image`s, for feeding image inputs to
/// the runtime.
///
/// The format is recognised by content (magic bytes), never by extension.
/// Grayscale files (gray PNG, with or without alpha, at any bit depth;
/// single-component JPEG) come back with 1 channel; everything else
/// (RGB, RGBA, palette and 16-bit PNG, YCbCr and CMYK JPEG) as 3-channel RGB.
///
/// - Alpha is dropped, not composited: the color samples are kept as stored,
///   as `cv2.imread(path, cv2.IMREAD_COLOR)` does.
/// - 16-bit PNG samples are reduced to 8 bits (`round(v * 255 / 65535)`);
///   without a gAMA/sRGB chunk they are taken as sRGB, not linear.
/// - PNG files with a gAMA chunk are converted to sRGB by libpng.
/// - CMYK/YCCK JPEG is taken as Adobe-inverted CMYK and converted with
///   OpenCV's formula (`R = K - (255 - C) * K / 256`); no color management.
/// - The EXIF orientation of a JPEG (APP1) or a PNG (eXIf chunk) is applied
///   by default, as OpenCV's imread and imdecode apply it (`ExifOrientation`;
///   `.ignore` keeps the pixels as stored, as `IMREAD_IGNORE_ORIENTATION` does).
/// - libjpeg warnings (a truncated file, corrupt data) are errors: a damaged
///   file does not silently decode with gray blocks.
public enum ImageFile {
    /// Images larger than this many pixels are refused before any pixel
    /// memory is allocated (decompression bombs): 100 megapixels.
    public static let maximumPixels = 100_000_000

    /// Reads and decodes the PNG or JPEG file at `path`, a JPEG turned as
    /// its EXIF orientation says unless `orientation` is `.ignore`.
    /// - Throws: `ImageFileError` naming `path`, when the file cannot be read,
    ///   is not a PNG or JPEG image, is corrupt, or is too large.
    public static func read(path: String, orientation: ExifOrientation.Handling = .apply) throws(ImageFileError) -> Image {
        let bytes = try readBytes(path: path)
        return try decode(bytes, name: path, orientation: orientation)
    }

    /// Decodes PNG or JPEG bytes; `name` is used in error messages.
    /// - Throws: `ImageFileError` naming `name`.
    public static func decode(_ bytes: [UInt8], name: String, orientation: ExifOrientation.Handling = .apply) throws(ImageFileError) -> Image {
        // withUnsafeBytes rethrows untyped errors: carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(ImageFileError) -> Image in try decode(buffer, name: name, orientation: orientation) }
        }
        return try result.get()
    }

    /// Decodes PNG or JPEG bytes; `name` is used in error messages.
    /// - Throws: `ImageFileError` naming `name`.
    public static func decode(_ bytes: UnsafeRawBufferPointer, name: String,
                              orientation: ExifOrientation.Handling = .apply) throws(ImageFileError) -> Image {
        guard !bytes.isEmpty else {
            throw ImageFileError(file: name, message: "empty file")
        }
        if bytes.starts(with: pngSignature) {
            let image = try PNGDecoder.decode(bytes, name: name)
            guard orientation == .apply, let turn = ExifOrientation.orientation(ofPNG: bytes) else { return image }
            return ExifOrientation.apply(turn, to: image)
        }
        if bytes.starts(with: jpegSignature) {
            let image = try JPEGDecoder.decode(bytes, name: name)
            guard orientation == .apply, let turn = ExifOrientation.orientation(ofJPEG: bytes) else { return image }
            return ExifOrientation.apply(turn, to: image)
        }
        throw ImageFileError(file: name, message: "not a PNG or JPEG image")
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let jpegSignature: [UInt8] = [0xFF, 0xD8, 0xFF]

    /// Refuses sizes over `maximumPixels` (and empty images), before the
    /// decoder allocates anything for the pixels.
    static func checkSize(width: Int, height: Int, name: String) throws(ImageFileError) {
        guard width > 0, height > 0 else {
            throw ImageFileError(file: name, message: "image has no pixels (\(width)x\(height))")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maximumPixels else {
            let megapixels = overflow ? "too many" : String(pixels / 1_000_000)
            throw ImageFileError(file: name, message: "image is \(width)x\(height) (\(megapixels) megapixels), over the limit of \(maximumPixels / 1_000_000) megapixels")
        }
    }

    /// The whole content of a regular file (a folder, a FIFO or a device
    /// is refused before anything is read).
    static func readBytes(path: String) throws(ImageFileError) -> [UInt8] {
        do {
            return try ReadableFile.bytes(path)
        } catch {
            throw ImageFileError(file: path, message: error.message)
        }
    }
}

/// Why an image file cannot be read: one line naming the file, such as
/// `photo.jpg: not a PNG or JPEG image` or `photo.png: corrupt PNG: ...`.
public struct ImageFileError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The path (or name) of the file, as given to `ImageFile`.
    public var file: String
    /// What is wrong with it, without the file name.
    public var message: String

    public init(file: String, message: String) {
        self.file = file
        // Library messages sometimes end in a newline; keep the error on one line.
        self.message = message.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    public var description: String { "\(file): \(message)" }
}

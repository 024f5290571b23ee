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
    /// The file is mapped, not read: the decoder touches only the bytes it
    /// decodes, at most `usableLength` of them (a PNG or JPEG followed by
    /// gigabytes of garbage, or of a sparse file's hole, costs nothing).
    public static func read(path: String, orientation: ExifOrientation.Handling = .apply) throws(ImageFileError) -> Image {
        let file: MappedFile
        do {
            file = try MappedFile(path: path)
        } catch let error as FileError {
            throw ImageFileError(file: path, message: error.message)
        } catch {
            throw ImageFileError(file: path, message: "\(error)")
        }
        return try withExtendedLifetime(file) { () throws(ImageFileError) -> Image in
            try decode(file.bytes, name: path, orientation: orientation)
        }
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
        if bytes.starts(with: pngSignature) { return try decode(bytes, name: name, orientation: orientation, with: PNGDecoder.self) }
        if bytes.starts(with: jpegSignature) { return try decode(bytes, name: name, orientation: orientation, with: JPEGDecoder.self) }
        throw ImageFileError(file: name, message: "not a PNG or JPEG image")
    }

    /// `bytes` decoded by `Decoder`, which is given only the prefix it can
    /// use, and turned as the file's EXIF orientation says when `orientation` is `.apply`.
    private static func decode<Decoder: ImageDecoder>(_ bytes: UnsafeRawBufferPointer, name: String, orientation: ExifOrientation.Handling,
                                                      with decoder: Decoder.Type) throws(ImageFileError) -> Image {
        let usable = try Decoder.usableLength(bytes, name: name)
        let prefix = UnsafeRawBufferPointer(rebasing: bytes[..<usable])
        let image = try cutShort(prefix, of: bytes.count, format: Decoder.format) { () throws(ImageFileError) in
            try Decoder.decode(prefix, name: name)
        }
        guard orientation == .apply, let turn = Decoder.orientation(prefix) else { return image }
        return ExifOrientation.apply(turn, to: image)
    }

    /// Bytes a PNG or JPEG may hold besides what its pixels need (ICC
    /// profiles, text, EXIF, tables) and still be decoded: 16 MiB. A decoder
    /// is given at most this plus a bound on its pixel data's encoded size
    /// (`PNGDecoder.usableLength`, `JPEGDecoder.usableLength`); what lies
    /// past that is never read.
    public static let maximumMetadataBytes = 16 << 20

    /// Runs `decode` on `prefix`, and when it fails on a prefix shorter than
    /// the file, says that the rest was not read, and why.
    static func cutShort(_ prefix: UnsafeRawBufferPointer, of total: Int, format: String,
                         _ decode: () throws(ImageFileError) -> Image) throws(ImageFileError) -> Image {
        do {
            return try decode()
        } catch where prefix.count < total {
            throw ImageFileError(file: error.file, message: error.message + " (only the first \(prefix.count) of the file's \(total) bytes were read: "
                                 + "all that a \(format) of its declared size can use)")
        }
    }

    /// The big-endian integer of `size` bytes at `offset` (the caller checked the bounds).
    static func bigEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int, size: Int) -> Int {
        (0..<size).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
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
}

/// What `ImageFile.decode` asks of one format's decoder.
protocol ImageDecoder {
    /// The format's name in messages: `PNG`.
    static var format: String { get }
    /// How many leading bytes of the file the decoder may read.
    static func usableLength(_ bytes: UnsafeRawBufferPointer, name: String) throws(ImageFileError) -> Int
    static func decode(_ bytes: UnsafeRawBufferPointer, name: String) throws(ImageFileError) -> Image
    /// The EXIF orientation the file states, if any.
    static func orientation(_ bytes: UnsafeRawBufferPointer) -> Int?
}

extension PNGDecoder: ImageDecoder {
    static var format: String { "PNG" }
    static func orientation(_ bytes: UnsafeRawBufferPointer) -> Int? { ExifOrientation.orientation(ofPNG: bytes) }
}

extension JPEGDecoder: ImageDecoder {
    static var format: String { "JPEG" }
    static func orientation(_ bytes: UnsafeRawBufferPointer) -> Int? { ExifOrientation.orientation(ofJPEG: bytes) }
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

/// Decoded pixels: 8-bit, interleaved, 1 (gray) or 3 (R, G, B) channels.
public struct Image: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var channels: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(channels == 1 || channels == 3, "images have 1 or 3 channels")
        precondition(pixels.count == width * height * channels, "\(pixels.count) bytes for \(width)x\(height)x\(channels)")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }
}

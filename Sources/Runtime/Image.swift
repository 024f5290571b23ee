import Images
import ModelFormat

/// Core ML's image preprocessing: pixels to a [C, H, W] float tensor in the
/// input's channel order, then `scale * x + bias` per channel (scale first),
/// then the mean image subtracted when there is one.
enum Preprocessing {
    static func tensor(from image: Image, for input: ImageInput, name: String) throws(RuntimeError) -> Tensor {
        guard image.width == input.width, image.height == input.height else {
            throw RuntimeError("image for input '\(name)' is \(image.width)x\(image.height), the model takes \(input.width)x\(input.height)")
        }
        let pixels = image.width * image.height
        var values = [Float](repeating: 0, count: input.channels * pixels)
        // Source channel for each model channel (gray images feed all three).
        let order: [Int] = switch input.colorSpace {
        case .rgb: [0, 1, 2]
        case .bgr: [2, 1, 0]
        case .grayscale: [0]
        }
        let biases = input.channelBiases
        for (c, source) in order.enumerated() {
            for p in 0..<pixels {
                let raw: Float
                if input.colorSpace == .grayscale && image.channels == 3 {
                    // ITU-R BT.601 luma, as image libraries convert RGB to gray.
                    let r = Float(image.pixels[3 * p]), g = Float(image.pixels[3 * p + 1]), b = Float(image.pixels[3 * p + 2])
                    raw = (0.299 * r + 0.587 * g + 0.114 * b).rounded()
                } else {
                    raw = Float(image.pixels[p * image.channels + (image.channels == 1 ? 0 : source)])
                }
                values[c * pixels + p] = input.scale * raw + biases[c]
            }
        }
        if let mean = input.meanImage {
            mean.withUnsafeBufferPointer { m in
                for i in values.indices { values[i] -= m[i] }
            }
        }
        return Tensor(shape: TensorShape(channels: input.channels, height: input.height, width: input.width), values: values)
    }
}

import ModelFormat
import Runtime
import XCTest

/// Max pooling over many window geometries (kernel, stride, each padding
/// mode, windows that reach past every edge) against the definition: the
/// largest input pixel inside the window clipped to the input. The layer
/// fixtures compare a few geometries with OpenCV; these sweep the edges of
/// the runtime's fast path for interior windows.
final class MaxPoolingWindowTests: XCTestCase {
    struct Geometry {
        var kernel: Size2, stride: Size2, padding: WindowPadding
        /// Leading padding and where windows are cut off (Caffe clips to the padded input).
        var padTop: Int, padLeft: Int, limit: (height: Int, width: Int)?
    }

    static func geometries(height: Int, width: Int) -> [Geometry] {
        var result: [Geometry] = []
        for kh in 1...3 { for kw in 1...4 { for sh in 1...3 { for sw in [1, 2, 3] {
            let (k, s) = (Size2(kh, kw), Size2(sh, sw))
            for (top, left, bottom, right) in [(0, 0, 0, 0), (1, 2, 0, 1), (2, 0, 2, 3)]
            where top < kh && left < kw && bottom < kh && right < kw {
                result.append(Geometry(kernel: k, stride: s, padding: .explicit(Edges(top: top, bottom: bottom, left: left, right: right)),
                                       padTop: top, padLeft: left, limit: nil))
            }
            for (ph, pw) in [(0, 0), (1, 0), (0, 2)] where ph < kh && pw < kw {
                result.append(Geometry(kernel: k, stride: s, padding: .includeLastPixel(Size2(ph, pw)),
                                       padTop: ph, padLeft: pw, limit: (height + ph, width + pw)))
            }
            // TensorFlow SAME: output ceil(in / s), the odd padding pixel at the bottom/right.
            func leading(_ size: Int, _ k: Int, _ s: Int) -> Int {
                max(((size + s - 1) / s - 1) * s + k - size, 0) / 2
            }
            result.append(Geometry(kernel: k, stride: s, padding: .same(topLeftHeavy: false),
                                   padTop: leading(height, kh, sh), padLeft: leading(width, kw, sw), limit: nil))
        } } } }
        return result
    }

    func testEveryWindowIsTheMaximumOfItsClippedPixels() throws {
        let (channels, height, width) = (2, 7, 9)
        var generator = SystemRandomNumberGenerator()
        let values = (0..<channels * height * width).map { _ in Float.random(in: -5...5, using: &generator) }
        for geometry in Self.geometries(height: height, width: width) {
            let pool = Pooling(kind: .max, kernel: geometry.kernel, stride: geometry.stride, padding: geometry.padding)
            let model = Model(inputs: [Input(name: "x", kind: .array(shape: [channels, height, width]))],
                              outputs: [Output(name: "pool")], nodes: [Node("pool", .pooling(pool), input: "x")])
            let network = try Network(model)
            let shape = network.shapes["pool"]!
            let input = Tensor(shape: TensorShape(channels: channels, height: height, width: width), values: values)
            let result = try XCTUnwrap(network.predict(["x": .array(input)]).outputs["pool"]).values

            var expected: [Float] = []
            for c in 0..<channels { for oy in 0..<shape.height { for ox in 0..<shape.width {
                let y0 = oy * geometry.stride.height - geometry.padTop, x0 = ox * geometry.stride.width - geometry.padLeft
                var y1 = y0 + geometry.kernel.height, x1 = x0 + geometry.kernel.width
                if let limit = geometry.limit { (y1, x1) = (min(y1, limit.height), min(x1, limit.width)) }
                var best = -Float.infinity
                for y in max(y0, 0)..<max(min(y1, height), max(y0, 0)) {
                    for x in max(x0, 0)..<max(min(x1, width), max(x0, 0)) { best = max(best, values[(c * height + y) * width + x]) }
                }
                expected.append(best)
            } } }
            XCTAssertEqual(result, expected, "\(geometry.kernel) stride \(geometry.stride) \(geometry.padding) -> \(shape)")
        }
    }
}

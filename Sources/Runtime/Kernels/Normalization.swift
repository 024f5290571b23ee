import Foundation
import ModelFormat

/// Local response normalization across channels, Core ML's form:
/// y = x / (k + alpha / n * sum(x²))^beta over the n channels around c
/// (from c - (n-1)/2, as Caffe centres the window).
struct LRNKernel: Kernel {
    let lrn: LRN
    let shape: TensorShape

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        let (channels, pixels) = (shape.channels, shape.planeSize)
        let before = (lrn.localSize - 1) / 2
        let alphaOverN = lrn.alpha / Float(lrn.localSize)
        inputs[0].values.withUnsafeBufferPointer { x in
            outputs[0].values.withUnsafeMutableBufferPointer { y in
                // Per channel: sum the squares of its window plane by plane
                // (contiguous, vectorizable), then scale.
                parallelFor(channels, cost: workCost(pixels, lrn.localSize)) { range in
                    var sums = [Float](repeating: 0, count: pixels)
                    for c in range {
                        let first = max(c - before, 0), last = min(c - before + lrn.localSize, channels)
                        for p in 0..<pixels { sums[p] = 0 }
                        for d in first..<last {
                            let plane = x.baseAddress! + d * pixels
                            for p in 0..<pixels { sums[p] += plane[p] * plane[p] }
                        }
                        let source = x.baseAddress! + c * pixels, target = y.baseAddress! + c * pixels
                        let (k, beta) = (lrn.k, lrn.beta)
                        if beta == 0.75 {
                            // The beta of AlexNet-style nets, without pow (which costs more
                            // than the rest of the layer): b^0.75 = sqrt(b) * sqrt(sqrt(b)).
                            for p in 0..<pixels {
                                let root = (k + alphaOverN * sums[p]).squareRoot()
                                target[p] = source[p] / (root * root.squareRoot())
                            }
                        } else {
                            for p in 0..<pixels { target[p] = source[p] / pow(k + alphaOverN * sums[p], beta) }
                        }
                    }
                }
            }
        }
    }
}

extension LRN: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        LRNKernel(lrn: self, shape: inputs[0])
    }
}

import Foundation
import ModelFormat

/// y = f(scale * x + shift) for Core ML's unary functions.
struct UnaryKernel: Kernel {
    let unary: Unary

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        let (scale, shift, alpha, epsilon) = (unary.scale, unary.shift, unary.alpha, unary.epsilon)
        let f: (Float) -> Float
        switch unary.kind {
        case .sqrt: f = { $0.squareRoot() }
        case .rsqrt: f = { 1 / ($0 + epsilon).squareRoot() }
        case .inverse: f = { 1 / ($0 + epsilon) }
        case .power: f = { pow($0, alpha) }
        case .exp: f = { exp($0) }
        case .log: f = { log($0 + epsilon) }
        case .abs: f = { abs($0) }
        case .threshold: f = { max($0, alpha) }
        }
        inputs[0].values.withUnsafeBufferPointer { x in
            outputs[0].values.withUnsafeMutableBufferPointer { y in
                for i in 0..<x.count { y[i] = f(scale * x[i] + shift) }
            }
        }
    }
}

extension Unary: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        UnaryKernel(unary: self)
    }
}

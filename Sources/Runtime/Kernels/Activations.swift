import Foundation
import ModelFormat

/// Element-wise activation functions. PReLU and parametric softplus take
/// one parameter per channel (or one shared by all).
struct ActivationKernel: Kernel {
    let activation: Activation
    let shape: TensorShape

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        let pixels = shape.planeSize
        inputs[0].values.withUnsafeBufferPointer { x in
            outputs[0].values.withUnsafeMutableBufferPointer { y in
                switch activation {
                case .prelu(let alpha):
                    perChannel(alpha, x, y, pixels) { v, a in v >= 0 ? v : a * v }
                case .parametricSoftplus(let alpha, let beta):
                    for c in 0..<shape.channels {
                        let a = alpha[alpha.count == 1 ? 0 : c], b = beta[beta.count == 1 ? 0 : c]
                        for i in c * pixels..<(c + 1) * pixels { y[i] = a * log1p(exp(b * x[i])) }
                    }
                case .relu:
                    // The common cases as plain loops the compiler vectorizes.
                    parallelFor(x.count, cost: 1) { range in for i in range { y[i] = Swift.max(x[i], 0) } }
                case .clip(let low, let high):
                    parallelFor(x.count, cost: 1) { range in for i in range { y[i] = Swift.min(Swift.max(x[i], low), high) } }
                case .leakyRelu(let alpha):
                    parallelFor(x.count, cost: 1) { range in for i in range { y[i] = x[i] >= 0 ? x[i] : alpha * x[i] } }
                case .linear(let alpha, let beta):
                    parallelFor(x.count, cost: 1) { range in for i in range { y[i] = alpha * x[i] + beta } }
                default:
                    let f = Self.function(activation)
                    parallelFor(x.count, cost: 4) { range in
                        for i in range { y[i] = f(x[i]) }
                    }
                }
            }
        }
    }

    /// y[c, i] = f(x[c, i], parameter[c]).
    private func perChannel(_ parameters: Weights, _ x: UnsafeBufferPointer<Float>, _ y: UnsafeMutableBufferPointer<Float>,
                            _ pixels: Int, _ f: (Float, Float) -> Float) {
        parameters.withUnsafeBufferPointer { p in
            for c in 0..<shape.channels {
                let parameter = p[p.count == 1 ? 0 : c]
                for i in c * pixels..<(c + 1) * pixels { y[i] = f(x[i], parameter) }
            }
        }
    }

    /// The scalar function of a parameter-free (or scalar-parameter) activation.
    static func function(_ activation: Activation) -> @Sendable (Float) -> Float {
        switch activation {
        case .relu: return { max($0, 0) }
        case .leakyRelu(let alpha): return { $0 >= 0 ? $0 : alpha * $0 }
        case .thresholdedRelu(let alpha): return { $0 > alpha ? $0 : 0 }
        case .tanh: return { Foundation.tanh($0) }
        case .scaledTanh(let alpha, let beta): return { alpha * Foundation.tanh(beta * $0) }
        case .sigmoid: return { 1 / (1 + exp(-$0)) }
        case .sigmoidHard(let alpha, let beta): return { min(max(alpha * $0 + beta, 0), 1) }
        case .elu(let alpha): return { $0 >= 0 ? $0 : alpha * (exp($0) - 1) }
        case .softsign: return { $0 / (1 + abs($0)) }
        case .softplus: return { $0 > 20 ? $0 : log1p(exp($0)) }
        case .linear(let alpha, let beta): return { alpha * $0 + beta }
        case .clip(let low, let high): return { min(max($0, low), high) }
        case .prelu, .parametricSoftplus: preconditionFailure("per-channel activations are handled by run")
        }
    }
}

extension Activation: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        ActivationKernel(activation: self, shape: inputs[0])
    }
}

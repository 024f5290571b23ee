import Foundation
import ModelFormat

/// GELU element-wise, in the definition's mode.
struct GELUKernel: Kernel {
    let mode: GELU.Mode

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        inputs[0].values.withUnsafeBufferPointer { x in
            outputs[0].values.withUnsafeMutableBufferPointer { y in
                switch mode {
                case .exact:
                    for i in 0..<x.count { y[i] = 0.5 * x[i] * (1 + erf(x[i] * Float(0.5).squareRoot())) }
                case .tanhApproximation:
                    let c = (2 / Float.pi).squareRoot()
                    for i in 0..<x.count { y[i] = 0.5 * x[i] * (1 + tanh(c * (x[i] + 0.044715 * x[i] * x[i] * x[i]))) }
                case .sigmoidApproximation:
                    for i in 0..<x.count { y[i] = x[i] / (1 + exp(-1.702 * x[i])) }
                }
            }
        }
    }
}

extension GELU: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        GELUKernel(mode: mode)
    }
}

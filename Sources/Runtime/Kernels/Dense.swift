import ModelFormat

/// Inner product: y = W x + b over the flattened [C, H, W] input, with
/// W stored [outputChannels, inputChannels].
struct InnerProductKernel: ReLUFusing {
    let product: InnerProduct
    /// Also applies max(0, y) (a ReLU folded in by the network).
    var fusedReLU = false

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        let (rows, columns) = (product.outputChannels, product.inputChannels)
        product.weights.withUnsafeBufferPointer { w in
            inputs[0].values.withUnsafeBufferPointer { x in
                outputs[0].values.withUnsafeMutableBufferPointer { y in
                    if let bias = product.bias {
                        bias.withUnsafeBufferPointer { b in _ = y.update(fromContentsOf: b) }
                    } else {
                        y.update(repeating: 0)
                    }
                    MatrixProduct.multiply(rows: rows, columns: columns, w.baseAddress!, x.baseAddress!, beta: 1, y.baseAddress!)
                    finishChannels(y, bias: nil, pixels: 1, relu: fusedReLU)  // the bias is in y already
                }
            }
        }
    }
}

extension InnerProduct: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        InnerProductKernel(product: self)
    }
}

/// Every operation of the IR, in the order `Op`'s cases list them and then
/// the `Op.defined(_:)` ones (the backend reads layers in this order:
/// `layerCodings`). A new `OpDefinition` joins this list; the
/// suite checks that each one listed has a Core ML coding, a runtime
/// kernel and a written-and-read round trip (`AllOperationsTests`), and
/// that no conformance in this folder is missing from it.
public let allOperations: [any OpDefinition.Type] = [
    Convolution.self, Pooling.self, InnerProduct.self, Activation.self, BatchNorm.self, Scale.self, Bias.self,
    LRN.self, Elementwise.self, Unary.self, L2Normalize.self, Flatten.self,
    Reshape.self, Padding.self, Crop.self, Slice.self, Split.self, Upsample.self,
    Constant.self, MatMul.self, Softmax.self, Transpose.self, GELU.self, Concat.self,
    Reduce.self, LogSoftmax.self, LayerNorm.self, Comparison.self, Where.self, CumSum.self,
]

/// The graph passes every frontend runs, in order, repeated until none
/// changes the graph (at most `maximumRounds` times).
///
/// Order matters: a batch norm folds into its convolution first, so that a
/// following Caffe Scale layer then meets the convolution and folds too;
/// a BatchNorm + Scale pair with no convolution before it merges after;
/// biases (TensorFlow's BiasAdd, the additive half of an unfused batch
/// norm) fold last, once the scales before them have. A zero padding folds
/// into the convolution after it at any point.
public enum Pipeline {
    public static let passes: [(name: String, run: @Sendable (inout Model) -> Bool)] = [
        ("fold zero padding into convolution", foldPaddingIntoConvolution),
        ("fold batch norm into convolution", foldBatchNormIntoConvolution),
        ("fold scale into convolution", foldScaleIntoConvolution),
        ("merge scale into batch norm", mergeScaleIntoBatchNorm),
        ("fold bias into convolution or inner product", foldBiasIntoLinearLayer),
    ]

    public static let maximumRounds = 8

    /// Runs the passes on `model` until nothing changes.
    public static func run(_ model: inout Model) {
        for _ in 0..<maximumRounds {
            var changed = false
            for pass in passes where pass.run(&model) { changed = true }
            if !changed { return }
        }
    }
}

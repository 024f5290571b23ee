import Naming

extension OptionName {
    /// How the programs spell the option on their command lines, for the
    /// library's messages that mention it (`String.namingOptions(\.flag)`).
    public var flag: String {
        switch self {
        case .inputShape: "--input-shape"
        case .imageInput: "--image-input"
        case .yoloAnchors: "--yolo-anchors"
        case .addSoftmax: "--add-softmax"
        case .classMap: "--class-map"
        case .weightStats: "--weight-stats"
        case .probe: "--probe"
        case .allowNonFinite: "--allow-non-finite"
        // NonMaximumSuppression's hint names the program: the threshold is coreml-predict's alone.
        case .confidenceThreshold: "predict --confidence-threshold"
        case .genericKernels: "--generic-kernels"
        case .weights: "--weights"
        case .json: "--json"
        case .detector: "--detector"
        case .classLabels: "--class-labels"
        case .rowsPerClass: "--rows-per-class"
        case .ignoreTopK: "--ignore-top-k"
        case .convertTo: "--convert-to mlprogram"
        case .computePrecision: "--compute-precision"
        }
    }
}

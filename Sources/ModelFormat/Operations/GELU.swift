/// The Gaussian error linear unit, `x * Phi(x)` with Phi the standard
/// normal distribution function, element-wise on a tensor of any rank:
/// exactly (`0.5 * x * (1 + erf(x / sqrt(2)))`) or by one of the two
/// approximations BERT-era models use.
public struct GELU: OpDefinition, Equatable {
    public enum Mode: String, Sendable, CaseIterable {
        /// `0.5 * x * (1 + erf(x / sqrt(2)))`.
        case exact
        /// `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`.
        case tanhApproximation
        /// `x * sigmoid(1.702 * x)`.
        case sigmoidApproximation
    }
    public var mode: Mode

    public init(mode: Mode = .exact) {
        self.mode = mode
    }

    public var kindName: String { "gelu" }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        [inputs[0]]
    }

    public var attributes: [OpAttribute] {
        [OpAttribute("mode", .string(mode.rawValue), text: mode == .exact ? nil : mode.rawValue)]
    }
}

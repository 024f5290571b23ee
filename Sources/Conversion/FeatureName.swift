/// A source tensor's name as a Core ML feature name: ASCII letters, digits
/// and `_`, every other character `_`, and `_` before a leading digit or in
/// place of an empty name (ONNX and TFLite name their inputs and outputs
/// freely; Core ML's generated classes need identifiers).
public enum FeatureName {
    public static func sanitized(_ tensor: String) -> String {
        let name = String(tensor.map { $0.isASCII && ($0.isLetter || $0.isNumber) || $0 == "_" ? $0 : "_" })
        return name.first?.isNumber == true || name.isEmpty ? "_" + name : name
    }
}

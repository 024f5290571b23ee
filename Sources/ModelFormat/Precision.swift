/// How weight values are stored in the file.
public enum Precision: String, Equatable, Sendable, CaseIterable, Comparable {
    case float16, float32, float64

    public var bytesPerValue: Int {
        switch self {
        case .float16: 2
        case .float32: 4
        case .float64: 8
        }
    }

    public static func < (lhs: Precision, rhs: Precision) -> Bool { lhs.bytesPerValue < rhs.bytesPerValue }
}

import CoreMLBackend

/// One input or output of the generated classes: its Core ML feature, the
/// property that holds it, and how each language types and converts it.
struct GeneratedFeature {
    enum Kind: Equatable {
        case image(width: Int, height: Int, grayscale: Bool)
        /// `scalar`: the element type `MLShapedArray` takes, nil for one it
        /// has no Swift type for here (float16).
        case array(scalar: String?, text: String)
        case double, int64, string
        case dictionary(stringKeys: Bool)
    }

    var feature: CoreMLInterface.Feature
    var kind: Kind
    /// The Swift property name, an identifier (a keyword in backticks where used).
    var swiftName: String
    var objcName: String

    var name: String { feature.name }
    var isOptional: Bool { feature.isOptional }

    init(_ feature: CoreMLInterface.Feature, swiftName: String, objcName: String) {
        self.feature = feature
        self.swiftName = swiftName
        self.objcName = objcName
        switch feature.type {
        case .image(let colorSpace, let width, let height):
            kind = .image(width: width, height: height, grayscale: colorSpace == "Grayscale")
        case .multiArray(let dataType, let shape):
            kind = .array(scalar: Self.scalar(dataType), text: Self.arrayText(shape.map(String.init), dataType))
        case .multiArrayRange(let dataType, let lower, let upper):
            let dimensions = zip(lower, upper).map { low, high in high.map { $0 == low ? "\(low)" : "\(low)...\($0)" } ?? "\(low)..." }
            kind = .array(scalar: Self.scalar(dataType), text: Self.arrayText(dimensions, dataType))
        case .double: kind = .double
        case .int64: kind = .int64
        case .string: kind = .string
        case .dictionary(let keyType): kind = .dictionary(stringKeys: keyType != "int64")
        }
    }

    /// "10-element vector of floats", "6 × 4 matrix of doubles", "3 × 32 × 32 array of floats".
    private static func arrayText(_ dimensions: [String], _ dataType: String) -> String {
        let shape = switch dimensions.count {
        case 0: "multidimensional array"
        case 1: "\(dimensions[0])-element vector"
        case 2: dimensions.joined(separator: " × ") + " matrix"
        default: dimensions.joined(separator: " × ") + " array"
        }
        return shape + " of " + elements(dataType)
    }

    private static func scalar(_ dataType: String) -> String? {
        switch dataType {
        case "double": "Double"
        case "int32": "Int32"
        case "float32": "Float"
        default: nil
        }
    }

    private static func elements(_ dataType: String) -> String {
        switch dataType {
        case "double": "doubles"
        case "int32": "32-bit integers"
        case "float16": "16-bit floats"
        default: "floats"
        }
    }

    /// The pixel format Core ML converts pictures to for this image input.
    var pixelFormat: String {
        if case .image(_, _, true) = kind { "kCVPixelFormatType_OneComponent8" } else { "kCVPixelFormatType_32ARGB" }
    }

    /// "image as color (kCVPixelFormatType_32BGRA) image buffer, 227 pixels
    /// wide by 227 pixels high", as Xcode describes features: the feature's
    /// description (else its name), then its type.
    var documentation: String {
        let subject = feature.description.isEmpty ? feature.name : feature.description
        let type = switch kind {
        case .image(let width, let height, let grayscale):
            (grayscale ? "grayscale (kCVPixelFormatType_OneComponent8)" : "color (kCVPixelFormatType_32BGRA)")
                + " image buffer, \(width) pixels wide by \(height) pixels high"
        case .array(_, let text): text
        case .double: "double value"
        case .int64: "integer value"
        case .string: "string value"
        case .dictionary(let stringKeys): stringKeys ? "dictionary of strings to doubles" : "dictionary of 64-bit integers to doubles"
        }
        return (isOptional ? "(optional) " : "") + subject + " as " + type
    }

    // MARK: Swift

    var swiftIdentifier: String {
        Identifiers.swiftKeywords.contains(swiftName) ? "`\(swiftName)`" : swiftName
    }

    /// The name as an argument label in a call: keywords need no backticks
    /// there, but for `inout`, `var` and `let`.
    var swiftLabel: String {
        ["inout", "var", "let"].contains(swiftName) ? "`\(swiftName)`" : swiftName
    }

    /// The property's type, without the optional mark.
    var swiftType: String {
        switch kind {
        case .image: "CVPixelBuffer"
        case .array: "MLMultiArray"
        case .double: "Double"
        case .int64: "Int64"
        case .string: "String"
        case .dictionary(let stringKeys): stringKeys ? "[String : Double]" : "[Int64 : Double]"
        }
    }

    var swiftDeclaredType: String { swiftType + (isOptional ? "?" : "") }

    /// The `MLFeatureValue` of `value` (an expression of `swiftType`);
    /// `insideTry`: within an expression that is tried already.
    func swiftFeatureValue(_ value: String, insideTry: Bool = false) -> String {
        switch kind {
        case .image: "MLFeatureValue(pixelBuffer: \(value))"
        case .array: "MLFeatureValue(multiArray: \(value))"
        case .double: "MLFeatureValue(double: \(value))"
        case .int64: "MLFeatureValue(int64: \(value))"
        case .string: "MLFeatureValue(string: \(value))"
        case .dictionary: (insideTry ? "" : "try? ") + "MLFeatureValue(dictionary: \(value) as [AnyHashable : NSNumber])"
        }
    }

    /// The value of `feature` (an `MLFeatureValue`) as `swiftType`.
    func swiftValue(of feature: String) -> String {
        switch kind {
        case .image: "\(feature).imageBufferValue!"
        case .array: "\(feature).multiArrayValue!"
        case .double: "\(feature).doubleValue"
        case .int64: "\(feature).int64Value"
        case .string: "\(feature).stringValue"
        case .dictionary: "\(feature).dictionaryValue as! \(swiftType)"
        }
    }

    /// `MLShapedArray<Float>` for an array of a known element type.
    var swiftShapedType: String? {
        if case .array(let scalar?, _) = kind { "MLShapedArray<\(scalar)>" } else { nil }
    }

    // MARK: Objective-C

    /// The property's type in a declaration: `CVPixelBufferRef`, `MLMultiArray *`.
    var objcType: String {
        switch kind {
        case .image: "CVPixelBufferRef"
        case .array: "MLMultiArray *"
        case .double: isOptional ? "NSNumber *" : "double"
        case .int64: isOptional ? "NSNumber *" : "int64_t"
        case .string: "NSString *"
        case .dictionary(let stringKeys): stringKeys ? "NSDictionary<NSString *, NSNumber *> *" : "NSDictionary<NSNumber *, NSNumber *> *"
        }
    }

    var objcIsObject: Bool {
        switch kind {
        case .image: false
        case .double, .int64: isOptional
        default: true
        }
    }

    /// `nullable` for an optional object feature.
    var objcNullability: String { isOptional ? "_Nullable " : "" }

    /// `@property (...) type name;`
    var objcProperty: String {
        let attributes = (objcIsObject ? "readwrite, nonatomic, strong" : "readwrite, nonatomic") + (isOptional ? ", nullable" : "")
        return "@property (\(attributes)) \(objcType.hasSuffix("*") ? objcType : objcType + " ")\(objcName);"
    }

    /// A parameter's type: `(NSString *)`, `(NSNumber * _Nullable)`,
    /// `(CVPixelBufferRef _Nullable)`.
    var objcParameterType: String {
        let pointer = objcType.hasSuffix("*") || objcType == "CVPixelBufferRef"
        return "(" + objcType + (isOptional && pointer ? " _Nullable" : "") + ")"
    }

    /// The `MLFeatureValue *` of `value`, nil for an absent optional value.
    func objcFeatureValue(_ value: String) -> String {
        switch kind {
        case .image: "[MLFeatureValue featureValueWithPixelBuffer:\(value)]"
        case .array: "[MLFeatureValue featureValueWithMultiArray:\(value)]"
        case .double: isOptional ? "[MLFeatureValue featureValueWithDouble:\(value).doubleValue]" : "[MLFeatureValue featureValueWithDouble:\(value)]"
        case .int64: isOptional ? "[MLFeatureValue featureValueWithInt64:\(value).longLongValue]" : "[MLFeatureValue featureValueWithInt64:\(value)]"
        case .string: "[MLFeatureValue featureValueWithString:\(value)]"
        case .dictionary: "[MLFeatureValue featureValueWithDictionary:\(value) error:nil]"
        }
    }

    /// The value of `feature` (an `MLFeatureValue *`) as `objcType`.
    func objcValue(of feature: String) -> String {
        switch kind {
        case .image: "(CVPixelBufferRef)\(feature).imageBufferValue"
        case .array: "(MLMultiArray *)\(feature).multiArrayValue"
        case .double: "\(feature).doubleValue"
        case .int64: "\(feature).int64Value"
        case .string: "(NSString *)\(feature).stringValue"
        case .dictionary: "(\(objcType))\(feature).dictionaryValue"
        }
    }
}

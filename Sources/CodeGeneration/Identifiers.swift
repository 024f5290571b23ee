/// Feature and model names made into Swift and Objective-C identifiers as
/// Xcode makes them (`image (120x120)` becomes `image__120x120_`, `1x1`
/// becomes `_1x1`), and text from the file made safe inside comments and
/// string literals.
enum Identifiers {
    /// Every character other than an ASCII letter, digit or underscore
    /// becomes `_`; a leading digit gets a `_` in front.
    static func sanitized(_ name: String) -> String {
        var result = String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_") ? scalar : "_"
        }))
        if result.isEmpty || result.first!.isNumber { result = "_" + result }
        return result
    }

    /// Words a Swift declaration cannot take as its name without backticks.
    static let swiftKeywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static",
        "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do",
        "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while",
        "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "async",
        "Type", "Protocol", "consume", "copy", "discard", "each", "borrowing", "consuming", "some", "any",
    ]

    /// The types generated code names: a class called one of them would
    /// hide it from the code (a model file named `URL.mlmodel`).
    static let typesInUse: Set<String> = [
        "MLModel", "MLFeatureProvider", "MLFeatureValue", "MLMultiArray", "MLShapedArray", "MLModelConfiguration",
        "MLPredictionOptions", "MLArrayBatchProvider", "MLBatchProvider", "MLDictionaryFeatureProvider", "CVPixelBuffer",
        "CVPixelBufferRef", "CGImage", "CGImageRef", "URL", "Bundle", "FileManager", "UUID", "String", "Double", "Float",
        "Int32", "Int64", "Set", "Swift", "Error", "Result", "NSNumber", "AnyHashable", "CoreML", "Foundation",
        "NSObject", "NSString", "NSURL", "NSError", "NSSet", "NSArray", "NSMutableArray", "NSDictionary", "NSBundle",
        "NSFileManager", "NSUUID", "NSInteger", "NSUInteger",
    ]

    /// Words an Objective-C property or selector part cannot be (C's and
    /// Objective-C's keywords and NSObject's own methods), and the names
    /// ARC reads as returning an owned object.
    static func isReservedInObjC(_ name: String) -> Bool {
        if objcReserved.contains(name) { return true }
        let trimmed = name.drop { $0 == "_" }
        return ["alloc", "copy", "init", "mutableCopy", "new"].contains { family in
            trimmed.hasPrefix(family) && (trimmed.count == family.count
                || !trimmed[trimmed.index(trimmed.startIndex, offsetBy: family.count)].isLowercase)
        }
    }

    private static let objcReserved: Set<String> = [
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
        "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
        "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
        "_Bool", "_Complex", "_Imaginary", "bool", "true", "false", "asm", "typeof",
        "id", "self", "super", "nil", "Nil", "YES", "NO", "SEL", "BOOL", "Class", "IMP", "in", "out", "inout",
        "bycopy", "byref", "oneway", "instancetype", "class", "hash", "description", "debugDescription",
        "superclass", "zone", "retain", "release", "autorelease", "retainCount", "dealloc", "isProxy",
        "error",  // the last parameter of the methods that take the features
    ]

    /// A name unique in `taken` (which it joins): `name`, else `name_`, `name__`...
    static func unique(_ name: String, in taken: inout Set<String>) -> String {
        var candidate = name
        while taken.contains(candidate) { candidate += "_" }
        taken.insert(candidate)
        return candidate
    }

    /// `text` as the inside of a Swift string literal.
    static func swiftLiteral(_ text: String) -> String {
        escaped(text) { scalar in
            literalEscapes[scalar] ?? (isInvisible(scalar) ? "\\u{\(String(scalar.value, radix: 16))}" : nil)
        }
    }

    /// `text` as the inside of an Objective-C `@"..."` literal.
    static func objcLiteral(_ text: String) -> String {
        escaped(text) { scalar in
            if let escape = literalEscapes[scalar] { return escape }
            if scalar == "?" { return "\\?" }  // no trigraphs (`??/`) under -trigraphs
            if scalar.value < 0x20 || scalar.value == 0x7F { return "\\" + padded(String(scalar.value, radix: 8), 3) }
            guard isInvisible(scalar) else { return nil }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return scalar.value > 0xFFFF ? "\\U" + padded(hex, 8) : "\\u" + padded(hex, 4)
        }
    }

    /// What both languages escape alike inside a string literal.
    private static let literalEscapes: [Unicode.Scalar: String] = ["\\": "\\\\", "\"": "\\\"", "\n": "\\n", "\r": "\\r", "\t": "\\t"]

    private static func escaped(_ text: String, _ escape: (Unicode.Scalar) -> String?) -> String {
        text.unicodeScalars.map { escape($0) ?? String($0) }.joined()
    }

    private static func padded(_ digits: String, _ width: Int) -> String {
        String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// `text` as the lines of a `//` comment: split at every line break,
    /// invisible characters written as `\u{...}`, and no line ending in a
    /// backslash (C would splice the next line into the comment).
    static func commentLines(_ text: String) -> [String] {
        var lines: [String] = [""]
        for scalar in text.unicodeScalars {
            if scalar == "\n" || scalar == "\r" || scalar == "\u{2028}" || scalar == "\u{2029}" || scalar == "\u{85}" || scalar == "\u{0B}" || scalar == "\u{0C}" {
                lines.append("")
            } else if isInvisible(scalar), scalar != "\t" {
                lines[lines.count - 1] += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                lines[lines.count - 1].unicodeScalars.append(scalar)
            }
        }
        return lines.map { line in
            var line = line
            while let last = line.last, last == " " || last == "\t" { line.removeLast() }
            // `\{}`: not a line splice (nor `??/`, a backslash under -trigraphs)
            if line.hasSuffix("\\") || line.hasSuffix("??/") { line += "{}" }
            return line
        }
    }

    /// Control, format (bidirectional overrides among them) and separator
    /// characters other than the space: shown escaped, never raw.
    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned, .privateUse: true
        case .spaceSeparator: scalar != " "
        default: false
        }
    }
}

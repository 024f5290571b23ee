/// Text from model files (layer and feature names, labels, metadata) made
/// safe to print on a terminal: control characters would otherwise clear
/// the screen, set the window title or ring the bell (ESC and BEL
/// sequences), forge table rows (a newline in a layer name), or reorder
/// what is shown (Unicode bidirectional overrides). Each becomes a visible
/// escape: `\n`, `\t`, `\r`, or `\u{1B}`. A byte of a path that is not
/// UTF-8 (held as a `PathBytes` scalar) is shown as `\xff`.
public enum TextEscaping {
    /// `text` with every control or bidirectional-formatting character
    /// escaped: one line, whatever the file held.
    public static func line(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            if let byte = PathBytes.rawByte(scalar) {
                result += "\\x" + String(byte, radix: 16)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    /// C0 and C1 controls, DEL, the bidirectional embeddings, overrides
    /// and isolates (U+202A-U+202E, U+2066-U+2069), line and paragraph
    /// separators, U+FFFE / U+FFFF (not allowed in XML, so in SVG), and the
    /// scalars that hold a path's raw bytes (`PathBytes.reserved`).
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0xFFFE, 0xFFFF,
             PathBytes.reserved: true
        default: false
        }
    }
}

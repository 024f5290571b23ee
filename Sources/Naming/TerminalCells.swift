/// How many terminal cells text takes: what tables and line limits are
/// measured in, since a CJK character or an emoji takes two cells and a
/// combining accent none (`"卷积层".count` is 3, its width 6). The rules are
/// wcwidth's: East Asian Wide and Fullwidth characters and emoji shown as
/// emoji take 2, combining marks, format characters and zero-width spaces 0,
/// the rest 1. A character (grapheme cluster) takes the widest of its scalars.
public enum TerminalCells {
    /// The cells `text` takes on a terminal.
    public static func width(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    /// The cells one character takes: 0, 1 or 2.
    public static func width(of character: Character) -> Int {
        character.unicodeScalars.reduce(0) { max($0, width(of: $1)) }
    }

    /// The cells one scalar takes: 0, 1 or 2.
    public static func width(of scalar: Unicode.Scalar) -> Int {
        if scalar.isASCII { return 1 }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if scalar.value == 0x200B || (0x1160...0x11FF).contains(scalar.value) { return 0 }  // zero-width space, Hangul vowels and finals
        if properties.isEmojiPresentation { return 2 }
        return wide.contains { $0.contains(scalar.value) } ? 2 : 1
    }

    /// The end of `text` that fits in `cells` (a wide character that would
    /// straddle the limit is left out).
    public static func suffix(_ text: some StringProtocol, cells: Int) -> String {
        var taken = 0
        var start = text.endIndex
        while start > text.startIndex {
            let previous = text.index(before: start)
            let width = width(of: text[previous])
            guard taken + width <= cells else { break }
            taken += width
            start = previous
        }
        return String(text[start...])
    }

    /// The start of `text` that fits in `cells`.
    public static func prefix(_ text: some StringProtocol, cells: Int) -> String {
        var taken = 0
        var end = text.startIndex
        while end < text.endIndex {
            let width = width(of: text[end])
            guard taken + width <= cells else { break }
            taken += width
            end = text.index(after: end)
        }
        return String(text[..<end])
    }

    /// Unicode's East Asian Wide (W) and Fullwidth (F) blocks: Hangul Jamo
    /// leading consonants, CJK radicals to Yi, Hangul syllables, CJK
    /// compatibility ideographs, vertical and small forms, fullwidth forms,
    /// Tangut and Kana supplements, and the supplementary ideographic planes.
    private static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
        0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
        0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}

/// Splits protobuf text format (prototxt, pbtxt) into tokens, tracking each
/// token's byte offset so errors can say `file:line:column`.
struct TextScanner {
    enum Token: Equatable {
        case identifier(String)
        /// A number as written (sign included), parsed later by field type.
        case number(String)
        /// A quoted string, escapes resolved; adjacent strings concatenate.
        case string([UInt8])
        case symbol(UInt8)
        case end
    }

    let bytes: UnsafeRawBufferPointer
    private(set) var position = 0
    /// Offset of the token `next()` returned last.
    private(set) var tokenStart = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    func error(_ message: String, at offset: Int? = nil) -> DecodeError {
        DecodeError(message, offset: offset ?? tokenStart)
    }

    private func byte(_ index: Int) -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func skipSpaceAndComments() {
        while let c = byte(position) {
            if c == UInt8(ascii: "#") {
                while let d = byte(position), d != UInt8(ascii: "\n") { position += 1 }
            } else if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0B || c == 0x0C {
                position += 1
            } else {
                return
            }
        }
    }

    /// The next token without consuming it.
    mutating func peek() throws(DecodeError) -> Token {
        let saved = (position, tokenStart)
        let token = try next()
        (position, tokenStart) = saved
        return token
    }

    mutating func next() throws(DecodeError) -> Token {
        skipSpaceAndComments()
        tokenStart = position
        guard let c = byte(position) else { return .end }
        if isIdentifierStart(c) {
            while let d = byte(position), isIdentifierStart(d) || isDigit(d) { position += 1 }
            return .identifier(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[tokenStart..<position]), as: UTF8.self))
        }
        if isDigit(c) || ((c == UInt8(ascii: "-") || c == UInt8(ascii: "+") || c == UInt8(ascii: ".")) && startsNumber(at: position)) {
            position += 1
            while let d = byte(position), isDigit(d) || isIdentifierStart(d) || d == UInt8(ascii: ".")
                || ((d == UInt8(ascii: "-") || d == UInt8(ascii: "+")) && (bytes[position - 1] | 0x20) == UInt8(ascii: "e")
                    && !isHex(tokenStart)) {
                position += 1
            }
            return .number(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[tokenStart..<position]), as: UTF8.self))
        }
        if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
            var value: [UInt8] = []
            // Adjacent quoted strings form one value.
            repeat {
                value += try quoted()
                let resume = position
                skipSpaceAndComments()
                guard let d = byte(position), d == UInt8(ascii: "\"") || d == UInt8(ascii: "'") else {
                    position = resume
                    break
                }
            } while true
            return .string(value)
        }
        position += 1
        return .symbol(c)
    }

    private func startsNumber(at index: Int) -> Bool {
        guard let d = byte(index + 1) else { return false }
        return isDigit(d) || d == UInt8(ascii: ".") || (d | 0x20) == UInt8(ascii: "i") || (d | 0x20) == UInt8(ascii: "n")
    }

    private func isHex(_ start: Int) -> Bool {
        var index = start
        if let c = byte(index), c == UInt8(ascii: "-") || c == UInt8(ascii: "+") { index += 1 }
        return byte(index) == UInt8(ascii: "0") && (byte(index + 1) ?? 0) | 0x20 == UInt8(ascii: "x")
    }

    private mutating func quoted() throws(DecodeError) -> [UInt8] {
        let quote = bytes[position]
        let start = position
        position += 1
        var value: [UInt8] = []
        while true {
            guard let c = byte(position), c != 0x0A else { throw error("unterminated string", at: start) }
            position += 1
            if c == quote { return value }
            guard c == UInt8(ascii: "\\") else {
                value.append(c)
                continue
            }
            guard let e = byte(position) else { throw error("unterminated string", at: start) }
            position += 1
            switch e {
            case UInt8(ascii: "n"): value.append(0x0A)
            case UInt8(ascii: "t"): value.append(0x09)
            case UInt8(ascii: "r"): value.append(0x0D)
            case UInt8(ascii: "a"): value.append(0x07)
            case UInt8(ascii: "b"): value.append(0x08)
            case UInt8(ascii: "f"): value.append(0x0C)
            case UInt8(ascii: "v"): value.append(0x0B)
            case UInt8(ascii: "x"), UInt8(ascii: "X"):
                var code = 0, digits = 0
                while digits < 2, let h = byte(position), let v = hexValue(h) {
                    code = code * 16 + v
                    position += 1
                    digits += 1
                }
                guard digits > 0 else { throw error("\\x needs a hex digit", at: position - 2) }
                value.append(UInt8(code))
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var code = Int(e - UInt8(ascii: "0")), digits = 1
                while digits < 3, let o = byte(position), o >= UInt8(ascii: "0"), o <= UInt8(ascii: "7") {
                    code = code * 8 + Int(o - UInt8(ascii: "0"))
                    position += 1
                    digits += 1
                }
                guard code < 256 else { throw error("octal escape \\\(String(code, radix: 8)) is over 255", at: position - digits - 1) }
                value.append(UInt8(code))
            default:
                value.append(e)  // \\ \" \' \? and any other character stand for themselves
            }
        }
    }

    private func isIdentifierStart(_ c: UInt8) -> Bool {
        (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") || c == UInt8(ascii: "_")
    }

    private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    private func hexValue(_ c: UInt8) -> Int? {
        if isDigit(c) { return Int(c - UInt8(ascii: "0")) }
        let lower = c | 0x20
        return lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "f") ? Int(lower - UInt8(ascii: "a")) + 10 : nil
    }
}

/// Line and column (both from 1) of a byte offset in text.
public func lineAndColumn(of offset: Int, in bytes: UnsafeRawBufferPointer) -> (line: Int, column: Int) {
    var line = 1, lineStart = 0
    for index in 0..<min(offset, bytes.count) where bytes[index] == 0x0A {
        line += 1
        lineStart = index + 1
    }
    return (line, offset - lineStart + 1)
}

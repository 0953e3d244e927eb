/// Strings: the part of ``JSONParser`` between quotes (escapes, well-formed UTF-8).
extension JSONParser {
    /// The string whose opening quote was just read; leaves the index after the closing quote.
    mutating func string() throws(Failure) -> String {
        let start = index
        // Fast path: no escapes, so the bytes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(
                    decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            try checkCharacter(byte)
        }
        var buffer = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: buffer, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                try escape(into: &buffer)
            } else {
                let from = index
                try checkCharacter(byte)
                buffer.append(contentsOf: bytes[from..<index])
            }
        }
        throw failure("unexpected end of data in a string")
    }

    /// Checks the character starting with `byte` (a control character or malformed UTF-8 fails)
    /// and moves past it.
    private mutating func checkCharacter(_ byte: UInt8) throws(Failure) {
        if byte < 0x20 { throw failure("unescaped control character \(Self.describe(byte)) in a string") }
        if byte < 0x80 {
            index += 1
            return
        }
        guard let length = Self.utf8Length(bytes, at: index) else {
            throw failure("invalid UTF-8 in a string")
        }
        index += length
    }

    /// The length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates,
    /// nothing above U+10FFFF) that starts at `index` with a byte ≥ 0x80; `nil` if malformed.
    private static func utf8Length(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        let lead = bytes[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            secondRange = 0x80...0x9F
        case 0xF0:
            length = 4
            secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            secondRange = 0x80...0x8F
        default: return nil
        }
        guard bytes.count - index >= length, secondRange.contains(bytes[index + 1]) else { return nil }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return nil }
        return length
    }

    /// A backslash escape, its character appended as UTF-8.
    private mutating func escape(into buffer: inout [UInt8]) throws(Failure) {
        index += 1
        guard index < bytes.count else { throw failure("unexpected end of data in an escape") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            let escapeStart = index - 2
            var scalar = try hexQuad()
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by `\u` and a low one.
                guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else {
                    index = escapeStart
                    throw failure("a \\u escape of a high surrogate without a low one")
                }
                index += 2
                let low = try hexQuad()
                guard (0xDC00...0xDFFF).contains(low) else {
                    index = escapeStart
                    throw failure("a \\u escape of a high surrogate without a low one")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                index = escapeStart
                throw failure("a \\u escape of a lone low surrogate")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("an invalid \\u escape") }
            if let encoded = UTF8.encode(unicode) { buffer.append(contentsOf: encoded) }
        default:
            index -= 1
            throw failure("invalid escape \\\(Self.describe(byte))")
        }
    }

    /// Four hex digits of a `\u` escape.
    private mutating func hexQuad() throws(Failure) -> UInt32 {
        guard bytes.count - index >= 4 else { throw failure("unexpected end of data in a \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}

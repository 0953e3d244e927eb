/// Byte-level percent-encoding, so that nothing is ever encoded twice and the output is exact.
enum PercentEncoding {
    /// A set of ASCII bytes that stay literal.
    struct ByteSet: Sendable {
        private var low: UInt64 = 0
        private var high: UInt64 = 0

        init(_ characters: String) {
            for byte in characters.utf8 { insert(byte) }
        }

        mutating func insert(_ byte: UInt8) {
            if byte < 64 { low |= 1 << UInt64(byte) } else if byte < 128 { high |= 1 << UInt64(byte - 64) }
        }

        func contains(_ byte: UInt8) -> Bool {
            if byte < 64 { return low & (1 << UInt64(byte)) != 0 }
            if byte < 128 { return high & (1 << UInt64(byte - 64)) != 0 }
            return false
        }

        func union(_ other: String) -> ByteSet {
            var copy = self
            for byte in other.utf8 { copy.insert(byte) }
            return copy
        }
    }

    /// RFC 3986 unreserved characters: the only ones literal in query and form keys and values.
    static let unreserved = ByteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    /// What may stay literal inside one path segment: unreserved, sub-delims, `:` and `@`.
    static let pathSegment = unreserved.union("!$&'()*+,;=:@")
    /// Characters that may appear literally in a URL we assemble (besides `%XX` escapes). Never `#`:
    /// a fragment is not sent, so everything after it would be dropped without a word.
    static let urlCharacters = pathSegment.union("/?[]%")

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Appends the percent-encoded UTF-8 form of `text` to `output`.
    static func append(_ text: String, allowing allowed: ByteSet, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            for byte in bytes {
                if allowed.contains(byte) {
                    output.append(byte)
                } else {
                    output.append(UInt8(ascii: "%"))
                    output.append(hexDigits[Int(byte >> 4)])
                    output.append(hexDigits[Int(byte & 0x0F)])
                }
            }
        }
    }

    /// The first byte of `text` that may not appear literally in a URL, as a printable description.
    static func firstInvalidURLCharacter(in text: Substring) -> String? {
        let bytes = text.utf8
        if bytes.allSatisfy({ urlCharacters.contains($0) && $0 != UInt8(ascii: "%") }) { return nil }
        return firstInvalidURLCharacter(inBytes: Array(bytes))
    }

    static func firstInvalidURLCharacter(in text: String) -> String? {
        firstInvalidURLCharacter(in: Substring(text))
    }

    private static func firstInvalidURLCharacter(inBytes bytes: [UInt8]) -> String? {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let isEscape =
                    index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2])
                if !isEscape { return "'%' not followed by two hex digits" }
                index += 3
                continue
            }
            if !urlCharacters.contains(byte) {
                return byte == UInt8(ascii: " ") ? "a space" : "'\(String(decoding: [byte], as: UTF8.self))'"
            }
            index += 1
        }
        return nil
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102)
    }
}

/// Makes text from outside — a server's headers and bodies, URLs, error texts, caller values — safe
/// to print: characters a terminal or log viewer would act on are shown as escapes, not obeyed.
///
/// Escaped are C0 controls other than HTAB (CR and LF as `\r` and `\n`, the others as `\u{1B}`),
/// DEL, C1 controls (U+0080–U+009F), the bidi overrides and isolates (U+202A–U+202E,
/// U+2066–U+2069), which make a line read other than it is, and the line and paragraph separators
/// (U+2028, U+2029), which some log viewers break lines at. Everything else, HTAB included, is
/// kept as is.
///
/// Every text NetLayer produces passes here last, after redaction: debug lines (``LogSink``),
/// `curl` commands (as shell escapes that keep the command runnable) and ``NetLayerError``'s texts.
/// ``Redactor`` also knows the escaped spelling of each secret, so a secret holding a control
/// character is masked even in text that was escaped first.
enum PrintableText {
    /// `text` with every character a terminal acts on escaped; `text` itself when it has none.
    /// - Parameter keepingLineBreaks: Leaves LF and CRLF as they are (a multi-line body preview);
    ///   a lone CR, which returns to the start of the line, is still escaped.
    static func escaped(_ text: String, keepingLineBreaks: Bool = false) -> String {
        guard needsEscaping(text, keepingLineFeeds: keepingLineBreaks) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            switch scalar.value {
            case 0x0A where keepingLineBreaks: result.unicodeScalars.append(scalar)
            case 0x0D where keepingLineBreaks && index + 1 < scalars.count && scalars[index + 1] == "\n":
                result.unicodeScalars.append(scalar)
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case let value where isEscaped(value): result += "\\u{\(hex(value))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `word` quoted as one POSIX shell word: `'it'\''s'`. A word holding characters a terminal
    /// acts on (other than LF, which single quotes carry as is) is written with bash's ANSI-C
    /// quoting instead, each such character as its UTF-8 bytes: `$'a\x1b[2J'`. The word stays
    /// runnable and means the same bytes.
    static func shellQuoted(_ word: String) -> String {
        guard needsEscaping(word, keepingLineFeeds: true) else {
            return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        var result = "$'"
        for scalar in word.unicodeScalars {
            switch scalar.value {
            case 0x5C: result += "\\\\"
            case 0x27: result += "\\'"
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case let value where isEscaped(value):
                for byte in String(scalar).utf8 { result += "\\x" + hex(UInt32(byte), uppercase: false) }
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "'"
    }

    /// Whether a scalar is one this type escapes (CR and LF included).
    static func isEscaped(_ value: UInt32) -> Bool {
        (value < 0x20 && value != 0x09) || (0x7F...0x9F).contains(value) || (0x2028...0x202E).contains(value)
            || (0x2066...0x2069).contains(value)
    }

    /// The fast path: whether `text` holds anything to escape, from its UTF-8 bytes. (With line
    /// breaks kept, a CR still takes the slow path, which looks at what follows it.)
    private static func needsEscaping(_ text: String, keepingLineFeeds: Bool) -> Bool {
        if let found = text.utf8.withContiguousStorageIfAvailable({
            scan($0, keepingLineFeeds: keepingLineFeeds)
        }) {
            return found
        }
        return scan(Array(text.utf8), keepingLineFeeds: keepingLineFeeds)
    }

    /// Looks for the UTF-8 forms of the escaped scalars: bytes below 0x20 but HTAB (and LF when
    /// kept), 0x7F, `C2 80…9F` (C1), `E2 80 A8…AE` (U+2028–U+202E) and `E2 81 A6…A9`
    /// (U+2066–U+2069).
    private static func scan<Bytes: RandomAccessCollection>(_ bytes: Bytes, keepingLineFeeds: Bool) -> Bool
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var index = bytes.startIndex
        let end = bytes.endIndex
        while index < end {
            let byte = bytes[index]
            if byte < 0x20 {
                if byte != 0x09 && !(keepingLineFeeds && byte == 0x0A) { return true }
            } else if byte == 0x7F {
                return true
            } else if byte == 0xC2 {
                if index + 1 < end, (0x80...0x9F).contains(bytes[index + 1]) { return true }
            } else if byte == 0xE2, index + 2 < end {
                let second = bytes[index + 1]
                let third = bytes[index + 2]
                if second == 0x80 && (0xA8...0xAE).contains(third) { return true }
                if second == 0x81 && (0xA6...0xA9).contains(third) { return true }
            }
            index += 1
        }
        return false
    }

    /// Hexadecimal digits, at least two, as Swift's own `\u{07}` escapes are written.
    private static func hex(_ value: UInt32, uppercase: Bool = true) -> String {
        let digits = String(value, radix: 16, uppercase: uppercase)
        return digits.count < 2 ? "0" + digits : digits
    }
}

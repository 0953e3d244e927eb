/// The list syntax of RFC 9110 §5.6.1 (`#element`), across repeated field lines (§5.3).
///
/// A list is split at commas that are not inside a quoted-string (§5.6.4); each element is trimmed
/// of optional whitespace, and empty elements (`a, , b`, a leading or trailing comma, an empty
/// field line) are dropped, as a recipient must accept them. One pass over the bytes, so linear in
/// the size of the fields whatever they hold; the number of elements kept is bounded.
enum FieldList {
    /// The elements of `values` (the field lines of one field, in order), at most `limit` of them.
    /// - Returns: the elements, and whether more were present than `limit` (the caller decides
    ///   what an overlong list means: for a cache it means "do not store").
    static func elements(_ values: [String], limit: Int) -> (elements: [Substring], overflowed: Bool) {
        var elements: [Substring] = []
        for value in values {
            var start = value.utf8.startIndex
            var index = start
            var inQuotes = false
            var escaped = false
            let end = value.utf8.endIndex
            while index < end {
                let byte = value.utf8[index]
                if inQuotes {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inQuotes = false
                    }
                } else if byte == UInt8(ascii: "\"") {
                    inQuotes = true
                } else if byte == UInt8(ascii: ",") {
                    if let element = trimmed(value, start, index) {
                        if elements.count == limit { return (elements, true) }
                        elements.append(element)
                    }
                    start = value.utf8.index(after: index)
                }
                index = value.utf8.index(after: index)
            }
            if let element = trimmed(value, start, end) {
                if elements.count == limit { return (elements, true) }
                elements.append(element)
            }
        }
        return (elements, false)
    }

    /// `value[start..<end]` without leading and trailing spaces and tabs; `nil` when that is empty.
    private static func trimmed(_ value: String, _ start: String.Index, _ end: String.Index) -> Substring? {
        var lower = start
        var upper = end
        let utf8 = value.utf8
        while lower < upper, isWhitespace(utf8[lower]) { lower = utf8.index(after: lower) }
        while upper > lower, isWhitespace(utf8[utf8.index(before: upper)]) {
            upper = utf8.index(before: upper)
        }
        return lower == upper ? nil : Substring(utf8[lower..<upper])
    }

    /// SP or HTAB (OWS, RFC 9110 §5.6.3).
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// The content of a quoted-string (RFC 9110 §5.6.4) with its quoted-pairs undone, when `text`
    /// is exactly one quoted-string; `nil` otherwise (unbalanced quotes, text after the closing
    /// quote, a control character).
    static func unquoted(_ text: Substring) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else {
            return nil
        }
        var content: [UInt8] = []
        content.reserveCapacity(bytes.count - 2)
        var index = 1
        while index < bytes.count - 1 {
            var byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return nil }
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count - 1 else { return nil }
                byte = bytes[index]
            }
            if (byte < 0x20 && byte != 0x09) || byte == 0x7F { return nil }
            content.append(byte)
            index += 1
        }
        return String(decoding: content, as: UTF8.self)
    }

    /// Whether `text` is a non-empty RFC 9110 token (§5.6.2).
    static func isToken(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(HeaderFields.isTokenByte)
    }
}

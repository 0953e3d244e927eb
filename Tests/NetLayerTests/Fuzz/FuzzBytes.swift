/// Byte and text helpers shared by the parsers and checks. Comparisons are by exact bytes: Swift's
/// `==` on strings treats canonically equivalent texts (`"é"` and `"e\u{301}"`) as equal, which
/// would hide exactly the mistakes a fuzzer looks for.

/// Exact equality of two texts: the same Unicode scalars.
func fuzzSame(_ lhs: String, _ rhs: String) -> Bool {
    lhs.utf8.elementsEqual(rhs.utf8)
}

/// UTF-8 byte order, the order DESIGN sorts keys in.
func fuzzByteOrder(_ lhs: String, _ rhs: String) -> Bool {
    lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
}

/// The bytes as text when they are valid UTF-8 (a BOM is kept as U+FEFF), else nil.
func fuzzUTF8<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String? {
    let text = String(decoding: bytes, as: UTF8.self)
    return text.utf8.elementsEqual(bytes) ? text : nil
}

/// The value of an ASCII hex digit.
func fuzzHexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

/// `%XX` with upper-case hex digits.
func fuzzPercentEscape(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    return String(
        decoding: [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
}

/// RFC 3986 `unreserved`: `A–Z a–z 0–9 - . _ ~`.
func fuzzIsUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "~"):
        true
    default: false
    }
}

/// RFC 9110 `tchar`.
func fuzzIsTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
        UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "^"), UInt8(ascii: "`"),
        UInt8(ascii: "|"):
        true
    default: fuzzIsUnreserved(byte)
    }
}

/// An RFC 9110 token: one or more `tchar`.
func fuzzIsToken(_ text: String) -> Bool {
    !text.isEmpty && text.utf8.allSatisfy(fuzzIsTokenByte)
}

/// ASCII-only lower-casing, the way header names compare.
func fuzzLowerASCII(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) else { return text }
    return String(decoding: text.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
}

/// Trims leading and trailing spaces and tabs (RFC 9110 §5.5 optional whitespace).
func fuzzTrimOWS(_ text: String) -> String {
    let bytes = Array(text.utf8)
    var start = 0
    var end = bytes.count
    while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
    while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
    return String(decoding: bytes[start..<end], as: UTF8.self)
}

/// A short readable rendering of bytes: UTF-8 text as a Swift string literal, otherwise hex.
func fuzzShow<Bytes: Collection<UInt8>>(_ bytes: Bytes, limit: Int = 400) -> String {
    let shown = bytes.prefix(limit)
    let more = bytes.count > limit ? "…(\(bytes.count) bytes)" : ""
    if let text = fuzzUTF8(shown) { return text.fuzzLiteral + more }
    return "bytes[" + shown.map { String($0, radix: 16, uppercase: true) }.joined(separator: " ") + "]" + more
}

/// Pairs as `[name: value, …]`, each shown as a Swift literal (``Swift/String/fuzzLiteral``).
func fuzzShow(_ pairs: [FuzzPair]) -> String {
    "[" + pairs.map { "\($0.name.fuzzLiteral): \($0.value.fuzzLiteral)" }.joined(separator: ", ")
        + "]"
}

/// A decoded name/value pair of a query, a form or a multipart field.
struct FuzzPair: Sendable {
    var name: String
    var value: String

    func same(as other: FuzzPair) -> Bool {
        fuzzSame(name, other.name) && fuzzSame(value, other.value)
    }
}

/// Whether two pair lists are equal, in order, byte for byte.
func fuzzSamePairs(_ lhs: [FuzzPair], _ rhs: [FuzzPair]) -> Bool {
    lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0.same(as: $1) }
}

extension String {
    /// The text as a Swift string literal in which every invisible or ambiguous character is
    /// escaped: `debugDescription` (which escapes C0 controls, quotes and backslashes) plus `\u{…}`
    /// for C1 controls, format characters (zero-width space, joiners, BOM), line and paragraph
    /// separators, spaces other than U+0020, private-use and unassigned scalars.
    var fuzzLiteral: String {
        var output = ""
        for scalar in debugDescription.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .unassigned, .surrogate:
                output += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            case .spaceSeparator where scalar != " ":
                output += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}

import Foundation

/// A JSON value that keeps numbers as their literal text, so big integers survive unchanged.
/// Compared structurally; numbers are equal when their texts are, or when both read back as the
/// same `Double` (httpbin re-prints floats through Python).
indirect enum JSON: Equatable, CustomStringConvertible, Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b || (Double(a) != nil && Double(a) == Double(b))
        case (.string(let a), .string(let b)): Array(a.unicodeScalars) == Array(b.unicodeScalars)
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    subscript(key: String) -> JSON {
        if case .object(let entries) = self { return entries[key] ?? .null }
        return .null
    }

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var object: [String: JSON]? {
        if case .object(let entries) = self { return entries }
        return nil
    }

    /// Compact JSON, keys sorted by bytes, non-ASCII printed as is.
    var description: String {
        switch self {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let text): return text
        case .string(let text): return JSON.quote(text)
        case .array(let items): return "[" + items.map(\.description).joined(separator: ",") + "]"
        case .object(let entries):
            let keys = entries.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            return "{" + keys.map { JSON.quote($0) + ":" + entries[$0]!.description }.joined(separator: ",")
                + "}"
        }
    }

    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    // MARK: Parsing

    struct ParseError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ data: Data) throws -> JSON {
        var parser = Parser(bytes: Array(data))
        parser.skipSpace()
        let value = try parser.value()
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.error("trailing bytes") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        func error(_ what: String) -> ParseError {
            let preview = String(decoding: bytes.prefix(300), as: UTF8.self)
            return ParseError(description: "invalid JSON (\(what) at byte \(index)): \(preview)")
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func literal(_ word: String, _ value: JSON) throws -> JSON {
            let w = Array(word.utf8)
            guard bytes.count - index >= w.count, Array(bytes[index..<(index + w.count)]) == w else {
                throw error("expected \(word)")
            }
            index += w.count
            return value
        }

        mutating func value() throws -> JSON {
            guard index < bytes.count else { throw error("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "n"): return try literal("null", .null)
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "["):
                index += 1
                var items: [JSON] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(items)
                }
                while true {
                    skipSpace()
                    items.append(try value())
                    skipSpace()
                    guard index < bytes.count else { throw error("unterminated array") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    if bytes[index] == UInt8(ascii: "]") {
                        index += 1
                        return .array(items)
                    }
                    throw error("expected , or ]")
                }
            case UInt8(ascii: "{"):
                index += 1
                var entries: [String: JSON] = [:]
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(entries)
                }
                while true {
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                        throw error("expected key")
                    }
                    let key = try string()
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                        throw error("expected :")
                    }
                    index += 1
                    skipSpace()
                    entries[key] = try value()
                    skipSpace()
                    guard index < bytes.count else { throw error("unterminated object") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    if bytes[index] == UInt8(ascii: "}") {
                        index += 1
                        return .object(entries)
                    }
                    throw error("expected , or }")
                }
            default:
                let start = index
                while index < bytes.count, "+-.0123456789eE".utf8.contains(bytes[index]) { index += 1 }
                guard index > start else { throw error("unexpected byte") }
                return .number(String(decoding: bytes[start..<index], as: UTF8.self))
            }
        }

        mutating func hex4() throws -> UInt32 {
            guard bytes.count - index >= 4,
                let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
            else { throw error("bad \\u escape") }
            index += 4
            return value
        }

        mutating func string() throws -> String {
            index += 1  // opening quote
            var raw: [UInt8] = []
            while true {
                guard index < bytes.count else { throw error("unterminated string") }
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { break }
                if byte != UInt8(ascii: "\\") {
                    raw.append(byte)
                    continue
                }
                guard index < bytes.count else { throw error("bad escape") }
                let esc = bytes[index]
                index += 1
                switch esc {
                case UInt8(ascii: "\""): raw.append(0x22)
                case UInt8(ascii: "\\"): raw.append(0x5C)
                case UInt8(ascii: "/"): raw.append(0x2F)
                case UInt8(ascii: "b"): raw.append(0x08)
                case UInt8(ascii: "f"): raw.append(0x0C)
                case UInt8(ascii: "n"): raw.append(0x0A)
                case UInt8(ascii: "r"): raw.append(0x0D)
                case UInt8(ascii: "t"): raw.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code), bytes.count - index >= 6,
                        bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                    {
                        index += 2
                        let low = try hex4()
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    raw.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: throw error("bad escape")
                }
            }
            return String(decoding: raw, as: UTF8.self)
        }
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByNilLiteral
{
    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .number(String(value)) }
    init(floatLiteral value: Double) { self = .number(String(value)) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(arrayLiteral elements: JSON...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    init(nilLiteral: ()) { self = .null }
}

/// httpbin's `semiflatten`: a multi-dict becomes an object whose keys map to the single value, or
/// to the list of values when a key repeats.
func semiflatten(_ pairs: [(String, String)]) -> JSON {
    var order: [String] = []
    var values: [String: [String]] = [:]
    for (key, value) in pairs {
        if values[key] == nil { order.append(key) }
        values[key, default: []].append(value)
    }
    var result: [String: JSON] = [:]
    for key in order {
        let list = values[key]!
        result[key] = list.count == 1 ? .string(list[0]) : .array(list.map { .string($0) })
    }
    return .object(result)
}

/// Decodes `%XX` escapes (as UTF-8); a `%` not followed by two hex digits stays literal.
func percentDecode(_ text: String) -> String {
    let bytes = Array(text.utf8)
    var out: [UInt8] = []
    var i = 0
    while i < bytes.count {
        if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count,
            let value = UInt8(String(decoding: bytes[(i + 1)...(i + 2)], as: UTF8.self), radix: 16)
        {
            out.append(value)
            i += 3
        } else {
            out.append(bytes[i])
            i += 1
        }
    }
    return String(decoding: out, as: UTF8.self)
}

/// Bytes as a readable one-line string: printable UTF-8 as is, CR/LF/TAB/NUL and invalid bytes escaped.
func showBytes(_ data: Data, limit: Int = 700) -> String {
    let bytes = Array(data.prefix(limit))
    var text = ""
    var i = 0
    while i < bytes.count {
        let b = bytes[i]
        switch b {
        case 0x0D:
            text += "\\r"
            i += 1
            continue
        case 0x0A:
            text += "\\n"
            i += 1
            continue
        case 0x09:
            text += "\\t"
            i += 1
            continue
        case 0x5C:
            text += "\\\\"
            i += 1
            continue
        default: break
        }
        if b < 0x20 || b == 0x7F {
            text += String(format: "\\x%02X", b)
            i += 1
            continue
        }
        if b < 0x80 {
            text.unicodeScalars.append(Unicode.Scalar(b))
            i += 1
            continue
        }
        // a UTF-8 sequence: keep it if valid, else escape the byte
        let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
        if length > 1, i + length <= bytes.count,
            let s = String(validating: bytes[i..<(i + length)], as: UTF8.self)
        {
            text += s
            i += length
        } else {
            text += String(format: "\\x%02X", b)
            i += 1
        }
    }
    if data.count > limit { text += "…(\(data.count) bytes)" }
    return text
}

/// A JSON value (RFC 8259) that keeps numbers as their text and object members in order, with a
/// strict parser written for the fuzzer.
indirect enum FuzzJSON: Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([FuzzJSON])
    case object([(String, FuzzJSON)])

    /// The member named `key` (byte-exact), or nil.
    subscript(key: String) -> FuzzJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { fuzzSame($0.0, key) }?.1
    }

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// Whether `other` is this expected value as a JSON reader sees it: object members in any order
    /// (each name once), strings byte for byte, an expected integer digit for digit, other numbers
    /// by their `Double` value.
    func same(as other: FuzzJSON) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)):
            // An integer must come back digit for digit (big integers lose digits as doubles).
            if !a.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) { return a == b }
            guard let x = Double(a), let y = Double(b) else { return false }
            return x == y
        case (.string(let a), .string(let b)): return fuzzSame(a, b)
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.same(as: $1) }
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            return a.allSatisfy { member in
                let matches = b.filter { fuzzSame($0.0, member.0) }
                return matches.count == 1 && member.1.same(as: matches[0].1)
            }
        default: return false
        }
    }

    /// Compact JSON text with keys in the order held; non-ASCII printed as is, controls escaped.
    var text: String {
        switch self {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let digits): return digits
        case .string(let value): return Self.quote(value)
        case .array(let items): return "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { Self.quote($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    static func quote(_ value: String) -> String {
        var output = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    // MARK: Parsing

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    /// Parses one JSON text. Rejects what RFC 8259 rejects: trailing commas, leading zeros, `NaN`,
    /// raw control characters in strings, invalid escapes, lone surrogates, invalid UTF-8.
    static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(ParseError) -> FuzzJSON {
        var parser = Parser(bytes: Array(bytes))
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.error("trailing bytes") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        func error(_ what: String) -> ParseError {
            ParseError(
                description: "invalid JSON: \(what) at byte \(index) of \(fuzzShow(bytes, limit: 200))")
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func expect(_ byte: UInt8) throws(ParseError) {
            guard index < bytes.count, bytes[index] == byte else {
                throw error("expected '\(Character(Unicode.Scalar(byte)))'")
            }
            index += 1
        }

        mutating func value(depth: Int) throws(ParseError) -> FuzzJSON {
            guard depth < 200 else { throw error("nesting too deep") }
            guard index < bytes.count else { throw error("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "n"): return try literal("null", .null)
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "["):
                index += 1
                var items: [FuzzJSON] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(items)
                }
                while true {
                    skipSpace()
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    try expect(UInt8(ascii: "]"))
                    return .array(items)
                }
            case UInt8(ascii: "{"):
                index += 1
                var members: [(String, FuzzJSON)] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                        throw error("expected a key")
                    }
                    let key = try string()
                    skipSpace()
                    try expect(UInt8(ascii: ":"))
                    skipSpace()
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    try expect(UInt8(ascii: "}"))
                    return .object(members)
                }
            default: return .number(try number())
            }
        }

        mutating func literal(_ word: String, _ value: FuzzJSON) throws(ParseError) -> FuzzJSON {
            let expected = Array(word.utf8)
            guard bytes.count - index >= expected.count,
                Array(bytes[index..<(index + expected.count)]) == expected
            else { throw error("expected \(word)") }
            index += expected.count
            return value
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        mutating func number() throws(ParseError) -> String {
            let start = index
            func digits() -> Int {
                let first = index
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
                return index - first
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            let intStart = index
            let intDigits = digits()
            guard intDigits > 0 else { throw error("expected a value") }
            if intDigits > 1 && bytes[intStart] == UInt8(ascii: "0") { throw error("leading zero") }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw error("expected fraction digits") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
                {
                    index += 1
                }
                guard digits() > 0 else { throw error("expected exponent digits") }
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard bytes.count - index >= 4 else { throw error("short \\u escape") }
            var value: UInt32 = 0
            for offset in 0..<4 {
                guard let digit = fuzzHexValue(bytes[index + offset]) else { throw error("bad \\u escape") }
                value = value * 16 + UInt32(digit)
            }
            index += 4
            return value
        }

        mutating func string() throws(ParseError) -> String {
            index += 1
            var raw: [UInt8] = []
            while true {
                guard index < bytes.count else { throw error("unterminated string") }
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { break }
                if byte < 0x20 { throw error("raw control character in a string") }
                if byte != UInt8(ascii: "\\") {
                    raw.append(byte)
                    continue
                }
                guard index < bytes.count else { throw error("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): raw.append(escape)
                case UInt8(ascii: "b"): raw.append(0x08)
                case UInt8(ascii: "f"): raw.append(0x0C)
                case UInt8(ascii: "n"): raw.append(0x0A)
                case UInt8(ascii: "r"): raw.append(0x0D)
                case UInt8(ascii: "t"): raw.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xDC00..<0xE000).contains(code) { throw error("lone low surrogate") }
                    if (0xD800..<0xDC00).contains(code) {
                        guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("lone high surrogate") }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("bad surrogate pair") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("bad code point") }
                    raw.append(contentsOf: Array(String(scalar).utf8))
                default: throw error("bad escape")
                }
            }
            guard let text = fuzzUTF8(raw) else { throw error("invalid UTF-8 in a string") }
            return text
        }
    }
}

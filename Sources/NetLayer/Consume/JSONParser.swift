import Foundation

/// Parses UTF-8 bytes into a ``JSONValue`` in one pass (RFC 8259, strictly), without recursion.
///
/// It accepts and refuses what `JSONDecoder` does, except that trailing commas (`[1,]`), which
/// `JSONDecoder` on Linux lets through, are refused. Numbers follow `JSONDecoder` decoding
/// ``JSONValue``: a number whose value is an integer that fits in `Int64` is `.integer` (exact for
/// digits, and for digits followed by a fraction of zeros), any other is `.double`; a number too
/// large for a `Double` is refused. Strings must be well-formed UTF-8; `\u` escapes of a lone
/// surrogate are refused (as `JSONDecoder` refuses them). For duplicate keys the first wins, as
/// with `JSONDecoder`. A UTF-8 byte order mark is skipped.
struct JSONParser {
    /// How many arrays and objects may be open at once; `JSONDecoder` and `JSONSerialization`
    /// allow 512 and refuse more.
    static let maximumDepth = 512

    /// Why the bytes are not JSON, and where.
    struct Failure: Error, Equatable {
        /// What was wrong, for the error message.
        let reason: String
        /// The offset of the byte where parsing stopped.
        let offset: Int
    }

    /// Parses `data`; `nil` when it is in a UTF-16 or UTF-32 encoding (which this parser leaves
    /// to `JSONDecoder`).
    /// - Throws: ``Failure`` when the bytes are not one JSON value.
    static func parse(_ data: Data) throws(Failure) -> JSONValue? {
        if Self.isWideEncoding(data) { return nil }
        let result: Result<JSONValue, Failure> = data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self))
            do throws(Failure) {
                return .success(try parser.document())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// A parse failure as `JSONDecoder` would report it (`dataCorrupted` at the top).
    static func decodingError(_ failure: Failure) -> DecodingError {
        .dataCorrupted(
            DecodingError.Context(
                codingPath: [],
                debugDescription:
                    "The given data was not valid JSON: \(failure.reason) at byte \(failure.offset)."))
    }

    /// Whether `data` looks like UTF-16 or UTF-32: a byte order mark, or an even length with a zero
    /// byte among the first two (ASCII text in UTF-16 or UTF-32; UTF-8 JSON has no zero byte there).
    private static func isWideEncoding(_ data: Data) -> Bool {
        guard data.count >= 2, let first = data.first else { return false }
        let second = data[data.index(after: data.startIndex)]
        if (first == 0xFE && second == 0xFF) || (first == 0xFF && second == 0xFE) { return true }
        return data.count % 2 == 0 && (first == 0 || second == 0)
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: Structure

    /// The whole input as one value. Open containers live on explicit stacks (one per kind, so
    /// appending to the innermost never copies it), so a deep input cannot exhaust the call stack.
    private mutating func document() throws(Failure) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        var isObject: [Bool] = []
        var arrays: [[JSONValue]] = []
        var objects: [[String: JSONValue]] = []
        var keys: [String] = []
        parsing: while true {
            var value: JSONValue
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of data") }
            switch bytes[index] {
            case UInt8(ascii: "["):
                guard isObject.count < Self.maximumDepth else { throw failure(tooDeep) }
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    value = .array([])
                } else {
                    isObject.append(false)
                    arrays.append([])
                    continue parsing
                }
            case UInt8(ascii: "{"):
                guard isObject.count < Self.maximumDepth else { throw failure(tooDeep) }
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    value = .object([:])
                } else {
                    keys.append(try memberName())
                    isObject.append(true)
                    objects.append([:])
                    continue parsing
                }
            case UInt8(ascii: "\""):
                index += 1
                value = .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = try number()
            default:
                throw failure("unexpected character \(Self.describe(bytes[index]))")
            }
            // Put the value into the innermost container, and close every container that ends here.
            while let inObject = isObject.last {
                skipWhitespace()
                if inObject {
                    let top = objects.count - 1
                    let key = keys.removeLast()
                    if objects[top][key] == nil { objects[top][key] = value }
                    guard index < bytes.count else { throw failure("unexpected end of data in an object") }
                    let byte = bytes[index]
                    index += 1
                    if byte == UInt8(ascii: ",") {
                        skipWhitespace()
                        keys.append(try memberName())
                        continue parsing
                    }
                    guard byte == UInt8(ascii: "}") else {
                        index -= 1
                        throw failure("expected ',' or '}' after an object member")
                    }
                    isObject.removeLast()
                    value = .object(objects.removeLast())
                } else {
                    arrays[arrays.count - 1].append(value)
                    guard index < bytes.count else { throw failure("unexpected end of data in an array") }
                    let byte = bytes[index]
                    index += 1
                    if byte == UInt8(ascii: ",") { continue parsing }
                    guard byte == UInt8(ascii: "]") else {
                        index -= 1
                        throw failure("expected ',' or ']' after an array element")
                    }
                    isObject.removeLast()
                    value = .array(arrays.removeLast())
                }
            }
            skipWhitespace()
            guard index == bytes.count else { throw failure("unexpected data after the JSON value") }
            return value
        }
    }

    private var tooDeep: String { "more than \(Self.maximumDepth) nested arrays or objects" }

    /// `"name" :` of an object member; leaves the index at the value.
    private mutating func memberName() throws(Failure) -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            throw failure(index < bytes.count ? "expected a string as member name" : "unexpected end of data")
        }
        index += 1
        let name = try string()
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
            throw failure("expected ':' after a member name")
        }
        index += 1
        return name
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let length = word.utf8CodeUnitCount
        guard bytes.count - index >= length else { throw failure("unexpected end of data in a literal") }
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: length)
        for offset in 0..<length where bytes[index + offset] != expected[offset] {
            index += offset
            throw failure("unexpected character \(Self.describe(bytes[index])) in a literal")
        }
        index += length
    }

    // MARK: Numbers

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    ///
    /// As `JSONDecoder` reads a number into ``JSONValue``: a value that is exactly an integer
    /// (`12`, `12.0`, `1.2e1`) is `.integer` when it fits in `Int64`, else `.double`; any other is a
    /// `Double`, and `.integer` after all when that `Double` is integral and fits (`0.99999999999999999`
    /// reads as 1, as `JSONDecoder` gives it).
    private mutating func number() throws(Failure) -> JSONValue {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, Self.isDigit(bytes[index]) else { throw failure("a number needs a digit") }
        let integerStart = index
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        let integerDigits = bytes[integerStart..<index]
        // Digits only, the common case.
        if index == bytes.count
            || (bytes[index] != UInt8(ascii: ".") && bytes[index] != UInt8(ascii: "e")
                && bytes[index] != UInt8(ascii: "E"))
        {
            if let exact = Self.integer(integerDigits, scale: 0, negative: negative) {
                return .integer(exact)
            }
            return .double(try double(from: start))
        }
        // The significant digits (leading zeros dropped) and how many of them follow the point.
        var digits = integerDigits.first == UInt8(ascii: "0") ? [] : Array(integerDigits)
        var fractionDigits = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, Self.isDigit(bytes[index]) else {
                throw failure("a number needs a digit after '.'")
            }
            while index < bytes.count, Self.isDigit(bytes[index]) {
                if !digits.isEmpty || bytes[index] != UInt8(ascii: "0") { digits.append(bytes[index]) }
                fractionDigits += 1
                index += 1
            }
            if digits.isEmpty { fractionDigits = 0 }
        }
        var exponent = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var exponentIsNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentIsNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count, Self.isDigit(bytes[index]) else {
                throw failure("a number needs a digit in its exponent")
            }
            while index < bytes.count, Self.isDigit(bytes[index]) {
                // Saturates: anything this large is out of range (or zero) anyway.
                exponent = min(exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")), 1_000_000)
                index += 1
            }
            if exponentIsNegative { exponent = -exponent }
        }
        // value = digits × 10^scale
        var scale = exponent - fractionDigits
        while let last = digits.last, last == UInt8(ascii: "0"), scale < 0 {
            digits.removeLast()
            scale += 1
        }
        if digits.isEmpty { return .integer(0) }
        if scale >= 0 {
            if let exact = Self.integer(digits, scale: scale, negative: negative) { return .integer(exact) }
            return .double(try double(from: start))
        }
        let double = try double(from: start)
        if let exact = Int64(exactly: double) { return .integer(exact) }
        return .double(double)
    }

    /// The number from `start` to the index as a finite `Double`.
    private mutating func double(from start: Int) throws(Failure) -> Double {
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else {
            index = start
            throw failure("number \(text.prefix(40)) is out of range")
        }
        return double
    }

    /// digits × 10^scale as an `Int64`; `nil` when it does not fit.
    private static func integer(_ digits: some Collection<UInt8>, scale: Int, negative: Bool) -> Int64? {
        guard digits.count + scale <= 19 else { return nil }
        // Accumulate negatively, so Int64.min fits.
        var value: Int64 = 0
        for digit in digits {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.subtractingReportingOverflow(Int64(digit &- UInt8(ascii: "0")))
            if overflow || overflow2 { return nil }
            value = next
        }
        for _ in 0..<scale {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            value = shifted
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    // MARK: Failures

    func failure(_ reason: String) -> Failure { Failure(reason: reason, offset: index) }

    /// A byte for a message: the character when printable ASCII, else its hex value.
    static func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte)
            ? "'\(Character(Unicode.Scalar(byte)))'" : "0x\(String(byte, radix: 16, uppercase: true))"
    }
}

extension JSONParser {
    /// Whether the parser reads bytes as `decoder` would: a `JSONDecoder` itself (not a subclass)
    /// with the default key and non-conforming float strategies, and no JSON5.
    static func reads(like decoder: JSONDecoder) -> Bool {
        guard type(of: decoder) == JSONDecoder.self, case .useDefaultKeys = decoder.keyDecodingStrategy,
            case .throw = decoder.nonConformingFloatDecodingStrategy
        else { return false }
        return !decoder.allowsJSON5 && !decoder.assumesTopLevelDictionary
    }
}

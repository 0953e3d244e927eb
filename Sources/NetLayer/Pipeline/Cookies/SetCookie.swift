import Foundation

/// One `Set-Cookie` field value parsed by RFC 6265 §5.2, before the jar decides whether to keep it
/// (that needs the request URL and the time: ``CookieStore``).
///
/// Parsing never fails loudly: a line the algorithm ignores gives `nil`, an attribute it ignores
/// is left out. Work is linear in the line's length, with no allocation per unknown attribute.
struct SetCookie: Sendable, Hashable {
    var name: String
    var value: String
    /// `Expires`, when it parsed (§5.1.1); the last valid one wins.
    var expires: Date?
    /// `Max-Age` in seconds, clamped to `Int`'s range; wins over ``expires`` (§5.3 step 3).
    var maxAge: Int?
    /// `Domain`, lower-cased, its leading dot removed; `nil` when absent or empty.
    var domain: String?
    /// `Path` when it starts with `/`; `nil` means the default path (§5.2.4: a later invalid
    /// `Path` sets it back to the default).
    var path: String?
    var secure = false
    var httpOnly = false
    var sameSite: Cookie.SameSite?

    /// An attribute value longer than this is ignored (RFC 6265bis §5.6).
    static let maximumAttributeValueBytes = 1024

    /// Parses one `Set-Cookie` value; `nil` when §5.2 ignores it: no `=` in the name-value pair, an
    /// empty name, a control character (but HTAB) anywhere (RFC 6265bis), or a name and value
    /// longer together than `maximumPairBytes`.
    static func parse(_ line: String, maximumPairBytes: Int = 4096) -> SetCookie? {
        var line = line
        return line.withUTF8 { parse(bytes: $0, maximumPairBytes: maximumPairBytes) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>, maximumPairBytes: Int) -> SetCookie? {
        if bytes.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) { return nil }
        let semicolon = UInt8(ascii: ";")
        let pairEnd = bytes.firstIndex(of: semicolon) ?? bytes.endIndex
        guard let equals = bytes[..<pairEnd].firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let name = trimmed(bytes, bytes.startIndex, equals)
        let value = trimmed(bytes, equals + 1, pairEnd)
        guard !name.isEmpty, name.count + value.count <= maximumPairBytes else { return nil }
        var cookie = SetCookie(name: text(bytes, name), value: text(bytes, value))
        var index = pairEnd
        while index < bytes.endIndex {
            // `index` is at a ';'.
            let start = index + 1
            let end = bytes[start...].firstIndex(of: semicolon) ?? bytes.endIndex
            cookie.apply(bytes, start, end)
            index = end
        }
        return cookie
    }

    /// Applies one `cookie-av` (the bytes between two `;`), §5.2 step by step.
    private mutating func apply(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "="))
        let name = Self.trimmed(bytes, start, equals ?? end)
        let value = equals.map { Self.trimmed(bytes, $0 + 1, end) } ?? (end..<end)
        if value.count > Self.maximumAttributeValueBytes { return }
        func named(_ attribute: StaticString) -> Bool {
            guard name.count == attribute.utf8CodeUnitCount else { return false }
            let expected = UnsafeBufferPointer(start: attribute.utf8Start, count: attribute.utf8CodeUnitCount)
            return zip(bytes[name], expected).allSatisfy { $0 | 0x20 == $1 | 0x20 }
        }
        if named("expires") {
            // An Expires that does not parse is ignored; it does not clear an earlier one.
            if let date = CookieDate.parse(Self.text(bytes, value)) { expires = date }
        } else if named("max-age") {
            if let seconds = Self.maxAge(bytes[value]) { maxAge = seconds }
        } else if named("domain") {
            var domain = value
            if domain.first.map({ bytes[$0] }) == UInt8(ascii: ".") { domain = domain.dropFirst() }
            // An empty Domain is ignored (§5.2.3).
            if !value.isEmpty { self.domain = domain.isEmpty ? nil : Self.text(bytes, domain).lowercased() }
        } else if named("path") {
            path = value.first.map({ bytes[$0] }) == UInt8(ascii: "/") ? Self.text(bytes, value) : nil
        } else if named("secure") {
            secure = true
        } else if named("httponly") {
            httpOnly = true
        } else if named("samesite") {
            switch Self.text(bytes, value).lowercased() {
            case "strict": sameSite = .strict
            case "lax": sameSite = .lax
            case "none": sameSite = Cookie.SameSite.none
            default: break
            }
        }
    }

    /// §5.2.2: an optional `-` then digits only, else the attribute is ignored. Clamped, never
    /// overflowing.
    private static func maxAge(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        var digits = digits[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value = 0
        for digit in digits {
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int(digit - 0x30))
            if overflowTimes || overflowSum { return negative ? Int.min : Int.max }
            value = sum
        }
        return negative ? -value : value
    }

    /// The range between `start` and `end` without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Range<Int> {
        var start = start
        var end = end
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return start..<end
    }

    private static func text(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// The `Set-Cookie` fields of a value in which Foundation joined repeated fields with `, `
    /// (`HTTPURLResponse` keeps one value per name). A comma starts a new field only when what
    /// follows it reads `name=` before any `;` or `,`, so the comma of an `Expires` date
    /// (`Expires=Wed, 09 Jun 2021 …`) stays inside its field. Linear in the value's length.
    static func splitJoined(_ value: String) -> [String] {
        var value = value
        return value.withUTF8 { bytes -> [String] in
            guard bytes.contains(UInt8(ascii: ",")) else { return [String(decoding: bytes, as: UTF8.self)] }
            var fields: [String] = []
            var start = 0
            var index = 0
            while index < bytes.count {
                guard bytes[index] == UInt8(ascii: ","), startsField(bytes, after: index) else {
                    index += 1
                    continue
                }
                let field = trimmed(bytes, start, index)
                if !field.isEmpty { fields.append(text(bytes, field)) }
                start = index + 1
                index += 1
            }
            let last = trimmed(bytes, start, bytes.count)
            if !last.isEmpty { fields.append(text(bytes, last)) }
            return fields
        }
    }

    /// Whether the bytes after the comma at `comma` read `token=` before any `;` or `,`.
    private static func startsField(_ bytes: UnsafeBufferPointer<UInt8>, after comma: Int) -> Bool {
        var index = comma + 1
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        let nameStart = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "="): return index > nameStart
            case UInt8(ascii: ";"), UInt8(ascii: ","), 0x20, 0x09: return false
            default: index += 1
            }
        }
        return false
    }
}

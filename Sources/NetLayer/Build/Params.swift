import Foundation

/// Request parameters: top-level names mapped to values of any supported type.
///
/// `["page": page, "search": search]` compiles with variables of different types; a `nil` optional
/// is left out of what is sent. Unsupported types are rejected at compile time.
public typealias Params = [String: any ParamConvertible]

/// A parameter value as the encoders see it, after conversion from a Swift value.
///
/// Numbers are kept as their exact decimal text, so `Decimal` and `UInt64` survive unchanged.
public enum ParamValue: Sendable, Hashable {
    /// No value: dropped from queries, forms and multipart; dropped from JSON unless
    /// ``ParamStyle/NullEncoding/null`` is chosen.
    case null
    /// A boolean, written `true`/`false` (or `1`/`0`, see ``ParamStyle/BoolEncoding``).
    case bool(Bool)
    /// A number as decimal text, for example `"42"` or `"3.5"`.
    case number(String)
    /// A string.
    case string(String)
    /// An ordered list of values.
    case array([ParamValue])
    /// Named values; keys are always sent in byte order.
    case dictionary([String: ParamValue])
}

/// A type that can be sent as a request parameter, a path part, or a multipart field.
///
/// The library conforms `String`, integers, floating point, `Bool`, `Decimal`, `Date` (ISO 8601),
/// `UUID`, `URL`, `Data` (base64), optionals, arrays and `[String: …]` dictionaries of them.
public protocol ParamConvertible: Sendable {
    /// The value in the encoders' terms.
    var paramValue: ParamValue { get }
}

extension ParamValue: ParamConvertible {
    /// The value itself.
    public var paramValue: ParamValue { self }
}

extension ParamValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// The `null` value.
    public init(nilLiteral: ()) { self = .null }
    /// An integer value.
    public init(integerLiteral value: Int) { self = .number(String(value)) }
    /// A list of values of mixed types, for example `["a", 1, true]`.
    public init(arrayLiteral elements: (any ParamConvertible)...) {
        self = .array(elements.map { $0.paramValue })
    }
    /// A nested dictionary of mixed value types, for example `["min": 1, "name": "x"]`.
    public init(dictionaryLiteral elements: (String, any ParamConvertible)...) {
        var result: [String: ParamValue] = [:]
        for (key, value) in elements { result[key] = value.paramValue }
        self = .dictionary(result)
    }
}

extension String: ParamConvertible {
    /// The string itself.
    public var paramValue: ParamValue { .string(self) }
}

extension Substring: ParamConvertible {
    /// The substring as a string.
    public var paramValue: ParamValue { .string(String(self)) }
}

extension Bool: ParamConvertible {
    /// The boolean.
    public var paramValue: ParamValue { .bool(self) }
}

extension ParamConvertible where Self: BinaryInteger {
    /// The integer in decimal.
    public var paramValue: ParamValue {
        // The same text as `String(self)`; through a 64-bit type, the conversion is specialized
        // (`String(_:)` of a generic integer is not, and costs three times as much).
        if let small = Int64(exactly: self) { return .number(String(small)) }
        if let large = UInt64(exactly: self) { return .number(String(large)) }
        return .number(String(self))
    }
}

extension Int: ParamConvertible {}
extension Int8: ParamConvertible {}
extension Int16: ParamConvertible {}
extension Int32: ParamConvertible {}
extension Int64: ParamConvertible {}
extension UInt: ParamConvertible {}
extension UInt8: ParamConvertible {}
extension UInt16: ParamConvertible {}
extension UInt32: ParamConvertible {}
extension UInt64: ParamConvertible {}

extension Double: ParamConvertible {
    /// The shortest decimal text that reads back as the same `Double` (`nan`/`inf` are refused by JSON).
    public var paramValue: ParamValue { .number(String(self)) }
}

extension Float: ParamConvertible {
    /// The shortest decimal text that reads back as the same `Float`.
    public var paramValue: ParamValue { .number(String(self)) }
}

extension Decimal: ParamConvertible {
    /// The exact decimal text.
    public var paramValue: ParamValue { .number(description) }
}

extension Date: ParamConvertible {
    /// ISO 8601 in UTC, with fractional seconds only when the date has them:
    /// `2026-11-21T09:30:00Z`, `2026-11-21T09:30:00.250Z`. Only dates from 1583 to 9999 are
    /// written: ISO 8601 uses the Gregorian calendar, whose earlier dates need an agreement between
    /// the parties (and Foundation writes them in the Julian calendar, days apart), and 5-digit
    /// years need an extension. A date outside, or made from a non-finite interval, makes a call
    /// throw ``NetLayerError/Code/encodingFailed`` instead of sending a made-up date.
    public var paramValue: ParamValue {
        let interval = timeIntervalSinceReferenceDate
        guard Self.writableIntervals.contains(interval) else {
            return .number(ParamCheck.unwritableDate + "\(interval) s from 2001-01-01")
        }
        let whole = interval.rounded(.down) == interval
        return .string(formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: !whole)))
    }

    /// From 1583-01-01T00:00:00Z up to, not including, 10000-01-01T00:00:00Z (NaN is outside).
    private static let writableIntervals: Range<TimeInterval> = -13_190_860_800..<252_423_993_600
}

extension UUID: ParamConvertible {
    /// The canonical upper-case UUID string.
    public var paramValue: ParamValue { .string(uuidString) }
}

extension URL: ParamConvertible {
    /// The absolute URL string.
    public var paramValue: ParamValue { .string(absoluteString) }
}

extension Data: ParamConvertible {
    /// The bytes in standard base64.
    public var paramValue: ParamValue { .string(base64EncodedString()) }
}

extension Optional: ParamConvertible where Wrapped: ParamConvertible {
    /// The wrapped value, or ``ParamValue/null`` (left out of what is sent).
    public var paramValue: ParamValue {
        switch self {
        case .some(let value): value.paramValue
        case .none: .null
        }
    }
}

extension Array: ParamConvertible where Element: ParamConvertible {
    /// The elements in order.
    public var paramValue: ParamValue {
        // The most common element types, converted without a call through the protocol per element
        // (the same values as theirs).
        if Element.self == String.self {
            return .array(unsafeBitCast(self, to: [String].self).map { .string($0) })
        }
        if Element.self == Int.self {
            return .array(unsafeBitCast(self, to: [Int].self).map { .number(String($0)) })
        }
        return .array(map { $0.paramValue })
    }
}

extension Set: ParamConvertible where Element: ParamConvertible & Comparable {
    /// The elements in ascending order, so the same set always encodes to the same bytes.
    public var paramValue: ParamValue { .array(sorted().map { $0.paramValue }) }
}

extension ParamConvertible where Self: RawRepresentable, RawValue: ParamConvertible {
    /// The raw value. An enum backed by a param type becomes a param with one line:
    /// `extension Sort: ParamConvertible {}`.
    public var paramValue: ParamValue { rawValue.paramValue }
}

extension Dictionary: ParamConvertible where Key == String, Value: ParamConvertible {
    /// The entries; keys are sent in byte order.
    public var paramValue: ParamValue { .dictionary(mapValues { $0.paramValue }) }
}

extension ParamValue {
    /// Whether the value is ``null``.
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The text of a scalar value (`nil` for null, arrays and dictionaries).
    func scalarText(bools: ParamStyle.BoolEncoding) -> String? {
        switch self {
        case .string(let text), .number(let text): text
        case .bool(let flag):
            switch bools {
            case .literal: flag ? "true" : "false"
            case .numeric: flag ? "1" : "0"
            }
        case .null, .array, .dictionary: nil
        }
    }
}

/// Merges parameter levels; a later level wins per top-level key (even with `nil`, which removes an
/// earlier level's value from what is sent).
func mergeParams(_ levels: Params...) -> [String: ParamValue] {
    var merged: [String: ParamValue] = [:]
    merged.reserveCapacity(levels.reduce(0) { $0 + $1.count })
    for level in levels {
        for (key, value) in level { merged[key] = value.paramValue }
    }
    return merged
}

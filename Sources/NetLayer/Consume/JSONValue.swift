import Foundation

/// Any JSON value, for callers who want no model: `try await executor.execute(model: JSONValue.self)`.
///
/// Read it with the typed accessors, which are `nil` when the value has another type:
/// ```swift
/// let json = try await target.makeExecutor().execute(model: JSONValue.self)
/// let firstID = json["data"]?["items"]?[0]?["id"]?.intValue
/// ```
/// Integers that fit in `Int64` stay exact (ids beyond 2^53 survive); other numbers are `Double`.
/// ``init(parsing:)`` parses bytes directly; a call decoding `JSONValue` uses the same parser.
public enum JSONValue: Sendable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number whose value is an integer that fits in `Int64` (`12`, also `12.0` and `1.2e1`, as
    /// `JSONDecoder` reads them).
    case integer(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; key order is not kept.
    case object([String: JSONValue])

    /// Decodes any JSON value, nested in a model (`let payload: JSONValue`) or at the top.
    ///
    /// Linear in the input's size and depth. Near the top, each type is tried in turn (Bool, Int64,
    /// Double, String, array, object); deeper than 8 levels a value is
    /// decoded once, as the type `JSONDecoder` holds, because every wrong guess makes `JSONDecoder`
    /// build an error with the whole coding path, which on Linux costs time quadratic in the depth
    /// (500 nested arrays took seconds). A number is `.integer` when its value is an integer that
    /// fits in `Int64`, else `.double`.
    /// - Throws: `DecodingError` when the input is not JSON.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
            return
        }
        let depth: Int
        var kind: DecoderValueKind?
        if let known = DecoderValueKind.depth {
            // Inside another JSONValue: the depth is known, the type read only when deep.
            depth = known
            if depth >= DecoderValueKind.attemptDepth { kind = DecoderValueKind.current(of: decoder)?.kind }
        } else {
            // The outermost JSONValue: where it is (a deep recursive model, or the top).
            let current = DecoderValueKind.current(of: decoder)
            depth = current?.depth ?? 0
            if depth >= DecoderValueKind.attemptDepth { kind = current?.kind }
        }
        let children = depth + 1
        switch kind {
        case .bool: self = .bool(try container.decode(Bool.self))
        case .number: self = try Self.number(in: container)
        case .string: self = .string(try container.decode(String.self))
        case .array:
            self = .array(
                try DecoderValueKind.$depth.withValue(children) { try container.decode([JSONValue].self) })
        case .object:
            self = .object(
                try DecoderValueKind.$depth.withValue(children) {
                    try container.decode([String: JSONValue].self)
                })
        case nil:
            self = try DecoderValueKind.$depth.withValue(children) { try Self.byAttempts(in: container) }
        }
    }

    /// A number as `JSONDecoder` gives it: `Int64` when its value is an integer that fits, else
    /// `Double`, without a failed attempt (but for a number within 1024 of ±2^63).
    private static func number(in container: any SingleValueDecodingContainer) throws -> JSONValue {
        // JSONDecoder reads `0e1` as an Int64 but refuses it as a Double.
        guard let double = try? container.decode(Double.self) else {
            return .integer(try container.decode(Int64.self))
        }
        // Below 2^53 a Double holds every integer exactly; above, ask for the exact Int64.
        if abs(double) < 0x1p53, let exact = Int64(exactly: double) { return .integer(exact) }
        if abs(double) <= 0x1p63, let exact = try? container.decode(Int64.self) { return .integer(exact) }
        return .double(double)
    }

    /// Each type in turn, as `JSONValue` always did near the top (and for decoders whose current
    /// value cannot be read).
    private static func byAttempts(in container: any SingleValueDecodingContainer) throws -> JSONValue {
        if let value = try? container.decode(Bool.self) { return .bool(value) }
        if let value = try? container.decode(Int64.self) { return .integer(value) }
        if let value = try? container.decode(Double.self) { return .double(value) }
        if let value = try? container.decode(String.self) { return .string(value) }
        if let value = try? container.decode([JSONValue].self) { return .array(value) }
        return .object(try container.decode([String: JSONValue].self))
    }

    /// Parses UTF-8 JSON bytes (UTF-16 and UTF-32 are read too) in one pass, strictly by RFC 8259,
    /// as a call decoding `JSONValue` does: no trailing commas, no `NaN`, well-formed UTF-8, `\u`
    /// escapes of lone surrogates refused; at most 512 nested arrays or objects (as `JSONDecoder`);
    /// for duplicate keys the first wins. Numbers as ``init(from:)``.
    /// - Parameter data: The JSON text.
    /// - Throws: ``NetLayerError/Code/decodingFailed`` saying why and where (a byte offset), with a
    ///   preview of the body.
    public init(parsing data: Data) throws(NetLayerError) {
        do {
            self = try Self.parse(data, decoder: JSONDecoder())
        } catch {
            throw NetLayerError.decodingFailed(
                error, type: JSONValue.self, body: data, redactor: Redactor(redaction: .default))
        }
    }

    /// `data` parsed by ``JSONParser`` when it reads it as `decoder` would (a plain `JSONDecoder`
    /// whose key and float strategies are the defaults, UTF-8 input), else decoded by `decoder`.
    /// - Throws: `DecodingError`.
    static func parse(_ data: Data, decoder: JSONDecoder) throws -> JSONValue {
        if JSONParser.reads(like: decoder) {
            do throws(JSONParser.Failure) {
                if let value = try JSONParser.parse(data) { return value }
            } catch {
                throw JSONParser.decodingError(error)
            }
        }
        return try decoder.decode(JSONValue.self, from: data)
    }

    /// Encodes the value as JSON.
    /// - Throws: `EncodingError` for a non-finite `Double` (unless the encoder allows it).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member named `key` of an object; `nil` for a missing key or a value that is no object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array; `nil` out of bounds or for a value that is no array.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, if this is one (or a `Double` with no fraction that fits in `Int`).
    public var intValue: Int? {
        switch self {
        case .integer(let value): Int(exactly: value)
        case .double(let value): Int(exactly: value)
        default: nil
        }
    }

    /// The number as a `Double`, if this is a number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, if this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }
}

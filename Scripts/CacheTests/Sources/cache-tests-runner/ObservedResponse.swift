import Foundation
import NetLayer

/// What the client under test answered for one request: status, fields and body.
struct ObservedResponse: Sendable {
    /// The status code.
    let status: Int
    /// The fields in order, repeated names kept.
    let fields: HeaderFields
    /// The body bytes.
    let body: Data

    /// A field's value as a fetch client reads it: every field of that name (any case) joined with
    /// `, `; `nil` when there is none.
    func field(_ name: String) -> String? {
        let values = fields.values(for: name)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// Whether a field of that name (any case) is present.
    func has(_ name: String) -> Bool { !fields.values(for: name).isEmpty }

    /// The body as text, decoded as UTF-8 with replacement characters (as `Response.text()`).
    var text: String { String(decoding: body, as: UTF8.self) }

    /// `Server-Request-Count`: which request the server counted this response for; `nil` when the
    /// field is absent or not a number (a response the cache made up).
    var serverRequestCount: Int? { field("Server-Request-Count").flatMap(JavaScriptInteger.parse) }
}

/// JavaScript's `parseInt(text)` for decimal text: leading white space, an optional sign, then as
/// many digits as there are; `nil` where JavaScript gives `NaN`.
enum JavaScriptInteger {
    /// The integer at the start of `text`, or `nil`.
    static func parse(_ text: String) -> Int? {
        var rest = Substring(text).drop(while: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        var negative = false
        if let sign = rest.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            rest = rest.dropFirst()
        }
        let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
        guard !digits.isEmpty, let magnitude = Int(digits) else { return nil }
        return negative ? -magnitude : magnitude
    }
}

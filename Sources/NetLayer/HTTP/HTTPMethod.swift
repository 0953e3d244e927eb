/// An HTTP request method such as `GET` or `POST`.
///
/// A struct rather than an enum so that extension methods (`PROPFIND`, `QUERY`, …) can be expressed
/// with `HTTPMethod(rawValue:)` without a new library release.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method token exactly as sent on the request line, for example `"GET"`.
    public let rawValue: String

    /// Creates a method from its token. The token is upper-cased, since methods are case-sensitive on
    /// the wire and every registered method is upper case.
    ///
    /// Never fails here; a value that is not an RFC 9110 token (empty, or holding a space, CR, LF,
    /// `/` or another separator) makes every call with it throw ``NetLayerError/Code/invalidMethod``
    /// before anything is sent, so it can never reach the request line.
    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }

    /// Whether the method is a non-empty RFC 9110 token, and so may be sent.
    public var isValid: Bool {
        switch rawValue {
        // The registered methods, recognized without walking their bytes (checked on every call).
        case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS": true
        default: !rawValue.isEmpty && rawValue.utf8.allSatisfy(HeaderFields.isTokenByte)
        }
    }

    /// `CONNECT`.
    public static let connect = HTTPMethod(rawValue: "CONNECT")
    /// `DELETE`: params go to the query unless files or a body are given.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `GET`: params always go to the query; a body is refused.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `HEAD`: params always go to the query; a body is refused.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `OPTIONS`: params go to the query unless files or a body are given.
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    /// `PATCH`: params go to a form (or JSON) body unless a body is given.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `POST`: params go to a form (or JSON) body unless a body is given.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`: params go to a form (or JSON) body unless a body is given.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `TRACE`.
    public static let trace = HTTPMethod(rawValue: "TRACE")

    /// The method token; a method that is not a token (which is never sent) shows its control
    /// characters escaped, so a message that names it cannot forge a log line.
    public var description: String { PrintableText.escaped(rawValue) }

    /// Methods whose params travel in the query string and which never carry a params body.
    var sendsParamsInQuery: Bool {
        switch rawValue {
        case "GET", "HEAD", "DELETE", "OPTIONS", "TRACE", "CONNECT": true
        default: false
        }
    }

    /// Methods that must never carry a body at all.
    var forbidsBody: Bool { rawValue == "GET" || rawValue == "HEAD" }
}

import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A decoded value together with everything known about the exchange that produced it.
public struct Response<Value: Sendable>: Sendable {
    /// The decoded value.
    public let value: Value
    /// The raw response body.
    public let data: Data
    /// Status, header fields and the URL that answered.
    public let head: ResponseHead
    /// The request as it was sent (the last hop's, after redirects).
    public let sentRequest: TransportRequest
    /// Time from the start of the call until the whole body arrived (all hops and attempts),
    /// including waits for admission and between retries: the same span the total deadline
    /// (`resourceTimeout`) covers.
    public let duration: Duration
    /// The redirects followed by the last attempt, oldest first; empty when its first response
    /// was the answer.
    public let redirects: [Redirect]
    /// How many attempts reached the transport: 1, plus one per retry and per replay after a
    /// credentials refresh. Default 1.
    public var attempts: Int = 1
    /// ``links``, parsed on first use (shared by copies, which have the same head).
    let parsedLinks = LockedValue<[WebLink]?>(nil)
    /// The secrets of the call, masked when the response is printed.
    var secrets = CallSecrets.none

    /// The HTTP status code.
    public var statusCode: Int { head.statusCode }

    /// The response's header fields; look one up with `headerFields["Link"]` (any case) or
    /// `headerFields.values(for: "Set-Cookie")`.
    public var headerFields: HeaderFields { head.headerFields }

    /// The HTTP response as Foundation's type (status, headers, final URL after redirects); `nil`
    /// only when a custom transport's head cannot be expressed as one. Prefer ``head`` and
    /// ``headerFields``.
    public var httpResponse: HTTPURLResponse? { head.httpURLResponse }

    /// The request as it was sent, as a `URLRequest` (see ``sentRequest``).
    public var request: URLRequest { sentRequest.urlRequest() }

    /// The URL that gave this response: the request's own, or the last redirect's target.
    public var url: URL? { head.url ?? sentRequest.url }
}

/// A model for responses with no content: a 204, or any body you want to ignore.
///
/// Decoding `Empty` never fails and never reads the body.
public struct Empty: Codable, Sendable, Hashable {
    /// Creates the empty value.
    public init() {}
    /// Accepts any JSON (or none) without reading it.
    public init(from decoder: any Decoder) throws {}
    /// Encodes `{}`.
    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: EmptyKey.self)
    }
    private struct EmptyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// Which responses count as success: a status predicate, and optionally the content types a
/// body may have. Set it on ``ResourceOptions/validation``, override it per target
/// (``Target/validation``) or per call (``Executor/validate(_:)``).
public struct Validation: Sendable {
    private let accepts: @Sendable (ResponseHead) -> Bool
    /// Accepted media types (`application/json`, `image/*`), lower-cased; `nil` for any.
    private var mediaTypes: [String]? = nil
    /// Statuses a terminal handles itself (an event stream's 204, a resumed download's 416).
    private var alsoAccepted: Set<Int> = []

    /// A validation from a predicate over the Foundation response. A head that Foundation cannot
    /// express (from a custom transport) is rejected.
    public init(_ accepts: @escaping @Sendable (HTTPURLResponse) -> Bool) {
        self.accepts = { head in head.httpURLResponse.map(accepts) ?? false }
    }

    /// A validation from a predicate over the response head.
    public init(head accepts: @escaping @Sendable (ResponseHead) -> Bool) {
        self.accepts = accepts
    }

    /// Accepts exactly these status codes.
    public init(acceptableStatusCodes codes: some Sequence<Int>) {
        let set = Set(codes)
        self.accepts = { set.contains($0.statusCode) }
    }

    /// Accepts these status codes with a body of one of these media types.
    /// - Parameters:
    ///   - codes: The acceptable statuses.
    ///   - contentTypes: See ``acceptingContentTypes(_:)``.
    public init(acceptableStatusCodes codes: some Sequence<Int>, contentTypes: [String]) {
        self = Validation(acceptableStatusCodes: codes).acceptingContentTypes(contentTypes)
    }

    /// This validation, also requiring an accepted status's `Content-Type` to be one of `types`,
    /// compared without parameters and case-insensitively; `image/*` accepts any image type and
    /// `application/json` also accepts `+json` types. A response that cannot have a body (204, 205,
    /// 304, or `Content-Length: 0`) passes. Anything else throws
    /// ``NetLayerError/Code/unacceptableContentType`` with the body, before decoding.
    public func acceptingContentTypes(_ types: [String]) -> Validation {
        var copy = self
        copy.mediaTypes = types.map { MediaType.essence($0) }
        return copy
    }

    /// Status 200–299; anything else throws ``NetLayerError/Code/unacceptableStatus`` with the body.
    /// The default, because a 4xx or 5xx body is almost never the model the caller asked for.
    public static let successfulStatusCodes = Validation(head: { (200..<300).contains($0.statusCode) })

    /// Accepts every response; for callers that inspect ``Response/statusCode`` themselves.
    public static let none = Validation(head: { _ in true })

    func accepts(_ response: ResponseHead) -> Bool { verdict(response) == .accepted }

    enum Verdict: Equatable {
        case accepted
        case status
        /// The expected types, for the error.
        case contentType(String)
    }

    /// This validation, also accepting `status` whatever its content type.
    func alsoAccepting(_ status: Int) -> Validation {
        var copy = self
        copy.alsoAccepted.insert(status)
        return copy
    }

    func verdict(_ response: ResponseHead) -> Verdict {
        if !alsoAccepted.isEmpty && alsoAccepted.contains(response.statusCode) { return .accepted }
        guard accepts(response) else { return .status }
        guard let mediaTypes else { return .accepted }
        if [204, 205, 304].contains(response.statusCode) || response.contentLength == 0 { return .accepted }
        let type = response.headerFields["Content-Type"].map { MediaType.essence($0) }
        if let type, mediaTypes.contains(where: { MediaType.matches(type, range: $0) }) { return .accepted }
        return .contentType(mediaTypes.joined(separator: " or "))
    }
}

/// Reason phrases for printing (the status line's own phrase is not exposed by URLSession).
enum StatusText {
    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 418: "I'm a teapot"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: HTTPURLResponse.localizedString(forStatusCode: status).capitalized
        }
    }
}

/// Bodies as printable text.
enum BodyText {
    /// UTF-8 text cut to `limit` characters (with the total length shown), or a byte count for
    /// binary data. `mask` runs on the whole text before it is cut, so a secret that straddles the
    /// cut is never half shown.
    static func preview(_ data: Data, limit: Int, mask: (String) -> String = { $0 }) -> String {
        if data.isEmpty { return "(empty)" }
        guard let whole = String(data: data, encoding: .utf8), isPrintable(whole) else {
            return "<\(data.count) bytes of binary data>"
        }
        let text = mask(whole)
        if text.count <= limit { return text }
        return String(text.prefix(limit)) + "… (\(data.count) bytes in all)"
    }

    static func isPrintable(_ text: String) -> Bool {
        !text.unicodeScalars.contains {
            $0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t" || $0.value == 0x7F
        }
    }
}

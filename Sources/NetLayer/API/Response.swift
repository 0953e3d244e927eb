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
    /// Where the call's time went: admission waits and every attempt (start, time to first byte,
    /// end, bytes, status, why it was sent); see ``CallMetrics``. Recorded whether or not an
    /// observer is installed.
    public var metrics: CallMetrics { record?.metrics ?? CallMetrics(start: .now) }
    /// The record of the call that made this response (its timeline is final); `nil` for a
    /// response made otherwise, whose ``metrics`` are empty.
    var record: AttemptRecord? = nil
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

import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request exactly as it goes on the wire: NetLayer's own value, cheap to build and copy. The
/// executor builds it; a ``Transport`` sends it. `URLRequest` is made only inside
/// ``URLSessionTransport``.
///
/// Named so as not to clash with the `Request` and `Response` types of server frameworks.
public struct TransportRequest: Sendable, Hashable {
    /// The method, an RFC 9110 token.
    public var method: HTTPMethod { didSet { isChecked = false } }
    /// The absolute URL, query included, never a fragment.
    public var url: URL { didSet { isChecked = false } }
    /// The header fields, checked; the transport adds the framing ones (`Content-Length`, `Host`).
    public var headerFields: HeaderFields { didSet { isChecked = false } }
    /// The body; `nil` for none.
    public var body: RequestBody?
    /// Whether ``check()`` passed (or NetLayer built the request checked) and nothing changed the
    /// method, URL or header fields since: a transport then need not check it again.
    var isChecked = false

    /// Creates a request.
    /// - Parameters:
    ///   - method: The method.
    ///   - url: The absolute URL.
    ///   - headerFields: Default none.
    ///   - body: Default none.
    public init(
        method: HTTPMethod, url: URL, headerFields: HeaderFields = HeaderFields(), body: RequestBody? = nil
    ) {
        self.method = method
        self.url = url
        self.headerFields = headerFields
        self.body = body
    }

    /// Equal when method, URL, header fields and body are (whether it was checked is not part of
    /// the request).
    public static func == (lhs: TransportRequest, rhs: TransportRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.headerFields == rhs.headerFields
            && lhs.body == rhs.body
    }

    /// Hashes method, URL, header fields and body.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(headerFields)
        hasher.combine(body)
    }

    /// The equivalent `URLRequest`: in-memory bodies as `httpBody`, others as `httpBodyStream`.
    /// `timeoutInterval` is set to a backstop above the idle timeout (Linux URLSession truncates
    /// sub-second values; NetLayer enforces the exact one).
    func urlRequest(idleTimeout: Duration? = nil, fileBodies: Bool = true) -> URLRequest {
        var request = URLRequest(url: url)
        // GET is the default; Linux Foundation normalizes a method on every assignment, which costs
        // more than building the rest of a simple request.
        if method != .get { request.httpMethod = method.rawValue }
        // One assignment instead of `setValue` per field: much cheaper on Linux.
        if !headerFields.isEmpty { request.allHTTPHeaderFields = headerFields.dictionary }
        if let body {
            if let bytes = body.inMemoryBytes {
                request.httpBody = bytes
            } else if fileBodies, let file = body.wholeFile {
                request.httpBodyStream = InputStream(url: file)
            }
        }
        if let idle = idleTimeout { request.timeoutInterval = idle.seconds.rounded(.up) + 1 }
        return request
    }
}

extension TransportRequest {
    /// Checks, for a custom ``Transport``, that the request may go on the wire: the method is a
    /// token, the URL is http(s) with a host, and every header field is one a caller may set (a
    /// token name, not a framing header, no control character but HTAB in the value). Free for a
    /// request NetLayer built and nothing changed since; a transport calls it before sending.
    /// - Throws: ``NetLayerError`` `.invalidMethod`, `.invalidURL` or `.invalidHeader`; send
    ///   nothing then.
    public func checkForSending() throws(NetLayerError) {
        if !isChecked { try check() }
    }

    /// Checks what code outside NetLayer's preparation may have set (an interceptor, an
    /// authenticator, a caller of a transport): the method is a token, the URL is http(s) with a
    /// host, and every header field is one a caller may set (a token name, not a framing header,
    /// no control character but HTAB in the value).
    /// - Throws: ``NetLayerError`` `.invalidMethod`, `.invalidURL` or `.invalidHeader`; nothing
    ///   is sent then.
    func check() throws(NetLayerError) {
        guard method.isValid else { throw .invalidMethod(method) }
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw .invalidURL(
                part: "scheme", value: scheme,
                reason: "a request is sent only to an http or https URL with a host")
        }
        for field in headerFields { _ = try HeaderFields.validated(name: field.name, value: field.value) }
    }
}

/// The status line and header fields of a response, and the URL that gave it.
public struct ResponseHead: Sendable {
    /// The HTTP status code.
    public let statusCode: Int
    /// The header fields as received.
    public var headerFields: HeaderFields { fields ?? foundation.map(Self.fields(of:)) ?? HeaderFields() }
    /// Set for heads made from fields; a Foundation response's fields are read only when asked
    /// for (a call that only checks the status never pays for them).
    private let fields: HeaderFields?
    /// The URL of the request that gave this response.
    public let url: URL?
    /// The Foundation response, when the transport had one (saves making it again).
    let foundation: HTTPURLResponse?
    /// The secrets of the call that received it, masked when it is printed.
    var secrets = CallSecrets.none
    /// Set on a head the cache made: the `Set-Cookie` values the server sent in this exchange (a
    /// 304's, a 5xx's; none for a hit). The cookie jar stores these, never the stored response's,
    /// which it stored when that response arrived: an answer from a cache shared by several
    /// resources never plants one caller's cookies in another's jar.
    var setCookiesFromServer: [String]?
    /// The HTTP version the response came with, spelled as OpenTelemetry's
    /// `network.protocol.version` (`1.0`, `1.1`, `2`, `3`), when the transport knows it. Default
    /// `nil` (URLSession does not tell it); a transport sets it on the head it returns.
    public var httpVersion: String?

    /// Creates a head (a custom transport or a stub).
    /// - Parameters:
    ///   - statusCode: The status, 100–599.
    ///   - headerFields: Default none.
    ///   - url: The request's URL.
    public init(statusCode: Int, headerFields: HeaderFields = HeaderFields(), url: URL?) {
        self.statusCode = statusCode
        self.fields = headerFields
        self.url = url
        self.foundation = nil
    }

    /// The head of a Foundation response.
    init(_ response: HTTPURLResponse) {
        statusCode = response.statusCode
        fields = nil
        url = response.url
        foundation = response
    }

    private static func fields(of response: HTTPURLResponse) -> HeaderFields {
        var fields: [(name: String, value: String)] = []
        for (key, value) in response.allHeaderFields {
            if let key = key as? String, let value = value as? String { fields.append((key, value)) }
        }
        return HeaderFields(received: fields)
    }

    /// The head as an `HTTPURLResponse`, for ``Validation`` predicates and Foundation APIs; `nil`
    /// only if Foundation refuses the values (a head made by a custom transport).
    public var httpURLResponse: HTTPURLResponse? {
        if let foundation { return foundation }
        var fields: [String: String] = [:]
        for field in headerFields {
            fields[field.name] = fields[field.name].map { "\($0), \(field.value)" } ?? field.value
        }
        return HTTPURLResponse(
            url: url ?? URL(fileURLWithPath: "/"), statusCode: statusCode, httpVersion: "HTTP/1.1",
            headerFields: fields)
    }

    /// The `Content-Length`, when the server sent a valid one.
    var contentLength: Int64? {
        headerFields["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }.flatMap {
            $0 >= 0 ? $0 : nil
        }
    }
}

/// What a transport returns: the head at once, the body as it arrives.
public struct TransportResponse: Sendable {
    /// Status, header fields and URL.
    public var head: ResponseHead
    /// The body, read once.
    public var body: ResponseBody

    /// Creates a response.
    public init(head: ResponseHead, body: ResponseBody) {
        self.head = head
        self.body = body
    }
}

import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one error every NetLayer call throws.
///
/// A struct wrapping a ``Code`` rather than an enum, so new kinds of failure can be added without
/// breaking code that handles today's. Match on ``code`` and read the fields that kind fills.
public struct NetLayerError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidURL, missingPathParts, unknownPathParts, invalidPathPart, invalidHeader
            case unsupportedBody, encodingFailed, unacceptableStatus, decodingFailed, transport
            case timedOut, cancelled, invalidMethod, invalidValue, tooManyRedirects, redirectRefused
            case responseTooLarge, bodyConsumed, fileFailed, unacceptableContentType
            case authenticationFailed, interceptorFailed
            case tooManyPages, linkLoop
        }

        private let base: Base

        /// A URL part (domain, version, path) cannot form a valid URL; see ``NetLayerError/part``.
        public static let invalidURL = Code(base: .invalidURL)
        /// The path template has tokens no value was given for; see ``NetLayerError/keys``.
        public static let missingPathParts = Code(base: .missingPathParts)
        /// Path-part values were given for keys that match no token; see ``NetLayerError/keys``.
        public static let unknownPathParts = Code(base: .unknownPathParts)
        /// A path-part value is empty, `.`, `..`, or not a scalar.
        public static let invalidPathPart = Code(base: .invalidPathPart)
        /// A header name is not an RFC 9110 token or is one NetLayer owns (`Content-Length`, `Host`,
        /// …), or a value holds a control character other than HTAB; see ``NetLayerError/part``.
        public static let invalidHeader = Code(base: .invalidHeader)
        /// The method is not an RFC 9110 token (empty, or holding a space, CR, LF or a separator).
        public static let invalidMethod = Code(base: .invalidMethod)
        /// A number or setting cannot be used: a timeout or rate limit of zero or less; see
        /// ``NetLayerError/part``.
        public static let invalidValue = Code(base: .invalidValue)
        /// More redirects than the limit allows; see ``NetLayerError/redirects``.
        public static let tooManyRedirects = Code(base: .tooManyRedirects)
        /// A redirect NetLayer will not follow: from `https` to `http` (unless allowed), to a scheme
        /// other than HTTP, or to a `Location` that is not a URL.
        public static let redirectRefused = Code(base: .redirectRefused)
        /// The combination asked for cannot be sent (a body on GET, a body together with files, …).
        public static let unsupportedBody = Code(base: .unsupportedBody)
        /// Params or a body could not be encoded (a non-finite number in JSON, an unreadable file, …).
        public static let encodingFailed = Code(base: .encodingFailed)
        /// The server answered with a status the validation rejects; see ``NetLayerError/statusCode``,
        /// ``NetLayerError/headers`` and ``NetLayerError/body``.
        public static let unacceptableStatus = Code(base: .unacceptableStatus)
        /// The response's `Content-Type` is not what the call reads (an event stream that is not
        /// `text/event-stream`); see ``NetLayerError/statusCode``, ``NetLayerError/headers`` and
        /// ``NetLayerError/body``.
        public static let unacceptableContentType = Code(base: .unacceptableContentType)
        /// The body did not decode as the expected model; see ``NetLayerError/codingPath`` and
        /// ``NetLayerError/body``.
        public static let decodingFailed = Code(base: .decodingFailed)
        /// The connection failed; see ``NetLayerError/urlError``.
        public static let transport = Code(base: .transport)
        /// The idle timeout or the total deadline elapsed.
        public static let timedOut = Code(base: .timedOut)
        /// The calling task (or the handle of a completion-handler call) was cancelled.
        public static let cancelled = Code(base: .cancelled)
        /// A response body was longer than the limit it was collected with.
        public static let responseTooLarge = Code(base: .responseTooLarge)
        /// A response body was read a second time; bodies are single-pass.
        public static let bodyConsumed = Code(base: .bodyConsumed)
        /// A download could not be written, resumed or moved into place; see
        /// ``NetLayerError/underlying``.
        public static let fileFailed = Code(base: .fileFailed)

        /// The ``Authenticator`` failed: its refresh threw (every call waiting for that refresh
        /// gets this), or it could not add credentials; see ``NetLayerError/underlying``.
        public static let authenticationFailed = Code(base: .authenticationFailed)
        /// An ``Interceptor`` threw an error of its own; see ``NetLayerError/underlying``.
        public static let interceptorFailed = Code(base: .interceptorFailed)

        /// Paging (``Executor/pages(model:at:maximumPages:debug:)``): the last page allowed still
        /// links to a next one; raise `maximumPages` to read further.
        public static let tooManyPages = Code(base: .tooManyPages)
        /// Paging: a page's `next` link leads back to a page already read, which would repeat
        /// forever.
        public static let linkLoop = Code(base: .linkLoop)

        /// The code's name, for example `unacceptableStatus`.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// One line a person can act on. Secrets are redacted as in debug output, and characters a
    /// terminal would act on — controls (CR and LF as `\r`, `\n`), bidi overrides — are shown
    /// escaped, as `\u{1B}`, whoever chose the text (a server's header, a URL, an error's text).
    public internal(set) var message: String {
        get { PrintableText.escaped(rawMessage) }
        set { rawMessage = newValue }
    }
    /// The message as built, before escaping: what redaction masks. Setting ``message`` stores the
    /// (escaped) text given, which ``Redactor`` masks as well.
    private(set) var rawMessage: String
    /// The URL part that is invalid (`domain`, `version`, `path`) or the header name, if any.
    public internal(set) var part: String?
    /// Path-part keys that are missing (``Code/missingPathParts``) or unknown
    /// (``Code/unknownPathParts``).
    public internal(set) var keys: [String] = []
    /// Path-part keys that match no token. A ``Code/missingPathParts`` error lists them here too,
    /// since a missing `repo` next to an unknown `rep` is one typo. Default empty.
    public internal(set) var unknownKeys: [String] = []
    /// The HTTP status of an unacceptable response.
    public internal(set) var statusCode: Int?
    /// The response headers of an unacceptable response.
    public internal(set) var headers: [String: String] = [:]
    /// The response body (unacceptable status, decoding failure), complete.
    public internal(set) var body: Data?
    /// The coding path of a decoding failure, as `items[2].title`.
    public internal(set) var codingPath: String?
    /// The underlying URL loading error of a transport failure.
    public internal(set) var urlError: URLError?
    /// The underlying error, when one exists (an encoder's or decoder's error, a transport's).
    public internal(set) var underlying: (any Error)?
    /// The service's own error for this unacceptable response, made by the call's
    /// ``ErrorMapping``. Set only on errors delivered to a completion handler (every other call
    /// path throws the service's error itself). Default `nil`.
    public internal(set) var serviceError: (any Error)?
    /// The redirects followed before the failure, oldest first.
    public internal(set) var redirects: [Redirect] = []
    /// How many attempts the call made, the failing one included (more than 1 after retries and
    /// after a replay with refreshed credentials). `0` when nothing was sent.
    public internal(set) var attempts = 0
    /// The timeline of the call up to the failure: admission waits and every attempt (see
    /// ``CallMetrics``); `nil` when the call never started (its request could not be built, or a
    /// setting was invalid) or the error did not come from a call.
    public internal(set) var metrics: CallMetrics? {
        get { metricsBox?.metrics }
        set { metricsBox = newValue.map(MetricsBox.init) }
    }
    /// ``metrics`` in a box: an error is copied often, its timeline rarely read.
    private var metricsBox: MetricsBox?
    /// Hides secrets in every text this error prints (set once the request is known).
    var redactor: Redactor?

    init(_ code: Code, _ message: String) {
        self.code = code
        self.rawMessage = message
    }

    /// `NetLayer.<code>: <message>`, on one line, with controls shown escaped as in ``message``;
    /// when the error carries a text body (an unacceptable status or content type), followed by
    /// ` · body: ` and its first 200 characters (then `…`): secret JSON keys and form fields redacted
    /// by name as in debug output, every secret the request sent masked, controls shown escaped. A
    /// binary body is not shown (the message gives its size), and a decoding failure's message holds
    /// its own preview.
    ///
    /// `NetLayer.unacceptableStatus: GET https://api.example.com/v1/repos/a/b answered 404 Not Found
    /// (29 bytes) · body: no stub for GET /v1/repos/a/b`
    public var description: String {
        let line = "NetLayer.\(code): \(message)"
        guard code != .decodingFailed, let body,
            let text = BodyText.line(
                body, contentType: header("Content-Type"),
                redactor: redactor ?? Redactor(redaction: .default),
                limit: Self.descriptionBodyLimit)
        else { return line }
        return line + " · body: " + text
    }

    /// The most characters of a body ``description`` shows.
    static let descriptionBodyLimit = 200

    /// The description plus status, redacted headers and a body preview, for logs: one line per
    /// part, each with controls shown escaped as in ``message``. Secrets are redacted as in debug
    /// output, including values echoed back by the server.
    public var debugDescription: String {
        var parts = [description]
        if let statusCode { parts.append("status: \(statusCode)") }
        if !headers.isEmpty {
            let redaction = redactor?.redaction ?? .default
            // A name is masked too: a server may echo a secret as a header's name.
            let lines = headers.sorted { $0.key.lowercased() < $1.key.lowercased() }.map {
                "\(mask($0.key)): \(mask(redaction.value($0.value, for: $0.key)))"
            }
            parts.append("headers: " + lines.joined(separator: " · "))
        }
        if let preview = rawBodyPreview(limit: 512) { parts.append("body: \(preview)") }
        if let codingPath, !codingPath.isEmpty { parts.append("coding path: \(codingPath)") }
        if let urlError { parts.append("URLError: \(urlError.code.rawValue)") }
        if !redirects.isEmpty { parts.append("redirects: \(redirects.count)") }
        if attempts > 1 { parts.append("attempts: \(attempts)") }
        // Redacted first, then escaped: each part stays one line.
        return parts.map { PrintableText.escaped($0) }.joined(separator: "\n")
    }

    /// Masks the secrets of the request in `text` (when the request is known).
    private func mask(_ text: String) -> String { redactor?.mask(text) ?? text }

    /// A body text as printed: secret JSON keys and form fields redacted by name, then masked.
    private func maskBody(_ text: String) -> String {
        BodyText.redacted(
            text, contentType: header("Content-Type"), redactor: redactor ?? Redactor(redaction: .default))
    }

    /// Attaches the request's redaction and masks the message; called once per failed call.
    func redacted(by redactor: Redactor) -> NetLayerError {
        var copy = self
        copy.redactor = redactor
        copy.rawMessage = redactor.mask(rawMessage)
        copy.redirects = redirects.printed(with: CallSecrets(redactor))
        return copy
    }

    /// A response header of an unacceptable response, by name compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first(where: { $0.key.caseInsensitiveEquals(name) })?.value
    }

    /// The body as UTF-8 text, cut to `limit` characters with the total length shown.
    /// Secrets of the request that the body echoes are masked. Line breaks are kept; other
    /// characters a terminal would act on (a lone CR, C1 controls, bidi overrides) are shown
    /// escaped, as `\u{202E}`. A body holding other control characters is shown as binary.
    public func bodyPreview(limit: Int = 512) -> String? {
        rawBodyPreview(limit: limit).map { PrintableText.escaped($0, keepingLineBreaks: true) }
    }

    /// The body preview, masked but not escaped.
    private func rawBodyPreview(limit: Int) -> String? {
        body.map { BodyText.preview($0, limit: max(0, limit), mask: maskBody) }
    }
}

extension NetLayerError {
    static func invalidURL(part: String, value: String, reason: String) -> NetLayerError {
        var error = NetLayerError(
            .invalidURL, "invalid URL: the \(part) \"\(value)\" cannot be used because \(reason)")
        error.part = part
        return error
    }

    /// Tokens without a value, and the keys that matched no token (a typo, usually), in one
    /// message: `no value for path part "repo" in "/repos/:owner/:repo"; "rep" matches no token —
    /// did you mean "repo"?`.
    static func missingPathParts(_ keys: [String], unknown: [String] = [], template: String) -> NetLayerError
    {
        var message =
            "no value for path part\(keys.count > 1 ? "s" : "") \(quoted(keys)) in \(template.debugDescription)"
        if !unknown.isEmpty {
            message += "; \(unknownText(unknown, candidates: keys))"
        }
        var error = NetLayerError(.missingPathParts, message)
        error.keys = keys
        error.unknownKeys = unknown
        return error
    }

    static func unknownPathParts(_ keys: [String], template: String) -> NetLayerError {
        var error = NetLayerError(
            .unknownPathParts, "\(unknownText(keys, candidates: [])) in \(template.debugDescription)")
        error.keys = keys
        error.unknownKeys = keys
        return error
    }

    /// `"rep" matches no token — did you mean "repo"?`
    private static func unknownText(_ unknown: [String], candidates: [String]) -> String {
        let verb = unknown.count > 1 ? "match" : "matches"
        var text = "\(quoted(unknown)) \(verb) no token"
        let hints = unknown.compactMap { key in
            NearMiss.suggestion(for: key, among: candidates).map { "\"\($0)\" for \"\(key)\"" }
        }
        if unknown.count == 1, let only = NearMiss.suggestion(for: unknown[0], among: candidates) {
            text += " — did you mean \"\(only)\"?"
        } else if !hints.isEmpty {
            text += " — did you mean \(hints.joined(separator: ", "))?"
        }
        return text
    }

    private static func quoted(_ keys: [String]) -> String {
        keys.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    static func invalidPathPart(_ key: String, reason: String) -> NetLayerError {
        var error = NetLayerError(.invalidPathPart, "path part \(key) is invalid: \(reason)")
        error.keys = [key]
        return error
    }

    static func invalidHeader(name: String, reason: String) -> NetLayerError {
        var error = NetLayerError(.invalidHeader, "header \(name.debugDescription) is invalid: \(reason)")
        error.part = name
        return error
    }

    static func unsupportedBody(_ reason: String) -> NetLayerError {
        NetLayerError(.unsupportedBody, reason)
    }

    static func encodingFailed(_ reason: String, underlying: (any Error)? = nil) -> NetLayerError {
        var error = NetLayerError(.encodingFailed, "encoding failed: \(reason)")
        error.underlying = underlying
        return error
    }

    static func unacceptableStatus(
        _ response: ResponseHead, body: Data, method: HTTPMethod, redactor: Redactor
    ) -> NetLayerError {
        let status = response.statusCode
        let url = response.url.map { redactor.url($0) } ?? "?"
        var error = NetLayerError(
            .unacceptableStatus,
            "\(method) \(url) answered \(status) \(StatusText.reason(status)) (\(body.count) bytes)")
        error.statusCode = status
        var headers: [String: String] = [:]
        for field in response.headerFields {
            headers[field.name] = headers[field.name].map { "\($0), \(field.value)" } ?? field.value
        }
        error.headers = headers
        error.body = body
        return error
    }

    static func unacceptableContentType(
        _ response: ResponseHead, expected: String, body: Data, method: HTTPMethod, redactor: Redactor
    ) -> NetLayerError {
        let url = response.url.map { redactor.url($0) } ?? "?"
        let type = response.headerFields["Content-Type"].map { "\"\($0)\"" } ?? "no Content-Type"
        let status = unacceptableStatus(response, body: body, method: method, redactor: redactor)
        var error = NetLayerError(
            .unacceptableContentType,
            "\(method) \(url) answered \(response.statusCode) with \(type), not \(expected) (\(body.count) bytes)"
        )
        error.statusCode = status.statusCode
        error.headers = status.headers
        error.body = body
        return error
    }

    /// - Parameter request: `GET https://…` (redacted) when the body came from a response.
    static func decodingFailed(
        _ decodingError: any Error, type: Any.Type, body: Data, redactor: Redactor, request: String? = nil
    ) -> NetLayerError {
        var path = ""
        var reason = "\(decodingError)"
        if let decodingError = decodingError as? DecodingError {
            let context: DecodingError.Context?
            switch decodingError {
            case .typeMismatch(_, let ctx), .valueNotFound(_, let ctx), .dataCorrupted(let ctx): context = ctx
            case .keyNotFound(let key, let ctx):
                context = DecodingError.Context(
                    codingPath: ctx.codingPath + [key], debugDescription: ctx.debugDescription)
            @unknown default: context = nil
            }
            if let context {
                path = codingPathText(context.codingPath)
                reason = context.debugDescription
            }
        }
        let at = (path.isEmpty ? "" : " at \(path)") + (request.map { " from \($0)" } ?? "")
        var error = NetLayerError(
            .decodingFailed,
            "cannot decode \(type)\(at): \(reason) Body: \(BodyText.preview(body, limit: 200) { BodyText.redacted($0, contentType: nil, redactor: redactor) })"
        )
        error.codingPath = path
        error.body = body
        error.underlying = decodingError
        return error
    }

    static func codingPathText(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    static func transport(_ urlError: URLError, method: HTTPMethod, url: URL?, redactor: Redactor)
        -> NetLayerError
    {
        let location = url.map { " \(redactor.url($0))" } ?? ""
        var error = NetLayerError(
            .transport,
            "\(method)\(location) failed: \(urlError.localizedDescription) (URLError \(urlError.code.rawValue))"
        )
        error.urlError = urlError
        error.underlying = urlError
        return error
    }

    static func transport(other: any Error, method: HTTPMethod, url: URL, redactor: Redactor) -> NetLayerError
    {
        var error = NetLayerError(.transport, "\(method) \(redactor.url(url)) failed: \(other)")
        error.underlying = other
        return error
    }

    static func timedOut(_ reason: String) -> NetLayerError {
        NetLayerError(.timedOut, "timed out: \(reason)")
    }

    static func invalidMethod(_ method: HTTPMethod) -> NetLayerError {
        var error = NetLayerError(
            .invalidMethod,
            "method \(method.rawValue.debugDescription) is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~ only)"
        )
        error.part = "method"
        return error
    }

    static func redirectRefused(_ reason: String) -> NetLayerError {
        NetLayerError(.redirectRefused, "redirect refused: \(reason)")
    }

    static func tooManyRedirects(_ redirects: [Redirect], limit: Int) -> NetLayerError {
        var error = NetLayerError(
            .tooManyRedirects, "more than \(limit) redirect\(limit == 1 ? "" : "s") (RedirectPolicy.maximum)")
        error.redirects = redirects
        return error
    }

    static func invalidValue(part: String, reason: String) -> NetLayerError {
        var error = NetLayerError(.invalidValue, "invalid \(part): \(reason)")
        error.part = part
        return error
    }

    static let cancelled = NetLayerError(.cancelled, "the request was cancelled")

    /// The same error with `text` added to its message (` (GET https://…)`).
    func appending(_ text: String) -> NetLayerError {
        var copy = self
        copy.rawMessage += text
        return copy
    }

    static func authenticationFailed(_ reason: String, underlying: (any Error)?) -> NetLayerError {
        var error = NetLayerError(.authenticationFailed, underlying.map { "\(reason): \($0)" } ?? reason)
        error.underlying = underlying
        return error
    }

    static func interceptorFailed(_ underlying: any Error) -> NetLayerError {
        var error = NetLayerError(.interceptorFailed, "an interceptor failed: \(underlying)")
        error.underlying = underlying
        return error
    }

    static func fileFailed(_ reason: String, underlying: (any Error)? = nil) -> NetLayerError {
        var error = NetLayerError(.fileFailed, reason)
        error.underlying = underlying
        return error
    }
}

extension NetLayerError {
    /// A ``Code/responseTooLarge`` error of a collected call, saying how to raise its limit.
    func explainingLimit(_ limit: Int) -> NetLayerError {
        guard !message.contains("ResourceOptions.maximumResponseSize") else { return self }
        var explained = self
        explained.message +=
            "; ResourceOptions.maximumResponseSize is \(limit) bytes: raise it (nil lifts it) for a server"
            + " you trust, or read the body with stream() or download(to:)"
        return explained
    }
}

/// A call's metrics, held by reference (see ``NetLayerError/metrics``).
final class MetricsBox: Sendable {
    let metrics: CallMetrics
    init(_ metrics: CallMetrics) { self.metrics = metrics }
}

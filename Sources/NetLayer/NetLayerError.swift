import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one error every NetLayer call throws.
///
/// A struct wrapping a ``Code`` rather than an enum, so new kinds of failure can be added without
/// breaking code that handles today's. Match on ``code`` and read the fields that kind fills.
public struct NetLayerError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidURL, missingPathParts, unknownPathParts, invalidPathPart, invalidHeader
            case unsupportedBody, encodingFailed, unacceptableStatus, decodingFailed, transport
            case timedOut, cancelled
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
        /// A header name or value holds CR, LF or NUL, or the name is not an HTTP token.
        public static let invalidHeader = Code(base: .invalidHeader)
        /// The combination asked for cannot be sent (a body on GET, a body together with files, …).
        public static let unsupportedBody = Code(base: .unsupportedBody)
        /// Params or a body could not be encoded (a non-finite number in JSON, an unreadable file, …).
        public static let encodingFailed = Code(base: .encodingFailed)
        /// The server answered with a status the validation rejects; see ``NetLayerError/statusCode``,
        /// ``NetLayerError/headers`` and ``NetLayerError/body``.
        public static let unacceptableStatus = Code(base: .unacceptableStatus)
        /// The body did not decode as the expected model; see ``NetLayerError/codingPath`` and
        /// ``NetLayerError/body``.
        public static let decodingFailed = Code(base: .decodingFailed)
        /// The connection failed; see ``NetLayerError/urlError``.
        public static let transport = Code(base: .transport)
        /// The idle timeout or the total deadline elapsed.
        public static let timedOut = Code(base: .timedOut)
        /// The calling task (or the handle of a completion-handler call) was cancelled.
        public static let cancelled = Code(base: .cancelled)

        /// The code's name, for example `unacceptableStatus`.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// One line a person can act on.
    public let message: String
    /// The URL part that is invalid (`domain`, `version`, `path`) or the header name, if any.
    public internal(set) var part: String?
    /// Path-part keys that are missing or unknown.
    public internal(set) var keys: [String] = []
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

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `NetLayer.<code>: <message>`.
    public var description: String { "NetLayer.\(code): \(message)" }

    /// A response header of an unacceptable response, by name compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first(where: { $0.key.caseInsensitiveEquals(name) })?.value
    }

    /// The body as UTF-8 text, cut to `limit` characters with the total length shown.
    public func bodyPreview(limit: Int = 512) -> String? {
        body.map { BodyText.preview($0, limit: limit) }
    }
}

extension NetLayerError {
    static func invalidURL(part: String, value: String, reason: String) -> NetLayerError {
        var error = NetLayerError(
            .invalidURL, "invalid URL: the \(part) \"\(value)\" cannot be used because \(reason)")
        error.part = part
        return error
    }

    static func missingPathParts(_ keys: [String], template: String) -> NetLayerError {
        var error = NetLayerError(
            .missingPathParts,
            "no value for path part\(keys.count > 1 ? "s" : "") \(keys.joined(separator: ", ")) in \"\(template)\""
        )
        error.keys = keys
        return error
    }

    static func unknownPathParts(_ keys: [String], template: String) -> NetLayerError {
        var error = NetLayerError(
            .unknownPathParts,
            "path part\(keys.count > 1 ? "s" : "") \(keys.joined(separator: ", ")) match no token in \"\(template)\""
        )
        error.keys = keys
        return error
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

    static func unacceptableStatus(_ response: HTTPURLResponse, body: Data, method: HTTPMethod)
        -> NetLayerError
    {
        let status = response.statusCode
        let url = response.url.map { Redaction.stripCredentials($0) } ?? "?"
        var error = NetLayerError(
            .unacceptableStatus,
            "\(method) \(url) answered \(status) \(StatusText.reason(status)) (\(body.count) bytes)")
        error.statusCode = status
        var headers: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key] = value }
        }
        error.headers = headers
        error.body = body
        return error
    }

    static func decodingFailed(_ decodingError: any Error, type: Any.Type, body: Data) -> NetLayerError {
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
        let at = path.isEmpty ? "" : " at \(path)"
        var error = NetLayerError(
            .decodingFailed,
            "cannot decode \(type)\(at): \(reason) Body: \(BodyText.preview(body, limit: 200))")
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

    static func transport(_ urlError: URLError, method: HTTPMethod, url: URL?) -> NetLayerError {
        let location = url.map { " \(Redaction.stripCredentials($0))" } ?? ""
        var error = NetLayerError(
            .transport,
            "\(method)\(location) failed: \(urlError.localizedDescription) (URLError \(urlError.code.rawValue))"
        )
        error.urlError = urlError
        error.underlying = urlError
        return error
    }

    static func transport(other: any Error, method: HTTPMethod) -> NetLayerError {
        var error = NetLayerError(.transport, "\(method) failed: \(other)")
        error.underlying = other
        return error
    }

    static func timedOut(_ reason: String) -> NetLayerError {
        NetLayerError(.timedOut, "timed out: \(reason)")
    }

    static let cancelled = NetLayerError(.cancelled, "the request was cancelled")
}

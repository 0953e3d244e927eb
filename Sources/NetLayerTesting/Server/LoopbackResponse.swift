import Foundation
import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What ``LoopbackServer`` sends back for one request.
///
/// Unless the handler sets `Content-Length` or `Transfer-Encoding` itself, the server adds
/// `Content-Length: body.count` (or `Transfer-Encoding: chunked` when ``chunked``). 1xx, 204 and 304
/// responses never carry a body or a `Content-Length`; HEAD responses get the header fields
/// (including the `Content-Length` the body would have) but no body. No `Date` or `Server` field is
/// ever added. The shorthands `.json`, `.text` and `.data` come from ``ScriptedResponse``. A handler that frames the body wrongly on purpose (a `Content-Length` that does not
/// match) gets exactly that on the wire, and the connection is closed afterwards.
///
/// ```swift
/// server.route("/v1/books/1") { _ in .json(#"{"id":1,"title":"Dune"}"#) }
/// server.route("/slow") { _ in LoopbackResponse.text("late").delayed(by: .seconds(2)) }
/// ```
public struct LoopbackResponse: ScriptedResponse {
    /// The status code. Default 200.
    public var status: Int
    /// The reason phrase; `nil` (the default) sends the standard one for ``status``.
    public var reason: String?
    /// The header fields, in order; names may repeat.
    public var headerFields: HeaderFields
    /// The body. Ignored when ``streamedBody`` is set.
    public var body: Data
    /// How long to wait before sending anything. Default none.
    public var delay: Duration = .zero
    /// Send the head at once, then the body in pieces with pauses. Default `nil`: all at once.
    public var drip: Drip?
    /// Use `Transfer-Encoding: chunked`; each drip piece (or the whole body) is one chunk.
    /// Default `false`.
    public var chunked: Bool = false
    /// Close the connection after this response (adds `Connection: close`). Default `false`.
    public var closeConnection: Bool = false
    /// Close the connection without sending anything (after ``delay``): the client sees the
    /// connection lost. Default `false`.
    public var dropConnection: Bool = false
    /// A body generated piece by piece while it is written, never held whole; when set, it replaces
    /// ``body`` and ``drip``. Default `nil`.
    public var streamedBody: StreamedBody?
    /// Exact bytes to put on the wire instead of a response NetLayer's server frames: each piece is
    /// sent after its pause, nothing is added, and the connection is closed afterwards. For hostile
    /// servers: 1xx heads before the final one, trailers, a head cut in the middle. When set, every
    /// other property but ``delay`` is ignored. Default `nil`.
    public var rawWire: [RawPiece]?

    /// Creates a response.
    /// - Parameters:
    ///   - status: Default 200.
    ///   - headers: Name and value pairs, in order. Default none.
    ///   - body: Default empty.
    public init(status: Int = 200, headers: [(String, String)] = [], body: Data = Data()) {
        self.status = status
        self.reason = nil
        self.headerFields = HeaderFields(received: headers.map { (name: $0.0, value: $0.1) })
        self.body = body
    }

    /// A JSON body serialized from a Foundation object (dictionaries, arrays, strings, numbers,
    /// `NSNull`) with sorted keys and unescaped slashes; `null` when it cannot be serialized.
    /// - Parameters:
    ///   - object: The object.
    ///   - status: Default 200.
    public static func json(object: Any, status: Int = 200) -> LoopbackResponse {
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        let data =
            JSONSerialization.isValidJSONObject(object)
            ? (try? JSONSerialization.data(withJSONObject: object, options: options)) ?? Data("null".utf8)
            : Data("null".utf8)
        return LoopbackResponse(status: status, headers: [("Content-Type", "application/json")], body: data)
    }

    /// Closes the connection without answering: the client sees the connection lost.
    public static func drop() -> LoopbackResponse {
        var response = LoopbackResponse(status: 0)
        response.dropConnection = true
        return response
    }

    /// 404 `text/plain` naming the method and target: what a server without a matching route
    /// answers by default.
    /// - Parameter request: The request that matched no route.
    public static func notFound(_ request: RecordedRequest) -> LoopbackResponse {
        .text("no route for \(request.method) \(request.target)", status: 404)
    }

    /// 200 `application/json` describing the request: `method`, `path`, `target`, `query` (raw
    /// string or null), `headers` (lowercased name → value; repeated names joined with ", "),
    /// `body` (UTF-8 text, or base64 when not valid UTF-8), `bodyEncoding` (`utf8` / `base64`),
    /// `bodyLength`, `connectionID`. Sorted keys.
    /// - Parameter request: The request to describe.
    public static func echo(_ request: RecordedRequest) -> LoopbackResponse {
        var headers: [String: String] = [:]
        for field in request.headerFields {
            let key = field.name.lowercased()
            headers[key] = headers[key].map { "\($0), \(field.value)" } ?? field.value
        }
        let text = request.bodyText
        let object: [String: Any] = [
            "method": request.method,
            "path": request.path,
            "target": request.target,
            "query": request.rawQuery.map { $0 as Any } ?? NSNull(),
            "headers": headers,
            "body": text ?? request.body.base64EncodedString(),
            "bodyEncoding": text == nil ? "base64" : "utf8",
            "bodyLength": request.body.count,
            "connectionID": request.connectionID,
        ]
        return .json(object: object)
    }

    /// The first value of the header field `name` (compared case-insensitively); `nil` when absent.
    public func header(_ name: String) -> String? {
        headerFields[name]
    }

    /// Replaces every header field named `name` (compared case-insensitively) with one `name: value`.
    public mutating func setHeader(_ name: String, _ value: String) {
        var fields = headerFields.map { (name: $0.name, value: $0.value) }
        fields.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        fields.append((name, value))
        headerFields = HeaderFields(received: fields)
    }

    /// Appends a header field, keeping the existing ones with the same name.
    public mutating func addHeader(_ name: String, _ value: String) {
        headerFields = HeaderFields(
            received: headerFields.map { (name: $0.name, value: $0.value) } + [(name, value)])
    }

    /// One piece of a ``rawWire`` response: bytes sent as they are, after a pause.
    public struct RawPiece: Sendable {
        /// How long to wait before sending ``bytes``. Default none.
        public var pause: Duration
        /// The bytes, sent as they are.
        public var bytes: Data

        /// Creates a piece.
        /// - Parameters:
        ///   - bytes: The bytes, sent as they are.
        ///   - pause: How long to wait first. Default none.
        public init(_ bytes: Data, after pause: Duration = .zero) {
            self.bytes = bytes
            self.pause = pause
        }

        /// Creates a piece of text, sent as UTF-8.
        /// - Parameters:
        ///   - text: The text; write `\r\n` line ends yourself.
        ///   - pause: How long to wait first. Default none.
        public init(_ text: String, after pause: Duration = .zero) {
            self.init(Data(text.utf8), after: pause)
        }
    }

    /// A response of exact bytes (see ``rawWire``): sent piece by piece, then the connection is
    /// closed.
    /// ```swift
    /// server.route("/hints") { _ in
    ///     .raw([.init("HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"),
    ///           .init("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", after: .milliseconds(50))])
    /// }
    /// ```
    public static func raw(_ pieces: [RawPiece]) -> LoopbackResponse {
        var response = LoopbackResponse()
        response.rawWire = pieces
        return response
    }

    /// A copy that waits `delay` before sending anything.
    public func delayed(by delay: Duration) -> LoopbackResponse {
        var copy = self
        copy.delay = delay
        return copy
    }

    /// A copy whose body is sent in pieces with pauses.
    public func dripped(_ drip: Drip) -> LoopbackResponse {
        var copy = self
        copy.drip = drip
        return copy
    }

    /// Whether ``status`` forbids a body (1xx, 204, 304).
    public var statusForbidsBody: Bool {
        (100..<200).contains(status) || status == 204 || status == 304
    }

    /// The reason phrase sent when ``reason`` is `nil`.
    static func standardReason(for status: Int) -> String {
        switch status {
        case 200: "OK"
        case 100..<600: HTTPURLResponse.localizedString(forStatusCode: status).capitalized
        default: "Unknown"
        }
    }
}

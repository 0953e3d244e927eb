import Foundation
import NetLayer

/// A request as a test double received it: from ``StubTransport`` (the request NetLayer handed to
/// its transport) or from ``LoopbackServer`` (the bytes that arrived on the socket).
///
/// ```swift
/// let request = try #require(stub.requests.last)
/// #expect(request.method == "POST")
/// #expect(request.path == "/v1/books")
/// #expect(request.header("content-type") == "application/json")
/// #expect(request.bodyText == #"{"title":"Dune"}"#)
/// ```
public struct RecordedRequest: Sendable {
    /// The method as sent, for example `GET`.
    public let method: String
    /// The full URL; `nil` only when the server received a target Foundation cannot parse.
    public let url: URL?
    /// The request-target exactly as sent (percent-encoded), for example `/v1/books/a%2Fb?x=1&y=%20`.
    public let target: String
    /// ``target`` before the first `?`, still percent-encoded as sent.
    public let path: String
    /// Everything after the first `?`, exactly as sent; `nil` when there is no `?`.
    public let rawQuery: String?
    /// `HTTP/1.1` or `HTTP/1.0`. The stub transport always says `HTTP/1.1`.
    public let version: String
    /// The header fields in the order they were sent, names spelled as sent; look them up
    /// case-insensitively with ``header(_:)`` or `headerFields["name"]`. The stub transport records
    /// what NetLayer handed it, without the framing fields a real transport adds (`Host`,
    /// `Content-Length`); the server records what arrived.
    public let headerFields: HeaderFields
    /// The exact body bytes: file and multipart bodies read whole, chunked bodies de-chunked.
    /// Empty when there was no body.
    public let body: Data
    /// Trailer fields of a chunked body (server only; usually empty).
    public let trailers: HeaderFields
    /// When the request (its head, for the server) arrived.
    public let receivedAt: ContinuousClock.Instant
    /// Identifies the TCP connection the server read it from; equal for requests that shared a
    /// kept-alive connection. `0` for the stub transport, which has no connections.
    public let connectionID: Int
    /// 1 for the first request on its connection, 2 for the second, … `0` for the stub transport.
    public let sequenceOnConnection: Int

    init(
        method: String, url: URL?, target: String, version: String, headerFields: HeaderFields, body: Data,
        trailers: HeaderFields = HeaderFields(), receivedAt: ContinuousClock.Instant = .now,
        connectionID: Int = 0, sequenceOnConnection: Int = 0
    ) {
        self.method = method
        self.url = url
        self.target = target
        let question = target.firstIndex(of: "?")
        self.path = question.map { String(target[..<$0]) } ?? target
        self.rawQuery = question.map { String(target[target.index(after: $0)...]) }
        self.version = version
        self.headerFields = headerFields
        self.body = body
        self.trailers = trailers
        self.receivedAt = receivedAt
        self.connectionID = connectionID
        self.sequenceOnConnection = sequenceOnConnection
    }

    /// The first value of the header field `name` (compared case-insensitively); `nil` when absent.
    public func header(_ name: String) -> String? {
        headerFields[name]
    }

    /// Every value of the header field `name` (compared case-insensitively), in order.
    public func headerValues(_ name: String) -> [String] {
        headerFields.values(for: name)
    }

    /// The body as UTF-8 text; `nil` when it is not valid UTF-8.
    public var bodyText: String? { String(data: body, encoding: .utf8) }

    /// The body decoded from JSON.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: Default a plain `JSONDecoder`.
    /// - Throws: The decoder's error.
    public func decodeBody<Value: Decodable>(
        as type: Value.Type, decoder: JSONDecoder = JSONDecoder()
    ) throws -> Value {
        try decoder.decode(type, from: body)
    }

    /// The query split on `&` and the first `=`, names and values percent-decoded (`+` is left as
    /// is, as RFC 3986 says); an item without `=` has the value `""`.
    public var queryItems: [URLQueryItem] { QueryString.parse(rawQuery) }

    /// The first decoded value of the query item `name`; `nil` when absent.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// Every decoded value of the query item `name`, in order.
    public func queryValues(_ name: String) -> [String] {
        queryItems.filter { $0.name == name }.compactMap(\.value)
    }
}

/// Query-string parsing shared by ``RecordedRequest`` and route matching.
enum QueryString {
    static func parse(_ rawQuery: String?) -> [URLQueryItem] {
        guard let rawQuery, !rawQuery.isEmpty else { return [] }
        return rawQuery.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(String(parts[0]))
            let value = parts.count > 1 ? decode(String(parts[1])) : ""
            return URLQueryItem(name: name, value: value)
        }
    }

    /// Percent-decodes, keeping the input unchanged when it is not valid percent-encoding.
    static func decode(_ text: String) -> String {
        text.removingPercentEncoding ?? text
    }
}

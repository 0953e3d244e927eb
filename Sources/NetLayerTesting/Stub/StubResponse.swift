import Foundation
import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What ``StubTransport`` answers one request with: a status, header fields and a body, or a
/// failure, optionally after a delay.
///
/// ```swift
/// StubResponse.json(#"{"id":1,"title":"Dune"}"#)
/// StubResponse.text("busy", status: 503).delayed(by: .milliseconds(50))
/// StubResponse.failure(.networkConnectionLost)
/// ```
public struct StubResponse: Sendable {
    /// The status code. Default 200.
    public var status: Int
    /// The header fields, sent as given (nothing is added: no `Content-Length`, no `Date`).
    public var headerFields: HeaderFields
    /// The body. Default empty.
    public var body: Data
    /// How long the response takes to arrive, measured from the moment the request was handed to
    /// the transport. The call's idle timeout and total deadline cut it (``NetLayerError/Code/timedOut``),
    /// and cancelling the calling task ends it. Default none; longer than `Timeouts.maximum` (7 days)
    /// counts as that.
    public var delay: Duration
    /// Fail with this error (after ``delay``) instead of answering: NetLayer reports
    /// ``NetLayerError/Code/transport`` with it, or ``NetLayerError/Code/timedOut`` for
    /// `URLError.timedOut`. Default `nil`.
    public var failure: URLError?

    /// Creates a response.
    /// - Parameters:
    ///   - status: Default 200.
    ///   - headers: Name and value pairs, in order. Default none.
    ///   - body: Default empty.
    ///   - delay: Default none.
    public init(
        status: Int = 200, headers: [(String, String)] = [], body: Data = Data(), delay: Duration = .zero
    ) {
        self.status = status
        self.headerFields = HeaderFields(received: headers.map { (name: $0.0, value: $0.1) })
        self.body = body
        self.delay = delay
        self.failure = nil
    }

    /// A JSON body with `Content-Type: application/json`.
    /// - Parameters:
    ///   - text: The JSON text, sent as UTF-8.
    ///   - status: Default 200.
    public static func json(_ text: String, status: Int = 200) -> StubResponse {
        StubResponse(status: status, headers: [("Content-Type", "application/json")], body: Data(text.utf8))
    }

    /// A JSON body encoded from a value, with `Content-Type: application/json`.
    /// - Parameters:
    ///   - value: The value.
    ///   - status: Default 200.
    ///   - encoder: Default a plain `JSONEncoder`.
    /// - Throws: The encoder's error.
    public static func json<Value: Encodable>(
        encoding value: Value, status: Int = 200, encoder: JSONEncoder = JSONEncoder()
    ) throws -> StubResponse {
        StubResponse(
            status: status, headers: [("Content-Type", "application/json")], body: try encoder.encode(value))
    }

    /// A text body with `Content-Type: text/plain; charset=utf-8`.
    /// - Parameters:
    ///   - text: The text, sent as UTF-8.
    ///   - status: Default 200.
    public static func text(_ text: String, status: Int = 200) -> StubResponse {
        StubResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data(text.utf8))
    }

    /// Raw bytes.
    /// - Parameters:
    ///   - data: The body.
    ///   - contentType: Default `application/octet-stream`.
    ///   - status: Default 200.
    public static func data(_ data: Data, contentType: String = "application/octet-stream", status: Int = 200)
        -> StubResponse
    {
        StubResponse(status: status, headers: [("Content-Type", contentType)], body: data)
    }

    /// A status without a body (a 204, a 304, a bare 500).
    /// - Parameter status: The status code.
    public static func status(_ status: Int) -> StubResponse {
        StubResponse(status: status)
    }

    /// A failure instead of a response, as if the connection failed: `.timedOut`,
    /// `.networkConnectionLost`, `.cannotConnectToHost`, `.notConnectedToInternet`, …
    /// - Parameter code: The `URLError` code.
    public static func failure(_ code: URLError.Code) -> StubResponse {
        var response = StubResponse(status: 0)
        response.failure = URLError(code)
        return response
    }

    /// A copy that arrives after `delay` (see ``delay``).
    public func delayed(by delay: Duration) -> StubResponse {
        var copy = self
        copy.delay = delay
        return copy
    }
}

import Foundation
import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What ``StubTransport`` answers one request with: a status, header fields and a body, or a
/// failure, optionally after a delay. The shorthands `.json`, `.text` and `.data` come from
/// ``ScriptedResponse``.
///
/// ```swift
/// StubResponse.json(#"{"id":1,"title":"Dune"}"#)
/// StubResponse.text("busy", status: 503).delayed(by: .milliseconds(50))
/// StubResponse.failure(.networkConnectionLost)
/// ```
public struct StubResponse: ScriptedResponse {
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
    public init(status: Int = 200, headers: [(String, String)] = [], body: Data = Data()) {
        self.status = status
        self.headerFields = HeaderFields(received: headers.map { (name: $0.0, value: $0.1) })
        self.body = body
        self.delay = .zero
        self.failure = nil
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

import Foundation
import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``Transport`` that answers from memory and records every request, for testing code that uses
/// NetLayer without a network.
///
/// It sits where `URLSession` would, so everything else still happens: headers and params are
/// merged and encoded, the body is built, redirects are followed, responses are validated and
/// decoded, and errors are NetLayer's own. It answers each request from a closure, or from a table
/// of canned responses matched by method and path (see ``StubRoute``); a request the table does
/// not match gets a 404 or an error naming it (see ``UnmatchedRequests``).
///
/// ```swift
/// let stub = StubTransport()
/// stub.on(.get, "/v1/books", .json(#"[{"id":1,"title":"Dune"}]"#))
/// let api = BookstoreAPI(transport: stub)
/// let books = try await api.books().list(page: 1)
/// #expect(stub.requests.last?.queryValue("page") == "1")
/// ```
///
/// Sendable: the table and the recordings are behind a lock; copies are not made (it is a class),
/// so the resource and the test look at the same recordings.
public final class StubTransport: Transport, Sendable {
    private struct State: Sendable {
        var routes: [StubRoute]
        var requests: [RecordedRequest] = []
    }

    private let state: Locked<State>
    private let respond: (@Sendable (RecordedRequest) async throws -> StubResponse)?
    private let unmatched: UnmatchedRequests
    private let redaction: Redaction

    /// A stub that answers from a table.
    /// - Parameters:
    ///   - routes: The table; add more with ``on(_:_:query:_:)``. When several routes match, the
    ///     last one wins, so a route added later overrides an earlier one. Default empty.
    ///   - unmatched: What a request no route matches gets. Default ``UnmatchedRequests/notFound``:
    ///     a 404 whose body names the request.
    ///   - redaction: Which query items' values the text naming an unmatched request hides; pass
    ///     your resource's when it names more secrets. Default ``Redaction/default``.
    public init(
        routes: [StubRoute] = [], unmatched: UnmatchedRequests = .notFound, redaction: Redaction = .default
    ) {
        state = Locked(State(routes: routes))
        respond = nil
        self.unmatched = unmatched
        self.redaction = redaction
    }

    /// A stub that answers every request with a closure (routes added with ``on(_:_:query:_:)``
    /// are consulted first).
    /// - Parameter respond: Makes the response; it may inspect the request, count calls, sleep or
    ///   throw. An error it throws is what the transport throws: a `URLError` becomes
    ///   ``NetLayerError/Code/transport`` (or ``NetLayerError/Code/timedOut``), a
    ///   `CancellationError` ``NetLayerError/Code/cancelled``, anything else
    ///   ``NetLayerError/Code/transport`` with it as the underlying error. Its own running time
    ///   is not cut by timeouts; use ``StubResponse/delay`` for a slow answer.
    public init(_ respond: @escaping @Sendable (RecordedRequest) async throws -> StubResponse) {
        state = Locked(State(routes: []))
        self.respond = respond
        unmatched = .notFound
        redaction = .default
    }

    /// Adds a route to the table; it wins over earlier routes that match the same requests.
    /// - Parameters:
    ///   - method: `nil` matches any method.
    ///   - path: The full path, version included: `/v1/books/1`.
    ///   - query: Query items that must be present with these values. Default `nil`: any query.
    ///   - response: The answer.
    public func on(
        _ method: HTTPMethod?, _ path: String, query: [String: String]? = nil, _ response: StubResponse
    ) {
        let route = StubRoute(method, path, query: query, response)
        state.withLock { $0.routes.append(route) }
    }

    /// Every request received so far, in order.
    public var requests: [RecordedRequest] {
        state.withLock { $0.requests }
    }

    /// The requests whose path equals `path` (as sent or decoded, without the query).
    public func requests(path: String) -> [RecordedRequest] {
        requests.filter { $0.path == path || QueryString.decode($0.path) == path }
    }

    /// Forgets the recorded requests; the table is kept.
    public func reset() {
        state.withLock { $0.requests.removeAll() }
    }

    /// Records `request` (reading file and multipart bodies into bytes), picks the answer, waits its
    /// delay within the context's timeouts, and returns it with the whole body in memory.
    /// - Throws: ``NetLayerError/Code/timedOut`` when the delay outlasts the idle timeout or the
    ///   total deadline, `CancellationError` when the calling task is cancelled, the response's
    ///   ``StubResponse/failure``, ``UnmatchedRequestError``, the closure's error, or
    ///   ``NetLayerError/Code/encodingFailed`` when a body file cannot be read.
    public func send(_ request: TransportRequest, context: TransportContext) async throws -> TransportResponse
    {
        let start = ContinuousClock.now
        try Task.checkCancellation()
        let recorded = try await Self.record(request)
        let route = state.withLock { state in
            state.requests.append(recorded)
            return state.routes.last { $0.matches(recorded) }
        }
        let response: StubResponse
        if let route {
            response = route.response
        } else if let respond {
            response = try await respond(recorded)
        } else if unmatched == .fail {
            throw UnmatchedRequestError(request: recorded, redaction: redaction)
        } else {
            response = .text(UnmatchedRequestError.text(for: recorded, redaction: redaction), status: 404)
        }
        try await StubDelay.wait(response.delay, from: start, timeouts: context.timeouts)
        if let failure = response.failure { throw failure }
        if let length = request.body?.length, length > 0 {
            context.progress?.reportUpload(sent: length, expected: length)
        }
        let length = Int64(response.body.count)
        context.progress?.reportDownload(received: length, expected: length)
        let head = ResponseHead(
            statusCode: response.status, headerFields: response.headerFields, url: request.url)
        return TransportResponse(head: head, body: ResponseBody(response.body))
    }

    /// The request as a recording: target from the percent-encoded URL, body read into bytes.
    private static func record(_ request: TransportRequest) async throws -> RecordedRequest {
        var body = Data()
        if let requestBody = request.body {
            if let bytes = requestBody.inMemoryBytes {
                body = bytes
            } else {
                for try await chunk in requestBody.chunks() { body.append(chunk) }
            }
        }
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? ""
        let query = components?.percentEncodedQuery.map { "?" + $0 } ?? ""
        return RecordedRequest(
            method: request.method.rawValue, url: request.url, target: (path.isEmpty ? "/" : path) + query,
            version: "HTTP/1.1", headerFields: request.headerFields, body: body)
    }
}

/// Waits a stub response's delay the way a transport enforces ``TransportContext/timeouts``.
enum StubDelay {
    /// Sleeps until `start + delay`, or throws `timedOut` at the idle timeout or total deadline if
    /// either comes first (nothing arrives during a delay, so both count from `start`).
    /// - Throws: ``NetLayerError/Code/timedOut``, or `CancellationError` when the task is cancelled.
    static func wait(_ delay: Duration, from start: ContinuousClock.Instant, timeouts: Timeouts) async throws
    {
        let delay = clamped(delay)
        var limit: (duration: Duration, reason: String)?
        if let idle = timeouts.idle {
            limit = (clamped(idle), "no data for \(idle) (idle timeout)")
        }
        if let total = timeouts.total, limit.map({ clamped(total) < $0.duration }) ?? true {
            limit = (clamped(total), "the total deadline of \(total) elapsed")
        }
        if let limit, limit.duration <= delay {
            try await Task.sleep(until: start + limit.duration, clock: .continuous)
            throw NetLayerError.timedOut(reason: limit.reason)
        }
        if delay > .zero {
            try await Task.sleep(until: start + delay, clock: .continuous)
        }
        try Task.checkCancellation()
    }

    /// Between zero and `Timeouts.maximum`, so the clock arithmetic cannot overflow.
    private static func clamped(_ duration: Duration) -> Duration {
        min(max(duration, .zero), Timeouts.maximum)
    }
}

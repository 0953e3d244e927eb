import Foundation
import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What one running scenario works with: the transport under test, its own loopback server, and
/// the checks that turn a mismatch into a ``ConformanceFailure``.
struct Probe: Sendable {
    let scenario: TransportConformance.Scenario
    let transport: any Transport
    let server: LoopbackServer

    init(scenario: TransportConformance.Scenario, transport: any Transport) throws {
        self.scenario = scenario
        self.transport = transport
        self.server = try LoopbackServer.start()
    }

    /// A failure of this scenario.
    func failure(expected: String, actual: String) -> ConformanceFailure {
        ConformanceFailure(scenario: scenario.id, expected: expected, actual: actual)
    }

    /// Throws a failure unless `condition` holds.
    func expect(
        _ condition: Bool, _ expected: @autoclosure () -> String, got actual: @autoclosure () -> String
    ) throws(ConformanceFailure) {
        if !condition { throw failure(expected: expected(), actual: actual()) }
    }

    /// A request to `path` on this scenario's server.
    func request(
        _ method: HTTPMethod, _ path: String, headers: HeaderFields = HeaderFields(), body: RequestBody? = nil
    ) -> TransportRequest {
        TransportRequest(method: method, url: server.url(path), headerFields: headers, body: body)
    }

    /// A GET of `path` on this scenario's server.
    func request(_ path: String, headers: HeaderFields = HeaderFields()) -> TransportRequest {
        request(.get, path, headers: headers)
    }

    /// Sends `request` and reads the whole body.
    /// - Throws: A failure naming `what` when the transport throws.
    func fetch(
        _ request: TransportRequest, context: TransportContext = TransportContext(), expecting what: String
    ) async throws -> (head: ResponseHead, body: Data) {
        do {
            let response = try await transport.send(request, context: context)
            return (response.head, try await response.body.collect(upTo: 64 << 20))
        } catch {
            throw failure(expected: what, actual: Self.describe(error))
        }
    }

    /// Sends `request` and reads the whole body, which must fail.
    /// - Returns: The error the transport threw.
    /// - Throws: A failure naming `what` when the call succeeds.
    func fetchFails(
        _ request: TransportRequest, context: TransportContext = TransportContext(), expecting what: String
    ) async throws -> any Error {
        let outcome: (head: ResponseHead, body: Data)
        do {
            let response = try await transport.send(request, context: context)
            outcome = (response.head, try await response.body.collect(upTo: 64 << 20))
        } catch {
            return error
        }
        throw failure(
            expected: what,
            actual: "status \(outcome.head.statusCode) with a body of \(outcome.body.count) bytes "
                + Self.quoted(outcome.body))
    }

    /// Runs `operation`, which must end within `limit`; it is cancelled when it does not (and
    /// when the calling task is).
    /// - Throws: The operation's error, or a failure naming `what` when time ran out (the
    ///   operation may then still be running: a transport that ignores cancellation cannot hold
    ///   the scenario).
    func within<Value: Sendable>(
        _ limit: Duration, _ what: String, _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let work = Task { try await operation() }
        let late = failure(
            expected: "\(what) within \(Self.seconds(limit))",
            actual: "it had not after that long")
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Value, any Error>) in
                let pending = Locked<CheckedContinuation<Value, any Error>?>(continuation)
                let resume: @Sendable (Result<Value, any Error>) -> Void = { result in
                    let waiting = pending.withLock { waiting in
                        defer { waiting = nil }
                        return waiting
                    }
                    waiting?.resume(with: result)
                }
                let timer = Task {
                    try await Task.sleep(for: limit)
                    resume(.failure(late))
                    work.cancel()
                }
                Task {
                    let result = await work.result
                    timer.cancel()
                    resume(result)
                }
            }
        } onCancel: {
            work.cancel()
        }
    }

    /// Waits until the server has no open connection (a cancelled call closed its own).
    /// - Throws: A failure naming `what` when a connection is still open after `limit`.
    func expectConnectionsClosed(within limit: Duration, _ what: String) async throws {
        let deadline = ContinuousClock.now + limit
        while server.openConnectionCount > 0 {
            if ContinuousClock.now >= deadline {
                throw failure(
                    expected: what,
                    actual:
                        "\(server.openConnectionCount) connection(s) still open after \(Self.seconds(limit))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// A NetLayer resource on this scenario's server that sends through the transport under test.
    func resource(maximumRedirects: Int = RedirectPolicy.default.maximum) -> Resource {
        Resource(
            protocol: .http, domain: server.hostAndPort, transport: transport,
            options: ResourceOptions { $0.redirects = RedirectPolicy(maximum: maximumRedirects) })
    }

    /// Whether `error` says the call was cancelled: `CancellationError`, `NetLayerError` with
    /// code `.cancelled`, or `URLError.cancelled`.
    static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        if let error = error as? NetLayerError { return error.code == .cancelled }
        if let error = error as? URLError { return error.code == .cancelled }
        return false
    }

    /// Whether `error` is `NetLayerError` with code `.timedOut`.
    static func isTimeout(_ error: any Error) -> Bool {
        (error as? NetLayerError)?.code == .timedOut
    }

    /// An error as a failure reports it: its type and text, at most 300 characters.
    static func describe(_ error: any Error) -> String {
        let text: String
        if let error = error as? NetLayerError {
            text = "NetLayerError .\(error.code): \(error.message)"
        } else if let error = error as? URLError {
            text = "URLError \(error.code.rawValue): \(error.localizedDescription)"
        } else {
            text = "\(type(of: error)): \(error)"
        }
        return text.count > 300 ? String(text.prefix(300)) + "…" : text
    }

    /// A duration as `1.5 s`.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return "\((value * 1000).rounded() / 1000) s"
    }

    /// Up to 80 bytes of `data` in quotes, as UTF-8 (invalid bytes replaced).
    static func quoted(_ data: Data) -> String {
        let text = String(decoding: data.prefix(80), as: UTF8.self)
        return "\"\(text)\(data.count > 80 ? "…" : "")\""
    }
}

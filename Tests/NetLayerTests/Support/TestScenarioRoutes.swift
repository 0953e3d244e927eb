import Foundation

@testable import NetLayerTesting

/// A latch that server handlers block on: a handler calls `wait()` and its connection thread stays
/// there until the test calls `open()`. The wait gives up after `timeout` (a failed test never
/// leaves a server thread blocked for good), and says so.
///
/// ```swift
/// let gate = TestGate()
/// defer { gate.open() }
/// server.route(path) { request in gate.wait(); return .echo(request) }
/// ```
final class TestGate: Sendable {
    private let state = TestLocked(false)

    init() {}

    /// Lets every waiting and future handler through.
    func open() { state.withLock { $0 = true } }

    var isOpen: Bool { state.withLock { $0 } }

    /// Blocks the calling (server) thread until `open()`; `false` when `timeout` passed first.
    @discardableResult
    func wait(timeout: Duration = .seconds(30)) -> Bool {
        state.wait(timeout: timeout) { $0 }
    }
}

/// How many requests a server handler is working on at once, and the most it ever saw.
final class TestGauge: Sendable {
    private let state = TestLocked((current: 0, maximum: 0, total: 0))

    init() {}

    var current: Int { state.withLock { $0.current } }
    var maximum: Int { state.withLock { $0.maximum } }
    /// Requests that entered so far.
    var total: Int { state.withLock { $0.total } }

    /// Counts `body` as one request in progress while it runs.
    func measure<T>(_ body: () -> T) -> T {
        state.withLock { value in
            value.current += 1
            value.total += 1
            value.maximum = max(value.maximum, value.current)
        }
        defer { state.withLock { $0.current -= 1 } }
        return body()
    }
}

extension TestServer {
    /// Answers the requests to `path` in turn with `responses`; the last one answers every later
    /// request. Count the attempts with `requests(path:)`.
    ///
    /// ```swift
    /// server.script(path, [.text("no", status: 500), .text("no", status: 500), .json(#"{"id":1}"#)])
    /// ```
    func script(_ path: String, _ responses: [TestResponse]) {
        precondition(!responses.isEmpty, "a script needs at least one response")
        let hits = HitCounter()
        route(path) { _ in
            let index = hits.next() - 1
            return responses[min(index, responses.count - 1)]
        }
    }

    /// Like `script(_:_:)`, with responses made from each request (to echo it).
    func script(_ path: String, responders responses: [@Sendable (RecordedRequest) -> TestResponse]) {
        precondition(!responses.isEmpty, "a script needs at least one response")
        let hits = HitCounter()
        route(path) { request in
            let index = hits.next() - 1
            return responses[min(index, responses.count - 1)](request)
        }
    }

    /// Answers `path` after holding each request in the handler for `hold` (on the server's
    /// thread), counting the requests in progress in `gauge`.
    func gauged(_ path: String, gauge: TestGauge, hold: Duration = .milliseconds(30)) {
        route(path) { request in
            gauge.measure {
                Thread.sleep(forTimeInterval: hold.testSeconds)
                return .echo(request)
            }
        }
    }
}

extension TestResponse {
    /// `status` with a `Retry-After` header and a short text body.
    static func retryAfter(_ value: String, status: Int = 503) -> TestResponse {
        var response = TestResponse.text("try again after \(value)", status: status)
        response.addHeader("Retry-After", value)
        return response
    }
}

extension Duration {
    /// The duration in (fractional) seconds, for Foundation's APIs.
    var testSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

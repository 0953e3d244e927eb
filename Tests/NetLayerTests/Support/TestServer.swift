import Foundation

@testable import NetLayerTesting

typealias TestResponse = LoopbackResponse
typealias TestDrip = LoopbackResponse.Drip
typealias TestStreamedBody = LoopbackResponse.StreamedBody
typealias TestLocked = Locked

/// NetLayer's own test server: the public `LoopbackServer` (from NetLayerTesting) started with the
/// built-in scenario routes of `TestRoutes` (echo by default) and the transfer routes of
/// `TestTransferRoutes`, whose `/sink...` bodies are streamed, never held whole.
///
/// ```swift
/// let server = try TestServer.start()
/// defer { server.stop() }
/// server.route("/books/1") { _ in .json(#"{"id":1}"#) }
/// let (data, _) = try await URLSession.shared.data(from: server.url("/echo?x=1"))
/// #expect(server.requests(path: "/echo").count == 1)
/// ```
final class TestServer: Sendable {
    /// The server itself.
    let loopback: LoopbackServer
    /// Flaky counters and transfer records.
    let scenarios: TestScenarios

    /// Binds 127.0.0.1:0 with the scenario routes. Bodies above `maxBodyBytes` get 413 (except on
    /// `/sink...`, which streams up to 8 GiB; see `TestTransferRoutes`).
    static func start(maxBodyBytes: Int = 256 << 20) throws -> TestServer {
        let scenarios = TestScenarios()
        let loopback = try LoopbackServer.start(
            maxBodyBytes: maxBodyBytes,
            fallback: { request in
                TestTransferRoutes.response(for: request, scenarios: scenarios)
                    ?? TestRoutes.response(for: request, flakyAttempt: { scenarios.nextFlakyAttempt($0) })
            },
            bodyStreaming: TestTransferRoutes.bodyStreaming(scenarios))
        return TestServer(loopback: loopback, scenarios: scenarios)
    }

    private init(loopback: LoopbackServer, scenarios: TestScenarios) {
        self.loopback = loopback
        self.scenarios = scenarios
    }

    var port: Int { loopback.port }
    var hostAndPort: String { loopback.hostAndPort }
    var baseURL: URL { loopback.baseURL }
    func url(_ pathAndQuery: String) -> URL { loopback.url(pathAndQuery) }
    func stop() { loopback.stop() }
    var requests: [RecordedRequest] { loopback.requests }
    func requests(path: String) -> [RecordedRequest] { loopback.requests(path: path) }
    var openConnectionCount: Int { loopback.openConnectionCount }
    var acceptedConnectionCount: Int { loopback.acceptedConnectionCount }
    var rejectedRequestCount: Int { loopback.rejectedRequestCount }

    func route(_ path: String, _ handler: @escaping @Sendable (RecordedRequest) -> TestResponse) {
        loopback.route(path, handler)
    }

    func removeRoute(_ path: String) { loopback.removeRoute(path) }

    func waitForRequests(count: Int, path: String? = nil, timeout: Duration = .seconds(5)) async
        -> [RecordedRequest]
    {
        await loopback.waitForRequests(count: count, path: path, timeout: timeout)
    }

    /// Forgets the recorded requests, sink records and pattern records (routes, flaky counters,
    /// used `interruptKey`s and connections are kept).
    func reset() {
        loopback.reset()
        scenarios.state.withLock { shared in
            shared.transfers.sinkRecords.removeAll()
            shared.transfers.patternRecords.removeAll()
        }
    }

    /// Forgets how many times each `/flaky` key was hit.
    func resetFlakyCounters() {
        scenarios.state.withLock { $0.flakyCounts.removeAll() }
    }
}

/// The scenario routes' state, shared by the server's connection threads.
final class TestScenarios: Sendable {
    struct State: Sendable {
        var flakyCounts: [String: Int] = [:]
        /// Sink and pattern records, `interruptOnce` keys (see `TestTransferRoutes`).
        var transfers = TestTransferLog()
    }

    let state = Locked(State())

    /// Counts a hit on `/flaky` for `key`; returns the attempt number (1, 2, ...).
    func nextFlakyAttempt(_ key: String) -> Int {
        state.withLock { shared in
            shared.flakyCounts[key, default: 0] += 1
            return shared.flakyCounts[key, default: 0]
        }
    }
}

/// The transfer routes' records (see `TestTransferRoutes`).
extension TestServer {
    /// Every `/sink...` body streamed so far (complete or not), in the order the bodies ended.
    var sinkRecords: [TestSinkRecord] {
        scenarios.state.withLock { $0.transfers.sinkRecords }
    }

    /// Sink records whose path equals `path` exactly.
    func sinkRecords(path: String) -> [TestSinkRecord] {
        scenarios.state.withLock { $0.transfers.sinkRecords.filter { $0.path == path } }
    }

    /// `/pattern...` and `/firehose...` responses so far, in the order they started, with live progress.
    func patternRecords(path: String) -> [TestPatternRecord] {
        scenarios.state.withLock { $0.transfers.patternRecords.filter { $0.path == path } }
    }

    /// Polls until at least `count` sink records with `path` exist, or `timeout` passes; returns them.
    func waitForSinkRecords(
        count: Int, path: String, timeout: Duration = .seconds(5)
    ) async -> [TestSinkRecord] {
        await poll(timeout: timeout, read: { sinkRecords(path: path) }, until: { $0.count >= count })
    }

    /// Polls until the latest pattern record for `path` satisfies `condition`, or `timeout` passes;
    /// returns the latest record (nil when there is none).
    func waitForPatternRecord(
        path: String, timeout: Duration = .seconds(5), until condition: (TestPatternRecord) -> Bool
    ) async -> TestPatternRecord? {
        await poll(
            timeout: timeout, read: { patternRecords(path: path).last },
            until: { latest in latest.map(condition) ?? false })
    }

    /// Polls until at least `count` pattern records for `path` exist and all of them ended, or
    /// `timeout` passes; returns them. A client can hold a whole body a moment before the server has
    /// recorded its last piece, so wait with this before asserting on finished responses.
    func waitForEndedPatternRecords(
        count: Int, path: String, timeout: Duration = .seconds(5)
    ) async -> [TestPatternRecord] {
        await poll(
            timeout: timeout, read: { patternRecords(path: path) },
            until: { $0.count >= count && $0.allSatisfy(\.ended) })
    }

    private func poll<Value>(
        timeout: Duration, read: () -> Value, until done: (Value) -> Bool
    ) async -> Value {
        let deadline = ContinuousClock.now + timeout
        while true {
            let value = read()
            if done(value) || ContinuousClock.now >= deadline { return value }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}

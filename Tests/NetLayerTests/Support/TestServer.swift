import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An in-process HTTP/1.1 server on 127.0.0.1 for tests: plain BSD sockets, one thread per
/// connection, keep-alive, chunked and `Expect: 100-continue` request bodies, built-in routes (see
/// `TestRoutes`; `TestTransferRoutes` for huge streamed bodies) and custom routes. It records every
/// request it reads, in arrival order.
///
/// ```swift
/// let server = try TestServer.start()
/// defer { server.stop() }
/// server.route("/books/1") { _ in .json(#"{"id":1}"#) }
/// let (data, _) = try await URLSession.shared.data(from: server.url("/echo?x=1"))
/// #expect(server.requests(path: "/echo").count == 1)
/// ```
final class TestServer: Sendable {
    /// The port the kernel picked on 127.0.0.1.
    let port: Int
    private let core: TestServerCore

    var hostAndPort: String { "127.0.0.1:\(port)" }

    /// `http://127.0.0.1:<port>`
    var baseURL: URL { url("") }

    /// `http://127.0.0.1:<port>` followed by `pathAndQuery` exactly as given (already encoded).
    func url(_ pathAndQuery: String) -> URL {
        guard let url = URL(string: "http://\(hostAndPort)\(pathAndQuery)") else {
            preconditionFailure("TestServer.url: not a valid URL path: \(pathAndQuery)")
        }
        return url
    }

    /// Binds 127.0.0.1:0 and starts the accept thread. Bodies above `maxBodyBytes` get 413 (except
    /// on `/sink...`, which streams up to 8 GiB; see `TestTransferRoutes`).
    static func start(maxBodyBytes: Int = 256 << 20) throws -> TestServer {
        let listener = try TestSocket.makeLoopbackListener()
        let wake: (read: Int32, write: Int32)
        do {
            wake = try TestSocket.makeWakePipe()
        } catch {
            _ = close(listener.fd)
            throw error
        }
        let core = TestServerCore(maxBodyBytes: maxBodyBytes, listener: listener.fd, wakeWrite: wake.write)
        let thread = Thread { core.runAcceptLoop(listener: listener.fd, wakeRead: wake.read) }
        thread.name = "TestServer.accept.\(listener.port)"
        thread.start()
        return TestServer(port: listener.port, core: core)
    }

    private init(port: Int, core: TestServerCore) {
        self.port = port
        self.core = core
    }

    deinit {
        core.stop()
    }

    /// Closes the listener and every open connection (in-flight responses are cut), and waits at most
    /// about two seconds for the server's threads to finish. Idempotent. Afterwards connecting fails.
    func stop() {
        core.stop()
    }

    /// Every request read so far, in arrival order. A request is recorded before its handler runs.
    var requests: [RecordedRequest] {
        core.state.withLock { $0.requests }
    }

    /// Recorded requests whose path (target without the query) equals `path` exactly.
    func requests(path: String) -> [RecordedRequest] {
        core.state.withLock { $0.requests.filter { $0.path == path } }
    }

    /// Forgets the recorded requests, sink records and pattern records (routes, flaky counters,
    /// used `interruptKey`s and connections are kept).
    func reset() {
        core.state.withLock { shared in
            shared.requests.removeAll()
            shared.transfers.sinkRecords.removeAll()
            shared.transfers.patternRecords.removeAll()
        }
    }

    /// Forgets how many times each `/flaky` key was hit.
    func resetFlakyCounters() {
        core.state.withLock { $0.flakyCounts.removeAll() }
    }

    /// Answers requests whose path equals `path` exactly (percent-encoded as sent, no query) with
    /// `handler`, instead of any built-in route. The handler runs on the connection's thread.
    func route(_ path: String, _ handler: @escaping @Sendable (RecordedRequest) -> TestResponse) {
        core.state.withLock { $0.routes[path] = handler }
    }

    /// Removes a custom route, restoring the built-in behaviour for `path`.
    func removeRoute(_ path: String) {
        core.state.withLock { $0.routes[path] = nil }
    }

    /// Connections currently open.
    var openConnectionCount: Int {
        core.state.withLock { $0.connections.count }
    }

    /// Connections accepted since start.
    var acceptedConnectionCount: Int {
        core.state.withLock { $0.acceptedConnections }
    }

    /// Requests rejected as malformed or too large (400/413/431); these are not in `requests`.
    var rejectedRequestCount: Int {
        core.state.withLock { $0.rejectedRequests }
    }

    /// Polls until at least `count` requests (with `path`, if given) were recorded, or `timeout` passes.
    /// Returns the matching requests either way.
    func waitForRequests(
        count: Int, path: String? = nil, timeout: Duration = .seconds(5)
    ) async -> [RecordedRequest] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let matching = path.map { requests(path: $0) } ?? requests
            if matching.count >= count || ContinuousClock.now >= deadline { return matching }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// The transfer routes' records (see `TestTransferRoutes`).
extension TestServer {
    /// Every `/sink...` body streamed so far (complete or not), in the order the bodies ended.
    var sinkRecords: [TestSinkRecord] {
        core.state.withLock { $0.transfers.sinkRecords }
    }

    /// Sink records whose path equals `path` exactly.
    func sinkRecords(path: String) -> [TestSinkRecord] {
        core.state.withLock { $0.transfers.sinkRecords.filter { $0.path == path } }
    }

    /// `/pattern...` and `/firehose...` responses so far, in the order they started, with live progress.
    func patternRecords(path: String) -> [TestPatternRecord] {
        core.state.withLock { $0.transfers.patternRecords.filter { $0.path == path } }
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

/// Everything the server's threads share; only touched under `TestServerCore.state`'s lock.
struct TestServerShared: Sendable {
    var requests: [RecordedRequest] = []
    var routes: [String: @Sendable (RecordedRequest) -> TestResponse] = [:]
    var flakyCounts: [String: Int] = [:]
    /// Open connections: id -> fd. A connection thread removes its entry before closing the fd,
    /// so `stop()` may shut down any fd listed here without racing a close (and fd reuse).
    var connections: [Int: Int32] = [:]
    var nextConnectionID = 1
    var acceptedConnections = 0
    var rejectedRequests = 0
    var stopping = false
    var acceptLoopDone = false
    /// Listener and wake-pipe write end; nil once the accept thread closed them.
    var listenerFD: Int32?
    var wakeWriteFD: Int32?
    /// Sink and pattern records, `interruptOnce` keys (see `TestTransferRoutes`).
    var transfers = TestTransferLog()
}

/// The part of the server its threads hold on to (so `TestServer.deinit` can still run and stop it).
final class TestServerCore: Sendable {
    let state: TestLocked<TestServerShared>
    let maxBodyBytes: Int

    init(maxBodyBytes: Int, listener: Int32, wakeWrite: Int32) {
        var shared = TestServerShared()
        shared.listenerFD = listener
        shared.wakeWriteFD = wakeWrite
        self.state = TestLocked(shared)
        self.maxBodyBytes = maxBodyBytes
    }

    func runAcceptLoop(listener: Int32, wakeRead: Int32) {
        TestSocket.setNonBlocking(listener)
        while TestSocket.waitForConnection(listener: listener, wakeFD: wakeRead) {
            let accepted = TestSocket.acceptConnection(listener)
            if accepted.fatal { break }
            guard let fd = accepted.fd else { continue }
            TestSocket.configureAccepted(fd)
            let id: Int? = state.withLock { shared in
                guard !shared.stopping else { return nil }
                let id = shared.nextConnectionID
                shared.nextConnectionID += 1
                shared.acceptedConnections += 1
                shared.connections[id] = fd
                return id
            }
            guard let id else {
                _ = close(fd)
                break
            }
            let thread = Thread { [self] in
                TestConnection(core: self, fd: fd, id: id).run()
            }
            thread.name = "TestServer.connection.\(id)"
            thread.start()
        }
        state.withLock { shared in
            _ = close(listener)
            _ = close(wakeRead)
            if let wakeWrite = shared.wakeWriteFD { _ = close(wakeWrite) }
            shared.listenerFD = nil
            shared.wakeWriteFD = nil
            shared.acceptLoopDone = true
        }
    }

    func stop() {
        state.withLock { shared in
            guard !shared.stopping else { return }
            shared.stopping = true
            if let listener = shared.listenerFD { TestSocket.shutdownBoth(listener) }
            if let wakeWrite = shared.wakeWriteFD {
                var byte: UInt8 = 1
                _ = write(wakeWrite, &byte, 1)
            }
            for fd in shared.connections.values { TestSocket.shutdownBoth(fd) }
        }
        state.wait(timeout: .seconds(2)) { $0.acceptLoopDone && $0.connections.isEmpty }
    }

    /// Sleeps for `duration` unless the server stops first; returns false when it stopped.
    func sleep(_ duration: Duration) -> Bool {
        !state.wait(timeout: duration) { $0.stopping }
    }

    /// Counts a hit on `/flaky` for `key`; returns the attempt number (1, 2, ...).
    func nextFlakyAttempt(_ key: String) -> Int {
        state.withLock { shared in
            shared.flakyCounts[key, default: 0] += 1
            return shared.flakyCounts[key, default: 0]
        }
    }
}

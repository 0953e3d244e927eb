import Foundation
import NetLayer
import Testing

@testable import NetLayerTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension WireTests {
    /// Timeouts that must fire while every thread of Swift's cooperative pool is busy with the
    /// app's own work. The idle-timeout watchdog was a task on that pool: it woke only when a thread
    /// came free, so a stalled transfer outlived its timeout by as long as the app kept the pool busy.
    @Suite("Timeouts while the cooperative pool is busy", .serialized)
    struct BusyPoolTimeoutTests {
        @Test func anIdleTimeoutCancelsAStalledTransferWhileEveryPoolThreadIsBlocked() async throws {
            let server = try StallingServer()
            defer { server.stop() }
            let api = Resource(protocol: .http, domain: "127.0.0.1:\(server.port)")
            let executor = EchoTarget(resource: api, path: "/stalls").makeExecutor(
                timeout: .milliseconds(200))
            let call = Task { try await executor.execute() }

            // The head is out, the body never comes: from here the idle timeout counts.
            let headSent = try #require(await server.headSent(within: .seconds(10)))
            // Block every thread of the cooperative pool until the server sees the connection
            // closed (or 4 s pass). Only a timer that does not need the pool can close it meanwhile.
            let width = ProcessInfo.processInfo.activeProcessorCount
            let blockers = (0..<width).map { _ in
                Task.detached { server.closed.wait(timeout: .now() + 4) == .success }
            }
            for blocker in blockers { _ = await blocker.value }

            let closedAt = try #require(server.closedAt, "the client never closed the connection")
            #expect(closedAt - headSent < .seconds(1), "closed \(closedAt - headSent) after the head")
            let result = await call.result
            guard case .failure(let error) = result else {
                Issue.record("a body that never came was returned")
                return
            }
            #expect((error as? NetLayerError)?.code == .timedOut)
        }
    }
}

/// A one-connection server on 127.0.0.1: reads the request, sends a head announcing 10 bytes and
/// never sends them, then notes when the client closes the connection. Runs on a thread of its
/// own, not on the cooperative pool.
private final class StallingServer: @unchecked Sendable {
    // Unchecked Sendable: `headSentAt` and `closedTime` are only touched under `lock`.
    let port: Int
    /// Signalled (many times) once the client closed the connection.
    let closed = DispatchSemaphore(value: 0)
    private let listener: Int32
    private let lock = NSLock()
    private var headSentAt: ContinuousClock.Instant?
    private var closedTime: ContinuousClock.Instant?
    private var stopped = false

    init() throws {
        (listener, port) = try LoopbackSocket.makeLoopbackListener(backlog: 1)
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    var closedAt: ContinuousClock.Instant? { lock.withLock { closedTime } }

    /// When the head went out, once it has (polled, so the caller's task does not block).
    func headSent(within limit: Duration) async -> ContinuousClock.Instant? {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            if let sent = lock.withLock({ headSentAt }) { return sent }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    func stop() {
        lock.withLock { stopped = true }
        LoopbackSocket.shutdownBoth(listener)
    }

    private func serve() {
        defer { _ = close(listener) }
        guard let fd = LoopbackSocket.acceptConnection(listener).fd else { return }
        defer { _ = close(fd) }
        var request = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while request.range(of: Data("\r\n\r\n".utf8)) == nil {
            let count = buffer.withUnsafeMutableBytes { LoopbackSocket.receive(fd, into: $0) }
            if count <= 0 { return }
            request.append(contentsOf: buffer[0..<count])
        }
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\n"
        guard LoopbackSocket.sendAll(fd, Data(head.utf8)) else { return }
        lock.withLock { headSentAt = .now }
        let end = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < end, !lock.withLock({ stopped }) {
            if LoopbackSocket.peerHasClosed(fd) {
                lock.withLock { closedTime = .now }
                for _ in 0..<64 { closed.signal() }
                return
            }
            usleep(2_000)
        }
    }
}

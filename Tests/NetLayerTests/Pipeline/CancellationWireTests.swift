import Foundation
import Testing

@testable import NetLayer
@testable import NetLayerTesting

extension WireTests.Resilience {
    /// Issue 7's fault matrix, cancellation at each point of a call: each ends with `.cancelled`
    /// promptly, sends nothing more, and gives back what it held, so the next call of a
    /// one-slot resource still gets through.
    @Suite("Resilience: cancellation at every point", .timeLimit(.minutes(1)))
    struct CancellationWireTests {
        static let server = TestServerPool.make()

        /// How soon a cancelled call must have ended (generous: the machine is shared).
        static let prompt: Duration = .seconds(2)

        /// Cancels `task` and returns its error and how long it took to end.
        static func cancel<T: Sendable>(_ task: Task<T, any Error>) async -> (NetLayerError?, Duration) {
            let start = ContinuousClock.now
            task.cancel()
            let error = await failure { try await task.value }
            return (error, ContinuousClock.now - start)
        }

        /// A call that must get through after the cancelled one: the slot was given back.
        static func nextCallGetsThrough(_ api: ResilientAPI, _ path: String) async throws {
            let data = try await api.target(path + "/next").makeExecutor().execute()
            #expect(!data.isEmpty)
            #expect(await eventually { api.limiter.inFlight == 0 })
        }

        @Test func cancelledBeforeItStartsSendsNothing() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let api = ResilientAPI(server: server, maxConcurrentRequests: 1)
                let task = Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return try await api.target(path).makeExecutor().execute()
                }
                let error = await failure { try await task.value }
                #expect(error?.code == .cancelled, "\(String(describing: error))")
                #expect(error?.attempts == 0)
                #expect(server.requests(path: path).isEmpty)
                try await Self.nextCallGetsThrough(api, path)
            }
        }

        @Test func cancelledWhileWaitingForAConcurrencySlot() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let gate = TestGate()
                defer { gate.open() }
                let api = ResilientAPI(server: server, maxConcurrentRequests: 1)
                let held = await HeldSlot.hold(api, on: server, path: path, until: gate)
                let waiting = Task { try await api.target(path).makeExecutor().execute() }
                #expect(await eventually { api.slotWaiters == 1 })
                let (error, took) = await Self.cancel(waiting)
                #expect(error?.code == .cancelled, "\(String(describing: error))")
                #expect(took < Self.prompt, "\(took)")
                #expect(api.slotWaiters == 0)
                #expect(error?.attempts == 0)
                #expect(api.limiter.inFlight == 1)  // only the held call's
                gate.open()
                _ = try await held.value
                try await Self.nextCallGetsThrough(api, path)
                #expect(server.requests(path: path).isEmpty)
            }
        }

        @Test func cancelledWhileWaitingForTheRateLimiter() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let window = Duration.milliseconds(1500)
                let api = ResilientAPI(
                    server: server, rateLimits: [RateLimit(requests: 1, per: window)],
                    maxConcurrentRequests: 1)
                try await api.target(path + "/first").makeExecutor().execute()
                let first = try #require(server.requests(path: path + "/first").first)
                // Holds the only slot while it waits for the rate limit.
                let waiting = Task { try await api.target(path).makeExecutor().execute() }
                #expect(await eventually { await api.rateWaiters == 1 })
                let (error, took) = await Self.cancel(waiting)
                #expect(error?.code == .cancelled, "\(String(describing: error))")
                #expect(took < Self.prompt, "\(took)")
                #expect(await api.rateWaiters == 0)
                #expect(error?.attempts == 0)
                #expect(api.limiter.inFlight == 0)
                // The next call gets the slot, and the grant the cancelled one never took: one
                // window after the first, not two.
                try await Self.nextCallGetsThrough(api, path)
                let next = try #require(server.requests(path: path + "/next").first)
                let gap = next.receivedAt - first.receivedAt
                #expect(gap >= window - .milliseconds(100) && gap < window * 2 - .milliseconds(100), "\(gap)")
                #expect(server.requests(path: path).isEmpty)
            }
        }

        @Test func cancelledDuringTheBackoffBeforeARetry() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path) { _ in .text("busy", status: 503) }
                let lines = LineCollector()
                let backingOff = TestSignal()
                let api = ResilientAPI(
                    server: server, maxConcurrentRequests: 1,
                    options: ResourceOptions(
                        log: LogSink { line in
                            lines.record(line)
                            if line.contains("↻ retry") { backingOff.signal() }
                        },
                        retryPolicy: .fixed(delay: .seconds(30), maximumAttempts: 2)))
                let task = Task { try await api.target(path).makeExecutor().execute(debug: true) }
                await backingOff.wait()
                let (error, took) = await Self.cancel(task)
                #expect(error?.code == .cancelled, "\(String(describing: error))")
                #expect(took < Self.prompt, "\(took)")
                #expect(lines.lines.contains { $0.contains("retry 2/2 in 30000.0 ms after 503") })
                #expect(server.requests(path: path).count == 1)
                try await Self.nextCallGetsThrough(api, path)
            }
        }

        @Test func cancelledWhileWaitingForARefresh() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path, TestRoutes.acceptingBearer("new", rejection: "expired"))
                let refreshing = TestSignal()
                let release = TestSignal()
                let auth = Authentication.bearer(token: "old") { _ in
                    refreshing.signal()
                    await release.wait()
                    return "new"
                }
                let api = ResilientAPI(
                    server: server, maxConcurrentRequests: 1, options: ResourceOptions(authentication: auth))
                let task = Task { try await api.target(path).makeExecutor().execute() }
                await refreshing.wait()
                let (error, took) = await Self.cancel(task)
                #expect(error?.code == .cancelled, "\(String(describing: error))")
                #expect(took < Self.prompt, "\(took)")
                // The rejected response gave its slot back before the refresh began.
                #expect(api.limiter.inFlight == 0)
                release.signal()
                try await Self.nextCallGetsThrough(api, path)
                #expect(auth.refreshCount == 1)
                #expect(server.requests(path: path + "/next").first?.header("Authorization") == "Bearer new")
                #expect(server.requests(path: path).count == 1)
            }
        }

        @Test func cancelledWhileTheResponseBodyArrives() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let bodyStarted = TestSignal()
                let writer = TestLocked<TestStreamedBody.State?>(nil)
                server.route(path) { _ in
                    // 1,000 bytes, 10 every 50 ms: five seconds unless the client hangs up.
                    var body = TestStreamedBody(length: 1000) { range in
                        Data(repeating: 0x41, count: range.count)
                    }
                    body.pieceSize = 10
                    body.pause = .milliseconds(50)
                    body.progress = { _, state in
                        writer.withLock { $0 = state }
                        bodyStarted.signal()
                    }
                    var response = TestResponse(status: 200)
                    response.streamedBody = body
                    return response
                }
                let api = ResilientAPI(server: server, maxConcurrentRequests: 1)
                let task = Task { try await api.target(path).makeExecutor().execute() }
                await bodyStarted.wait()
                let (error, took) = await Self.cancel(task)
                #expect(error?.code == .cancelled, "\(String(describing: error))")
                #expect(took < Self.prompt, "\(took)")
                // The transfer was stopped: the server saw the client go away.
                #expect(await eventually { writer.withLock { $0 } == .cut })
                try await Self.nextCallGetsThrough(api, path)
            }
        }

        @Test func cancelledWhileStreamingTheBodyWithAnIdleTimeout() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let api = ResilientAPI(server: server, maxConcurrentRequests: 1)
                let firstChunk = TestSignal()
                let task = Task {
                    var count = 0
                    for try await chunk in try await EchoTarget(resource: api, path: "/drip")
                        .makeExecutor(params: ["bytes": 100, "interval": 100], timeout: .seconds(5)).stream()
                    {
                        count += chunk.count
                        firstChunk.signal()
                    }
                    return count
                }
                await firstChunk.wait()
                let (error, took) = await Self.cancel(task)
                #expect(error?.code == .cancelled, "\(String(describing: error))")
                #expect(took < Self.prompt, "\(took)")
                try await Self.nextCallGetsThrough(api, uniquePath())
            }
        }
    }
}

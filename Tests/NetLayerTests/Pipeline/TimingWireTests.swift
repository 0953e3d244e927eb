import Foundation
import NetLayer
import Testing

extension WireTests {
    /// Timeouts, deadlines, cancellation and the rate limiter against the test server. Serialized, since
    /// they measure time.
    @Suite("Timeouts, cancellation and limits on the wire", .serialized)
    struct TimingWireTests {
        static let server = TestServerPool.make()

        private func elapsed(_ body: () async throws -> Void) async -> (Duration, (any Error)?) {
            let start = ContinuousClock.now
            do {
                try await body()
                return (ContinuousClock.now - start, nil)
            } catch {
                return (ContinuousClock.now - start, error)
            }
        }

        @Test(arguments: [Duration.milliseconds(500), .seconds(1)])
        func idleTimeoutFiresWithinTenPercent(_ timeout: Duration) async throws {
            // swift-net-layer ignored per-request timeouts: a 1 s timeout against a 3 s server took 3 s.
            let api = TestAPI(server: try Self.server.get())
            let executor = EchoTarget(resource: api, path: "/delay/3000").makeExecutor(timeout: timeout)
            let (took, error) = await elapsed { try await executor.execute() }
            #expect((error as? NetLayerError)?.code == .timedOut)
            #expect(took >= timeout)
            #expect(took <= timeout * 1.1, "took \(took)")
        }

        @Test func idleTimeoutDoesNotFireWhileDataFlows() async throws {
            let api = TestAPI(server: try Self.server.get())
            let executor = EchoTarget(resource: api, path: "/drip").makeExecutor(
                params: ["bytes": 6, "interval": 200], timeout: .milliseconds(500))
            let data = try await executor.execute()
            #expect(data == Data(repeating: UInt8(ascii: "*"), count: 6))
        }

        @Test func idleTimeoutFiresWhenTheBodyStalls() async throws {
            let api = TestAPI(server: try Self.server.get())
            let executor = EchoTarget(resource: api, path: "/stall").makeExecutor(
                params: ["ms": 3000], timeout: .milliseconds(600))
            let (took, error) = await elapsed { try await executor.execute() }
            #expect((error as? NetLayerError)?.code == .timedOut)
            #expect(took >= .milliseconds(600) && took <= .milliseconds(660), "took \(took)")
        }

        @Test func totalDeadlineFiresWithinTenPercentEvenWhileDataFlows() async throws {
            let api = TestAPI(server: try Self.server.get())
            let executor = EchoTarget(resource: api, path: "/drip").makeExecutor(
                params: ["bytes": 20, "interval": 200], timeout: .milliseconds(500),
                resourceTimeout: .seconds(1))
            let (took, error) = await elapsed { try await executor.execute() }
            let failure = try #require(error as? NetLayerError)
            #expect(failure.code == .timedOut)
            #expect(failure.message.contains("total"))
            #expect(took >= .seconds(1) && took <= .milliseconds(1100), "took \(took)")
        }

        @Test func resourceLevelTimeoutApplies() async throws {
            let api = TestAPI(
                server: try Self.server.get(), options: ResourceOptions(timeout: .milliseconds(400)))
            let (took, error) = await elapsed {
                try await EchoTarget(resource: api, path: "/delay/2000").makeExecutor().execute()
            }
            #expect((error as? NetLayerError)?.code == .timedOut)
            #expect(took >= .milliseconds(400) && took <= .milliseconds(440), "took \(took)")
        }

        @Test func cancellingTheTaskCancelsTheRequest() async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server)
            let marker = uniquePath()
            let task = Task {
                try await EchoTarget(resource: api, path: "/delay/5000").makeExecutor(params: ["m": marker])
                    .execute()
            }
            try await Task.sleep(for: .milliseconds(300))
            #expect(
                server.requests(path: "/delay/5000").contains {
                    $0.rawQuery?.contains(marker.dropFirst(3)) == true
                })
            let cancelledAt = ContinuousClock.now
            task.cancel()
            let result = await task.result
            #expect(ContinuousClock.now - cancelledAt < .milliseconds(500))
            guard case .failure(let error) = result else {
                Issue.record("expected a failure")
                return
            }
            #expect((error as? NetLayerError)?.code == .cancelled)
        }

        @Test func limiterSpacesRequestsOnTheWireAcrossTargets() async throws {
            let server = try Self.server.get()
            let window = Duration.milliseconds(300)
            let api = TestAPI(server: server, rateLimits: [RateLimit(requests: 3, per: window)])
            let base = uniquePath()
            // Open the session's connections first, so connection set-up does not delay the first
            // batch on the wire relative to later ones.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask { try await api.target(uniquePath()).makeExecutor().execute() }
                }
                try await group.waitForAll()
            }
            try await Task.sleep(for: window + .milliseconds(20))
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<9 {
                    let target = api.target(base + (index % 2 == 0 ? "/even" : "/odd"))
                    group.addTask { try await target.makeExecutor(params: ["i": index]).execute() }
                }
                try await group.waitForAll()
            }
            let total = ContinuousClock.now - start
            let arrivals = server.requests.filter { $0.path.hasPrefix(base) }.map(\.receivedAt).sorted()
            #expect(arrivals.count == 9)
            #expect(
                total >= window * 2, "9 requests at 3 per \(window) need at least two windows; took \(total)")
            // The limiter's own tests check grant instants exactly; on the wire a request can reach
            // the server up to ~100 ms after its grant on a loaded two-core machine, so windows are
            // shortened by that much. Without the limiter all nine arrive within a few milliseconds.
            let slack = Duration.milliseconds(100)
            for (index, arrival) in arrivals.enumerated() {
                let inWindow = arrivals[index...].prefix { $0 - arrival < window - slack }.count
                #expect(inWindow <= 3, "\(inWindow) requests arrived within \(window - slack)")
            }
        }

        @Test func cancelledWhileWaitingForTheLimiterSendsNothing() async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server, rateLimits: [RateLimit(requests: 1, per: .seconds(5))])
            let path = uniquePath()
            try await api.target(path).makeExecutor().execute()
            let waiting = Task { try await api.target(path).makeExecutor().execute() }
            try await Task.sleep(for: .milliseconds(100))
            waiting.cancel()
            let result = await waiting.result
            guard case .failure(let error) = result else {
                Issue.record("expected a failure")
                return
            }
            #expect((error as? NetLayerError)?.code == .cancelled)
            #expect(server.requests(path: path).count == 1)
        }
    }
}

import Foundation
import Testing

@testable import NetLayer
@testable import NetLayerTesting

extension WireTests {
    /// A server cannot make NetLayer send in a loop: `retry: 0` with one event per connection gave
    /// 4,965 reconnections in 5 s, and a predicate that always retries, answered `Retry-After: 0`,
    /// sent 9,781 requests in 10 s.
    @Suite("Retries and reconnections never storm", .tags(.hardening), .timeLimit(.minutes(1)))
    struct ResendStormTests {
        static let server = TestServerPool.make()

        @Test func anEventStreamThatEndsEveryConnectionAtOnceIsReconnectedWithBackoff() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                var response = LoopbackResponse.text("retry: 0\ndata: tick\n\n")
                response.setHeader("Content-Type", "text/event-stream")
                return response
            }
            let reconnection = EventStreamReconnection(maximumAttempts: 1_000_000, defaultDelay: .zero)
            let stream = try await TestAPI(server: server).target(path).makeExecutor()
                .events(reconnection: reconnection)
            let start = ContinuousClock.now
            var events = 0
            for try await _ in stream {
                events += 1
                if ContinuousClock.now - start > .seconds(3) { break }
            }
            let connections = server.requests(path: path).count
            // Floors of 250 ms, 500 ms, 1 s, 2 s: about five connections in 3 s (thousands before).
            #expect(connections <= 8, "\(connections) connections in 3 s")
            #expect(connections >= 2, "the stream must still reconnect")
            #expect(events >= connections - 1)
        }

        @Test func theReconnectionFloorDoublesOnlyWhileConnectionsAreSparse() {
            let reconnection = EventStreamReconnection(defaultDelay: .zero, maximumDelay: .seconds(5))
            #expect(reconnection.wait(.zero) == .milliseconds(250))
            #expect(reconnection.wait(.zero, sparseConnections: 1) == .milliseconds(500))
            #expect(reconnection.wait(.zero, sparseConnections: 3) == .seconds(2))
            #expect(reconnection.wait(.zero, sparseConnections: 1_000) == .seconds(5))
            #expect(reconnection.wait(.seconds(3), sparseConnections: 1) == .seconds(3))
            // A caller may lift the floor.
            #expect(EventStreamReconnection(defaultDelay: .zero, minimumDelay: .zero).wait(nil) == .zero)
            #expect(EventStreamReconnection(minimumDelay: .seconds(-1)).wait(.zero) == .zero)
        }

        @Test func aPredicateThatAlwaysRetriesRetryAfterZeroWaitsTheFloorEachTime() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                var response = LoopbackResponse.text("again", status: 503)
                response.setHeader("Retry-After", "0")
                return response
            }
            let policy = RetryPolicy.predicate(backoff: .fixed(delay: .zero, maximumAttempts: 1_000_000)) {
                _ in
                true
            }
            let api = TestAPI(
                server: server, options: ResourceOptions(retryPolicy: policy, retryBudget: .unlimited))
            let start = ContinuousClock.now
            let error = await #expect(throws: NetLayerError.self) {
                try await api.target(path).makeExecutor(resourceTimeout: .seconds(1)).execute()
            }
            let elapsed = ContinuousClock.now - start
            let sent = server.requests(path: path).count
            // At most one request per 100 ms floor (thousands before).
            #expect(sent <= 11, "\(sent) requests in \(elapsed)")
            #expect(sent >= 2)
            #expect(error?.statusCode == 503 || error?.code == .timedOut)
        }
    }
}

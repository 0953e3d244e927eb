import Foundation
import NetLayer
import NetLayerTesting
import Testing

extension WireTests {
    /// An event stream's head, printed by `debug: true`, masks an authenticator's token that the
    /// server echoes in a header (value or name).
    @Suite("Echoed secrets: a token in an event stream's head is masked", .tags(.hardening))
    struct EchoedEventStreamHeadTests {
        static let server = TestServerPool.make()

        @Test func aTokenEchoedInAnEventStreamHeadIsMasked() async throws {
            let server = try Self.server.get()
            let token = "sse-token-424242"
            let path = uniquePath()
            server.route(path) { _ in
                LoopbackResponse(
                    status: 200,
                    headers: [
                        ("Content-Type", "text/event-stream"), ("X-Echo", "Bearer \(token)"), (token, "1"),
                    ],
                    body: Data("data: hello\n\n".utf8))
            }
            let lines = LineCollector()
            let auth = Authentication.bearer(token: token) { _ in token }
            let api = TestAPI(server: server, options: ResourceOptions(log: lines.sink, authentication: auth))
            let events = try await api.target(path).makeExecutor()
                .events(reconnection: EventStreamReconnection(maximumAttempts: 0), debug: true)
            var received: [String] = []
            for try await event in events { received.append(event.data) }
            #expect(received == ["hello"])
            let all = lines.lines.joined(separator: "\n")
            #expect(all.contains("X-Echo: <redacted>"), "\(all)")
            #expect(leakedSecret(in: all, of: [token]) == nil, "\(all)")
        }
    }
}

import Foundation
import InMemoryLogging
import Logging
import NetLayer
import NetLayerObservability
import NetLayerTesting
import Testing

/// A logger whose messages the test reads back, at every level.
struct CapturedLog {
    let handler: InMemoryLogHandler
    let logger: Logger

    init() {
        var handler = InMemoryLogHandler()
        handler.logLevel = .trace
        self.handler = handler
        logger = Logger(label: "test", factory: { _ in handler })
    }

    var entries: [InMemoryLogHandler.Entry] { handler.entries }
    var messages: [String] { entries.map(\.message.description) }
}

@Suite("NetLayer's debug lines through swift-log")
struct LogSinkTests {
    @Test func linesGoToTheLoggerAtTheirLevels() async throws {
        let server = try LoopbackServer.start()
        let count = LockedCount()
        server.route("/books/1") { _ in
            count.next() == 1
                ? LoopbackResponse(status: 503, body: Data("busy".utf8))
                : LoopbackResponse(
                    status: 200, headers: [("Content-Type", "application/json")],
                    body: Data(#"{"id":1}"#.utf8))
        }
        server.route("/down") { _ in .drop() }
        let log = CapturedLog()
        let resource = Resource(
            protocol: .http, domain: server.hostAndPort,
            defaultHeaders: ["Authorization": "Bearer s3cr3t-t0ken"],
            options: ResourceOptions(
                debug: true, log: .logger(log.logger),
                retryPolicy: .fixed(delay: .milliseconds(100), maximumAttempts: 2)))
        let books = Target(resource: resource, path: "/books/:id")
        _ = try await books.makeExecutor(pathParts: ["id": 1]).execute()
        _ = try? await Target(resource: resource, path: "/down").makeExecutor().retry(.none).execute()

        let entries = log.entries
        #expect(!entries.isEmpty)
        for entry in entries {
            let message = entry.message.description
            #expect(!message.hasPrefix("[NetLayer]"), "the prefix is left out: \(message)")
            #expect(!message.contains("s3cr3t-t0ken"), "redaction is kept: \(message)")
            switch message.first {
            case "↻": #expect(entry.level == .info, "\(message)")
            default: #expect(entry.level == .debug, "\(message)")
            }
        }
        #expect(
            entries.contains {
                $0.message.description.hasPrefix("→ GET http://\(server.hostAndPort)/books/1")
            })
        #expect(entries.contains { $0.message.description.hasPrefix("↻ retry 2/2 in 100.0 ms after 503") })
        #expect(entries.contains { $0.message.description.hasPrefix("← 200") })
        #expect(entries.contains { $0.message.description.hasPrefix("✕ GET") })
        #expect(entries.contains { $0.message.description.contains("Authorization: <redacted>") })
    }

    @Test func levelsAreConfigurable() {
        let levels = LogSink.LogLevels(exchange: .trace, retry: .warning, failure: .error)
        let lines = [
            "[NetLayer] → GET http://example.com/", "[NetLayer]   headers: Accept: */*",
            "[NetLayer] ← 404 Not Found · 1.0 ms · 0 bytes",
            "[NetLayer] ↪ 302 Found → GET http://example.com/b",
            "[NetLayer] ↻ retry 1/3 in 100.0 ms after 503 Service Unavailable",
            "[NetLayer] ✕ GET http://example.com/ · timed out · 10.0 ms", "not from NetLayer",
        ]
        #expect(
            lines.map(levels.level(forLine:)) == [.trace, .trace, .trace, .trace, .warning, .error, .trace])
        #expect(
            lines.map(LogSink.LogLevels.default.level(forLine:)) == [
                .debug, .debug, .debug, .debug, .info, .debug, .debug,
            ])
    }
}

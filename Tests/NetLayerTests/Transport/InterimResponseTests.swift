import Foundation
import Testing

@testable import NetLayer
@testable import NetLayerTesting

extension WireTests {
    /// A 1xx response is never final (RFC 9110 §15.2): `103 Early Hints` (as CDNs send), `100` or
    /// `102` before the real head must be skipped on every path. Before the fix every watched call
    /// took the 1xx as the head and never returned — not at its deadline, not when cancelled.
    @Suite("Interim (1xx) responses are skipped", .tags(.hardening), .timeLimit(.minutes(2)))
    struct InterimResponseTests {
        static let server = TestServerPool.make()

        /// The ways a call reads a response.
        enum Path: String, CaseIterable, Sendable {
            case direct, watched, limited, stream, lines, events, download
        }

        /// `interim` heads, then `200 OK` with `body` of `contentType`.
        static func hinted(_ interim: [String], body: String, contentType: String = "text/plain")
            -> LoopbackResponse
        {
            var pieces = interim.map { LoopbackResponse.RawPiece($0) }
            pieces.append(
                .init(
                    "HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)",
                    after: .milliseconds(30)))
            return .raw(pieces)
        }

        static let earlyHints =
            "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n\r\n"

        /// Reads `path` the way `way` says and returns the body as text.
        static func read(_ server: TestServer, _ path: String, _ way: Path) async throws -> String {
            let target = TestAPI(server: server).target(path)
            switch way {
            case .direct:
                return String(decoding: try await target.makeExecutor().execute(), as: UTF8.self)
            case .watched:
                return String(
                    decoding: try await target.makeExecutor(
                        timeout: .seconds(5), resourceTimeout: .seconds(10)
                    )
                    .execute(), as: UTF8.self)
            case .limited:
                let limited = TestAPI(server: server, options: ResourceOptions(maximumResponseSize: 1 << 20))
                return String(
                    decoding: try await limited.target(path).makeExecutor().execute(), as: UTF8.self)
            case .stream:
                var data = Data()
                for try await chunk in try await target.makeExecutor().stream() { data.append(chunk) }
                return String(decoding: data, as: UTF8.self)
            case .lines:
                var lines: [String] = []
                for try await line in try await target.makeExecutor().lines() { lines.append(line) }
                return lines.joined(separator: "\n")
            case .events:
                var data: [String] = []
                for try await event in try await target.makeExecutor().events() { data.append(event.data) }
                return data.joined(separator: "\n")
            case .download:
                let file = FileManager.default.temporaryDirectory
                    .appendingPathComponent("netlayer-1xx-\(UUID().uuidString).txt")
                defer { try? FileManager.default.removeItem(at: file) }
                _ = try await target.makeExecutor().download(to: file)
                return try String(contentsOf: file, encoding: .utf8)
            }
        }

        @Test(arguments: Path.allCases)
        func earlyHintsAreSkippedOnEveryPath(_ way: Path) async throws {
            let server = try Self.server.get()
            let path = uniquePath() + "-" + way.rawValue
            let isEvents = way == .events
            server.route(path) { _ in
                Self.hinted(
                    [Self.earlyHints], body: isEvents ? "data: hello\n\n" : "hello",
                    contentType: isEvents ? "text/event-stream" : "text/plain")
            }
            let text = try await withDeadline(.seconds(15)) { try await Self.read(server, path, way) }
            #expect(text == "hello")
        }

        @Test(arguments: [Path.direct, .watched, .stream])
        func severalInterimHeadsOfEveryKindAreSkipped(_ way: Path) async throws {
            let server = try Self.server.get()
            let path = uniquePath() + "-" + way.rawValue
            server.route(path) { _ in
                Self.hinted(
                    [
                        "HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.1 102 Processing\r\n\r\n", Self.earlyHints,
                        "HTTP/1.1 103 Early Hints\r\nLink: </app.js>; rel=preload; as=script\r\n\r\n",
                    ], body: "final")
            }
            let text = try await withDeadline(.seconds(15)) {
                try await Self.read(server, path, way)
            }
            #expect(text == "final")
        }

        @Test(arguments: [Path.watched, .stream])
        func endlessInterimHeadsEndAtTheDeadline(_ way: Path) async throws {
            // A server that sends `102 Processing` every 10 ms and never a final head: the call
            // fails at its deadline (or at the cap on interim heads), never later.
            let server = try Self.server.get()
            let path = uniquePath() + "-" + way.rawValue
            server.route(path) { _ in
                .raw(
                    (0..<3_000).map { _ in .init("HTTP/1.1 102 Processing\r\n\r\n", after: .milliseconds(10))
                    })
            }
            let api = TestAPI(server: server)
            let start = ContinuousClock.now
            let error = await #expect(throws: NetLayerError.self) {
                try await withDeadline(.seconds(20)) {
                    let target = api.target(path)
                    switch way {
                    case .stream:
                        for try await _ in try await target.makeExecutor(resourceTimeout: .seconds(2))
                            .stream()
                        {}
                    default:
                        _ = try await target.makeExecutor(timeout: .seconds(1), resourceTimeout: .seconds(2))
                            .execute()
                    }
                }
            }
            #expect(error?.code == .timedOut || error?.code == .transport, "\(String(describing: error))")
            #expect(ContinuousClock.now - start < .seconds(8))
        }

        @Test func aCallWaitingBehindInterimHeadsEndsWhenItsTaskIsCancelled() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                .raw(
                    (0..<3_000).map { _ in .init("HTTP/1.1 102 Processing\r\n\r\n", after: .milliseconds(10))
                    })
            }
            let api = TestAPI(server: server)
            let call = Task { try await api.target(path).makeExecutor(timeout: .seconds(30)).execute() }
            try await Task.sleep(for: .milliseconds(300))
            let start = ContinuousClock.now
            call.cancel()
            let result = await call.result
            #expect(ContinuousClock.now - start < .seconds(3))
            #expect(throws: (any Error).self) { try result.get() }
        }
    }
}

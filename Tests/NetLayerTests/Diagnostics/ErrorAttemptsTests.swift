import Foundation
import Testing

@testable import NetLayer
@testable import NetLayerTesting

extension WireTests {
    /// `attempts` is on every error a call gives after reaching the server, as the README says:
    /// decoding, size and file failures said 0.
    @Suite("Errors count their attempts", .tags(.hardening))
    struct ErrorAttemptsTests {
        static let server = TestServerPool.make()

        /// Answers 503 (with `Retry-After: 0`) to the first request on `path`, then `then`.
        static func afterOne503(
            _ server: TestServer, _ path: String, then: @escaping @Sendable () -> LoopbackResponse
        ) {
            let count = HitCounter()
            server.route(path) { _ in
                let n = count.next()
                guard n == 1 else { return then() }
                var busy = LoopbackResponse.text("busy", status: 503)
                busy.setHeader("Retry-After", "0")
                return busy
            }
        }

        static let retrying = ResourceOptions(retryPolicy: .fixed(delay: .zero, maximumAttempts: 3))

        @Test(arguments: [false, true])
        func decodingFailedCountsItsAttempts(afterARetry: Bool) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            if afterARetry {
                Self.afterOne503(server, path) { .json(#"{"id":"not a number"}"#) }
            } else {
                server.route(path) { _ in .json(#"{"id":"not a number"}"#) }
            }
            let api = TestAPI(server: server, options: Self.retrying)
            let error = await #expect(throws: NetLayerError.self) {
                try await api.target(path).makeExecutor().execute(model: Book.self)
            }
            #expect(error?.code == .decodingFailed)
            #expect(error?.attempts == (afterARetry ? 2 : 1))
        }

        @Test(arguments: [false, true])
        func responseTooLargeCountsItsAttempts(afterARetry: Bool) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let big = String(repeating: "x", count: 100_000)
            if afterARetry {
                Self.afterOne503(server, path) { .text(big) }
            } else {
                server.route(path) { _ in .text(big) }
            }
            var options = Self.retrying
            options.maximumResponseSize = 1_000
            let api = TestAPI(server: server, options: options)
            let error = await #expect(throws: NetLayerError.self) {
                try await api.target(path).makeExecutor().execute()
            }
            #expect(error?.code == .responseTooLarge)
            #expect(error?.attempts == (afterARetry ? 2 : 1))
        }

        @Test func fileFailedAfterTheExchangeCountsItsAttempts() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            // Part of a file to a download that asked for the whole file.
            server.route(path) { _ in
                var partial = LoopbackResponse.text("lo")
                partial.status = 206
                partial.setHeader("Content-Range", "bytes 3-4/5")
                return partial
            }
            let file = FileManager.default.temporaryDirectory
                .appendingPathComponent("netlayer-attempts-\(UUID().uuidString).txt")
            defer { try? FileManager.default.removeItem(at: file) }
            let error = await #expect(throws: NetLayerError.self) {
                try await TestAPI(server: server).target(path).makeExecutor().download(to: file)
            }
            #expect(error?.code == .fileFailed)
            #expect(error?.attempts == 1)
        }
    }
}

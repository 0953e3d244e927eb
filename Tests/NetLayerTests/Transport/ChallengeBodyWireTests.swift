import Foundation
import Testing

@testable import NetLayer
@testable import NetLayerTesting

extension WireTests {
    /// A 401 with an HTTP authentication challenge carries the same whole body on every transport
    /// route: URLSession's one-call `data(for:)` (Linux cancels a challenged task and used to drop
    /// the body the first time a host challenged, and keep at most 64 KiB after), and a
    /// delegate-driven task (streamed, progress, a timeout).
    @Suite("The 401 body on every route")
    struct ChallengeBodyWireTests {
        static let server = TestServerPool.make()

        /// 100 KiB: more than the 64 KiB the one-call route used to keep, less than the 4 MiB a
        /// streamed call reads of an error body.
        static let body = String(repeating: "0123456789abcdef", count: 6400)

        /// A path answering 401 with `WWW-Authenticate: Basic` and ``body``.
        static func challengingPath(on server: TestServer) -> String {
            let path = uniquePath()
            server.route(path) { _ in
                var response = LoopbackResponse.text(Self.body, status: 401)
                response.addHeader("WWW-Authenticate", #"Basic realm="netlayer-challenge""#)
                return response
            }
            return path
        }

        /// Whether `body` is ``body``, without printing 100 KiB when it is not.
        static func isWhole(_ body: String?) -> Bool { body == Self.body }

        /// Runs `call`, expects a 401 and returns its body as text.
        static func challengedBody(_ call: () async throws -> Void) async throws -> String? {
            let start = ContinuousClock.now
            defer { #expect(ContinuousClock.now - start < .seconds(5)) }
            do {
                try await call()
            } catch let error as NetLayerError {
                #expect(error.statusCode == 401, "\(error)")
                #expect(error.header("WWW-Authenticate") == #"Basic realm="netlayer-challenge""#)
                return error.body.map { String(decoding: $0, as: UTF8.self) }
            }
            Issue.record("expected a 401")
            return nil
        }

        /// A resource on a transport of its own, so no call before has met a challenge from this host.
        static func freshAPI(
            _ server: TestServer, options: ResourceOptions = ResourceOptions(maximumResponseSize: nil)
        )
            -> TestAPI
        {
            TestAPI(server: server, transport: URLSessionTransport(), options: options)
        }

        @Test func aCollectedCallKeepsTheWholeBodyTheFirstTimeAHostChallengesAndAfter() async throws {
            let server = try Self.server.get()
            let path = Self.challengingPath(on: server)
            let api = Self.freshAPI(server)
            // (a) The first challenge of this host on this transport, (b) the second and third.
            for _ in 0..<3 {
                let body = try await Self.challengedBody {
                    try await api.target(path).makeExecutor().execute()
                }
                #expect(body?.utf8.count == Self.body.utf8.count)
                #expect(Self.isWhole(body))
            }
        }

        @Test func aFileUploadThatMeetsAChallengeKeepsTheWholeBody() async throws {
            let server = try Self.server.get()
            let path = Self.challengingPath(on: server)
            let api = Self.freshAPI(server)
            let file = FileManager.default.temporaryDirectory
                .appendingPathComponent("netlayer-challenge-body-\(UUID().uuidString).bin")
            try Data(repeating: 7, count: 4096).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let body = try await Self.challengedBody {
                try await api.target(path).makeExecutor(method: .put, body: .file(file)).execute()
            }
            #expect(body?.utf8.count == Self.body.utf8.count)
            #expect(Self.isWhole(body))
        }

        @Test func aStreamedCallKeepsTheWholeBody() async throws {
            // (c)
            let server = try Self.server.get()
            let path = Self.challengingPath(on: server)
            let api = Self.freshAPI(server)
            let body = try await Self.challengedBody {
                for try await _ in try await api.target(path).makeExecutor().stream() {}
            }
            #expect(body?.utf8.count == Self.body.utf8.count)
            #expect(Self.isWhole(body))
        }

        /// Passes every attempt on unchanged.
        struct PassThrough: Interceptor {
            func intercept(
                _ request: TransportRequest, context: InterceptorContext,
                next: @Sendable (TransportRequest) async throws -> TransportResponse
            ) async throws -> TransportResponse {
                try await next(request)
            }
        }

        @Test func aCallWithARetryPolicyAndAnInterceptorKeepsTheWholeBody() async throws {
            // (d) 401 is not retried: one attempt, through the interceptor chain.
            let server = try Self.server.get()
            let path = Self.challengingPath(on: server)
            let api = Self.freshAPI(
                server,
                options: ResourceOptions(
                    interceptors: [PassThrough()], retryPolicy: .fixed(delay: .milliseconds(10)),
                    maximumResponseSize: nil))
            for _ in 0..<2 {
                let body = try await Self.challengedBody {
                    try await api.target(path).makeExecutor().execute()
                }
                #expect(body?.utf8.count == Self.body.utf8.count)
                #expect(Self.isWhole(body))
            }
            #expect(server.requests(path: path).count == 2, "a 401 is not sent again")
        }

        @Test func aCallWithProgressKeepsTheWholeBody() async throws {
            // (e)
            let server = try Self.server.get()
            let path = Self.challengingPath(on: server)
            let api = Self.freshAPI(server)
            let events = LockedValue(0)
            let body = try await Self.challengedBody {
                try await api.target(path).makeExecutor().progress { _ in events.withLock { $0 += 1 } }
                    .execute()
            }
            #expect(body?.utf8.count == Self.body.utf8.count)
            #expect(Self.isWhole(body))
        }

        @Test func aCallWithTheDefaultLimitOrATimeoutKeepsTheWholeBody() async throws {
            let server = try Self.server.get()
            let path = Self.challengingPath(on: server)
            let limited = Self.freshAPI(server, options: ResourceOptions())
            let body = try await Self.challengedBody {
                try await limited.target(path).makeExecutor().execute()
            }
            #expect(body?.utf8.count == Self.body.utf8.count)
            #expect(Self.isWhole(body))
            let api = Self.freshAPI(server)
            let timed = try await Self.challengedBody {
                try await api.target(path).makeExecutor(timeout: .seconds(10)).execute()
            }
            #expect(timed?.utf8.count == Self.body.utf8.count)
            #expect(Self.isWhole(timed))
        }

        @Test func aChallengeWithAnEmptyBodyStillReachesTheCaller() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                var response = LoopbackResponse.text("", status: 401)
                response.addHeader("WWW-Authenticate", #"Basic realm="netlayer-challenge""#)
                return response
            }
            let api = Self.freshAPI(server)
            let body = try await Self.challengedBody { try await api.target(path).makeExecutor().execute() }
            #expect(body == nil || body == "")
        }
    }
}

import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

extension WireTests.Resilience {
    /// Issue 7's fault matrix, the connection and the payload: every fault ends in a typed error or
    /// a success within its deadline, never a hang.
    @Suite("Resilience: connection and payload faults", .timeLimit(.minutes(1)))
    struct FaultMatrixWireTests {
        static let server = TestServerPool.make()

        /// A body of `length` bytes of which only `sent` are written before the connection closes.
        static func cut(length: Int64 = 10_000, after sent: Int64 = 1000) -> TestResponse {
            var body = TestStreamedBody(length: length) { range in Data(repeating: 0x2A, count: range.count) }
            body.pieceSize = 500
            body.interruptAfter = sent
            var response = TestResponse(status: 200, headers: [("Content-Type", "application/octet-stream")])
            response.streamedBody = body
            return response
        }

        /// Both send paths: the direct one (nothing to watch) and the delegate-driven one (an idle
        /// timeout to enforce).
        static let timeouts: [Duration?] = [nil, .seconds(10)]

        @Test(arguments: timeouts)
        func aConnectionClosedBeforeTheHeadIsATransportError(_ timeout: Duration?) async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path) { _ in .drop() }
                let start = ContinuousClock.now
                let error = await failure {
                    try await ResilientAPI(server: server).target(path).makeExecutor(timeout: timeout)
                        .execute()
                }
                #expect(ContinuousClock.now - start < .seconds(5))
                #expect(error?.code == .transport, "\(String(describing: error))")
                #expect(error?.urlError != nil)
                #expect(error?.message.contains("GET http://127.0.0.1") == true)
                #expect(server.requests(path: path).count >= 1)
            }
        }

        @Test(arguments: timeouts)
        func aConnectionClosedMidBodyIsATypedErrorNotAShortBody(_ timeout: Duration?) async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path) { _ in Self.cut() }
                let start = ContinuousClock.now
                let error = await failure {
                    try await ResilientAPI(server: server).target(path).makeExecutor(timeout: timeout)
                        .execute()
                }
                #expect(ContinuousClock.now - start < .seconds(5))
                #expect(error?.code == .transport, "\(String(describing: error))")
            }
        }

        @Test(arguments: timeouts)
        func aBodyCutShortIsRetriedWhenTheCallCollectsIt(_ timeout: Duration?) async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let served = Counter()
                server.route(path) { _ in
                    served.increment()
                    return served.value <= 2 ? Self.cut() : TestResponse.text("whole")
                }
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions(retryPolicy: .fixed(delay: .milliseconds(5), maximumAttempts: 3))
                )
                let response = try await api.target(path).makeExecutor(timeout: timeout).response()
                #expect(response.data == Data("whole".utf8))
                #expect(response.attempts == 3)
                #expect(server.requests(path: path).count == 3)
            }
        }

        @Test(arguments: timeouts)
        func aBodyCutShortEveryTimeEndsInATypedErrorAfterTheLastAttempt(_ timeout: Duration?) async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path) { _ in Self.cut() }
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions(retryPolicy: .fixed(delay: .milliseconds(5), maximumAttempts: 3))
                )
                let error = await failure {
                    try await api.target(path).makeExecutor(timeout: timeout).execute()
                }
                #expect(error?.code == .transport, "\(String(describing: error))")
                #expect(error?.attempts == 3)
                #expect(server.requests(path: path).count == 3)
            }
        }

        @Test func aStreamedBodyCutShortIsNotRetried() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path) { _ in Self.cut() }
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions(retryPolicy: .fixed(delay: .milliseconds(5), maximumAttempts: 3))
                )
                let error = await failure {
                    for try await _ in try await api.target(path).makeExecutor().stream() {}
                }
                // The chunks already handed to the caller cannot be taken back: one attempt.
                #expect(error?.code == .transport, "\(String(describing: error))")
                #expect(error?.attempts == 1)
                #expect(server.requests(path: path).count == 1)
            }
        }

        @Test func aServerThatNeverAnswersEndsAtTheTotalDeadline() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path) { request in TestRoutes.echo(request).delayed(by: .seconds(60)) }
                let start = ContinuousClock.now
                let error = await failure {
                    try await ResilientAPI(server: server).target(path)
                        .makeExecutor(resourceTimeout: .milliseconds(600)).execute()
                }
                let elapsed = ContinuousClock.now - start
                #expect(error?.code == .timedOut, "\(String(describing: error))")
                #expect(elapsed >= .milliseconds(550) && elapsed < .seconds(4), "\(elapsed)")
            }
        }

        @Test func aServerThatNeverAnswersWithARetryPolicyStillEndsAtTheTotalDeadline() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path) { request in TestRoutes.echo(request).delayed(by: .seconds(60)) }
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions(
                        timeout: .milliseconds(300),
                        retryPolicy: .fixed(delay: .milliseconds(5), maximumAttempts: 50)))
                let start = ContinuousClock.now
                let error = await failure {
                    try await api.target(path).makeExecutor(resourceTimeout: .milliseconds(1500)).execute()
                }
                let elapsed = ContinuousClock.now - start
                #expect(error?.code == .timedOut, "\(String(describing: error))")
                #expect(elapsed < .seconds(5), "\(elapsed)")
                // Each idle timeout is retried until the total deadline is near.
                #expect((2...6).contains(server.requests(path: path).count))
            }
        }

        @Test func aDripSlowerThanTheIdleTimeoutTimesOut() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let start = ContinuousClock.now
                let error = await failure {
                    try await EchoTarget(resource: ResilientAPI(server: server), path: "/drip")
                        .makeExecutor(params: ["bytes": 20, "interval": 1500], timeout: .milliseconds(400))
                        .execute()
                }
                let elapsed = ContinuousClock.now - start
                #expect(error?.code == .timedOut, "\(String(describing: error))")
                #expect(elapsed >= .milliseconds(350) && elapsed < .seconds(4), "\(elapsed)")
            }
        }

        @Test func aDripFasterThanTheIdleTimeoutCompletes() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let data = try await EchoTarget(resource: ResilientAPI(server: server), path: "/drip")
                    .makeExecutor(params: ["bytes": 8, "interval": 50], timeout: .seconds(3)).execute()
                #expect(data == Data(repeating: UInt8(ascii: "*"), count: 8))
            }
        }

        @Test func malformedJSONIsADecodingFailureWithTheBody() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path) { _ in .json(#"{"id":1,"title":"Du"#) }
                let error = await failure {
                    try await ResilientAPI(server: server).target(path).makeExecutor().execute(
                        model: Book.self)
                }
                #expect(error?.code == .decodingFailed)
                #expect(error?.body == Data(#"{"id":1,"title":"Du"#.utf8))
                #expect(error?.underlying is DecodingError)
            }
        }

        @Test func anEmpty204DecodesAsEmptyAndAsNil() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path) { _ in TestResponse(status: 204) }
                let api = ResilientAPI(server: server)
                #expect(
                    try await api.target(path).makeExecutor(method: .delete).execute(model: Empty.self)
                        == Empty())
                let none = try await api.target(path).makeExecutor().execute(model: Book?.self)
                #expect(none == nil)
                let response = try await api.target(path).makeExecutor().response(model: Empty.self)
                #expect(response.statusCode == 204 && response.data.isEmpty)
            }
        }

        @Test func aStaleKeptAliveConnectionWithARetryPolicyCompletesPromptly() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                // Answers the first request of a connection, drops any later one (a keep-alive timer
                // firing as the next request arrives).
                server.route(path) { request in
                    request.sequenceOnConnection >= 2 ? .drop() : TestRoutes.echo(request)
                }
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions(retryPolicy: .fixed(delay: .milliseconds(5), maximumAttempts: 3))
                )
                for round in 0..<3 {
                    try await api.target(path + "/warm").makeExecutor().execute()
                    let start = ContinuousClock.now
                    let data = try await api.target(path).makeExecutor(params: ["round": round]).execute()
                    #expect(ContinuousClock.now - start < .seconds(3))
                    #expect(String(decoding: data, as: UTF8.self).contains("round=\(round)"))
                }
                #expect(server.requests(path: path).filter { $0.sequenceOnConnection == 1 }.count == 3)
            }
        }
    }
}

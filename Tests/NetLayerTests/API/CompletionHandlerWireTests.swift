import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

extension WireTests.Resilience {
    /// Issue 7: `execute(model:completion:)` calls back exactly once on every path, retries and
    /// refreshes included. A call's completion runs inside its handle's task, so once that task has
    /// ended every callback that will ever come has come.
    @Suite("Resilience: completion handlers call back once", .timeLimit(.minutes(1)))
    struct CompletionHandlerWireTests {
        static let server = TestServerPool.make()

        /// Starts `executor` with a completion handler, waits for the call's task to end and returns
        /// every result the handler received.
        static func results<Model: Decodable & Sendable>(
            _ executor: Executor, _ model: Model.Type, whileRunning: (CallHandle) async -> Void = { _ in }
        ) async -> [Result<Model, NetLayerError>] {
            let probe = CompletionProbe<Model>()
            let handle = executor.execute(model: model) { probe.record($0) }
            await whileRunning(handle)
            await handle.task.value
            return probe.all
        }

        static func error<Model>(_ results: [Result<Model, NetLayerError>]) -> NetLayerError? {
            guard results.count == 1, case .failure(let error) = results[0] else { return nil }
            return error
        }

        static func value<Model>(_ results: [Result<Model, NetLayerError>]) -> Model? {
            guard results.count == 1, case .success(let value) = results[0] else { return nil }
            return value
        }

        @Test func aSuccessCallsBackOnceWithTheValue() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path) { _ in .json(#"{"id":1,"title":"Dune"}"#) }
                let results = await Self.results(
                    ResilientAPI(server: server).target(path).makeExecutor(), Book.self)
                #expect(results.count == 1)
                #expect(Self.value(results) == Book(id: 1, title: "Dune"))
            }
        }

        @Test func aFailureCallsBackOnceWithTheError() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let results = await Self.results(
                    EchoTarget(resource: ResilientAPI(server: server), path: "/status/404").makeExecutor(),
                    Book.self)
                #expect(results.count == 1)
                #expect(Self.error(results)?.statusCode == 404)
            }
        }

        @Test func retriesEndInOneCallback() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(
                    path,
                    [.text("busy", status: 503), .text("busy", status: 503), .json(#"{"id":2,"title":"B"}"#)])
                let api = ResilientAPI(
                    server: server, options: ResourceOptions(retryPolicy: .fixed(delay: .milliseconds(5))))
                let success = await Self.results(api.target(path).makeExecutor(), Book.self)
                #expect(success.count == 1 && Self.value(success)?.id == 2)
                #expect(server.requests(path: path).count == 3)

                let failing = uniquePath()
                server.script(failing, [.text("busy", status: 503)])
                let failure = await Self.results(api.target(failing).makeExecutor(), Book.self)
                #expect(failure.count == 1)
                #expect(Self.error(failure)?.attempts == 3)
            }
        }

        @Test func aRefreshAndReplayEndInOneCallback() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(
                    path,
                    TestRoutes.acceptingBearer("new", rejection: "expired") { _ in
                        .json(#"{"id":3,"title":"C"}"#)
                    })
                let auth = Authentication.bearer(token: "old") { _ in "new" }
                let api = ResilientAPI(server: server, options: ResourceOptions(authentication: auth))
                let results = await Self.results(api.target(path).makeExecutor(), Book.self)
                #expect(results.count == 1 && Self.value(results)?.id == 3)
                #expect(auth.refreshCount == 1)

                struct Denied: Error {}
                let failing = Authentication.bearer(token: "old") { _ in throw Denied() }
                let failingAPI = ResilientAPI(
                    server: server, options: ResourceOptions(authentication: failing))
                let failure = await Self.results(failingAPI.target(path).makeExecutor(), Book.self)
                #expect(failure.count == 1)
                #expect(Self.error(failure)?.code == .authenticationFailed)
            }
        }

        @Test func cancellingTheHandleCallsBackOnceWithCancelled() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let gate = TestGate()
                defer { gate.open() }
                server.routeHeld(path, by: gate)
                let api = ResilientAPI(server: server, maxConcurrentRequests: 1)
                let results = await Self.results(api.target(path).makeExecutor(), Data.self) { handle in
                    _ = await server.waitForRequests(count: 1, path: path)
                    handle.cancel()
                    handle.cancel()
                    #expect(handle.isCancelled)
                }
                #expect(results.count == 1)
                #expect(Self.error(results)?.code == .cancelled)
                #expect(await eventually { api.limiter.inFlight == 0 })
            }
        }

        @Test func cancellingDuringABackoffCallsBackOnceWithCancelled() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path) { _ in .text("busy", status: 503) }
                let backingOff = TestSignal()
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions(
                        debug: true,
                        log: LogSink { line in if line.contains("↻ retry") { backingOff.signal() } },
                        retryPolicy: .fixed(delay: .seconds(30))))
                let start = ContinuousClock.now
                let results = await Self.results(api.target(path).makeExecutor(), Data.self) { handle in
                    await backingOff.wait()
                    handle.cancel()
                }
                #expect(ContinuousClock.now - start < .seconds(10))
                #expect(results.count == 1)
                #expect(Self.error(results)?.code == .cancelled)
                #expect(server.requests(path: path).count == 1)
            }
        }

        @Test func aCallCancelledAfterItEndedIsNotCalledBackAgain() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let probe = CompletionProbe<Data>()
                let handle = ResilientAPI(server: server).target(path).makeExecutor()
                    .execute(model: Data.self) { probe.record($0) }
                await handle.task.value
                handle.cancel()
                await handle.task.value
                #expect(probe.all.count == 1)
                #expect((try? probe.all.first?.get()).map { !$0.isEmpty } == true)
            }
        }
    }
}

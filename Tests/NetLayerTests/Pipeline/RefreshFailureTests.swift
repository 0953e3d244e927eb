import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

extension WireTests.Resilience {
    /// Refreshes that fail or hang: every call waiting for one fails with it, once, without being
    /// sent with credentials already known to be bad, and no refresh holds later calls forever.
    /// Each test is bounded by `withDeadline`, so a regression fails instead of hanging the run.
    @Suite("Resilience: refresh failures and hung refreshes", .timeLimit(.minutes(1)))
    struct RefreshFailureTests {
        static let server = TestServerPool.make()

        typealias RefreshDenied = AuthenticationWireTests.RefreshDenied

        /// Accepts only `Bearer <token>`; anything else gets 401.
        static func accepting(_ token: String) -> @Sendable (RecordedRequest) -> TestResponse {
            AuthenticationWireTests.accepting(token)
        }

        @Test func aCallThatWaitedForARefreshThatFailedSharesItsFailureWithoutBeingSent() async throws {
            try await withDeadline(.seconds(15)) {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path + "/a", Self.accepting("new"))
                server.route(path + "/b", Self.accepting("new"))
                let release = TestSignal()
                let auth = Authentication.bearer(token: "old") { _ in
                    await release.wait()
                    throw RefreshDenied()
                }
                let api = ResilientAPI(server: server, options: ResourceOptions(authentication: auth))
                // A is rejected and starts a refresh that will fail.
                let a = Task { try await api.target(path + "/a").makeExecutor().execute() }
                #expect(await eventually { auth.refreshCount == 1 })
                // B starts while it runs: it waits for the refresh instead of sending the old token.
                let b = Task { try await api.target(path + "/b").makeExecutor().execute() }
                _ = await eventually(timeout: .milliseconds(200)) {
                    !server.requests(path: path + "/b").isEmpty
                }
                #expect(server.requests(path: path + "/b").isEmpty)
                release.signal()
                let errorA = await failure { try await a.value }
                let errorB = await failure { try await b.value }
                #expect(errorA?.code == .authenticationFailed)
                #expect(errorB?.code == .authenticationFailed)
                #expect(errorB?.underlying as? RefreshDenied == RefreshDenied())
                #expect(errorB?.message.contains("refreshing the credentials failed") == true)
                #expect(
                    auth.refreshCount == 1,
                    "B was sent \(server.requests(path: path + "/b").count) time(s) and refreshed again")
                #expect(server.requests(path: path + "/b").isEmpty)
                // A call made after the failure may refresh again (the user may have signed in anew).
                _ = await failure { try await api.target(path + "/b").makeExecutor().execute() }
                #expect(auth.refreshCount == 2)
            }
        }

        @Test func aHungRefreshEndsAtItsRefreshTimeoutSoLaterCallsFailInsteadOfWaitingForever() async throws {
            try await withDeadline(.seconds(20)) {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path, Self.accepting("new"))
                let refreshes = HitCounter()
                let cancelled = TestSignal()
                // The first refresh hangs (until cancelled); the next one works.
                let auth = Authentication.bearer(token: "old", refreshTimeout: .seconds(1)) { _ in
                    let number = refreshes.next()
                    guard number == 1 else { return "new" }
                    do {
                        try await Task.sleep(for: .seconds(3600))
                    } catch {
                        cancelled.signal()
                        throw error
                    }
                    return "new"
                }
                let api = ResilientAPI(server: server, options: ResourceOptions(authentication: auth))
                // The first call's own deadline ends its wait.
                let first = await failure {
                    try await api.target(path).makeExecutor(resourceTimeout: .milliseconds(400)).execute()
                }
                #expect(first?.code == .timedOut)
                // Calls without a deadline, waiting for the hung refresh, share its failure at the
                // refresh timeout: each resumed exactly once, none sent with the old token again.
                let start = ContinuousClock.now
                let codes = await withTaskGroup(of: NetLayerError?.self) { group in
                    for n in 0..<3 {
                        group.addTask {
                            await failure {
                                try await api.target(path).makeExecutor(params: ["n": n]).execute()
                            }
                        }
                    }
                    var errors: [NetLayerError?] = []
                    for await error in group { errors.append(error) }
                    return errors
                }
                #expect(ContinuousClock.now - start < .seconds(5))
                #expect(codes.count == 3)
                for error in codes {
                    #expect(error?.code == .authenticationFailed)
                    #expect((error?.underlying as? NetLayerError)?.code == .timedOut)
                }
                #expect(auth.refreshCount == 1)
                #expect(server.requests(path: path).count == 1)
                // The hung refresh was cancelled, not left running.
                #expect(await eventually(timeout: .seconds(2)) { cancelled.isSet })
                // A later call refreshes again and succeeds.
                let response = try await api.target(path).makeExecutor().response()
                #expect(response.statusCode == 200)
                #expect(auth.refreshCount == 2)
            }
        }

        @Test func aRefreshTimeoutOfZeroOrLessFailsEveryCallBeforeAnythingIsSent() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path, Self.accepting("new"))
                for timeout: Duration in [.zero, .seconds(-1)] {
                    let auth = Authentication.bearer(token: "new", refreshTimeout: timeout) { _ in "new" }
                    let api = ResilientAPI(server: server, options: ResourceOptions(authentication: auth))
                    let error = await failure { try await api.target(path).makeExecutor().execute() }
                    #expect(error?.code == .invalidValue)
                    #expect(error?.message.contains("refreshTimeout") == true)
                    // Rounded as debug output prints durations, not `-1.0 seconds`.
                    let shown = timeout == .zero ? "0 ms is zero or less" : "-1000 ms is zero or less"
                    #expect(error?.message.contains(shown) == true, "\(error?.message ?? "")")
                }
                #expect(server.requests(path: path).isEmpty)
            }
        }

        @Test func aHugeRefreshTimeoutIsClampedAndTheDefaultIsDocumented() async throws {
            let huge = Authentication.bearer(token: "t", refreshTimeout: .seconds(Int64.max)) { _ in "u" }
            #expect(huge.refreshTimeout == Timeouts.maximum)
            let plain = Authentication.bearer(token: "t") { _ in "u" }
            #expect(plain.refreshTimeout == Authentication.defaultRefreshTimeout)
            #expect(Authentication.basic(username: "a", password: "b").refreshTimeout == .seconds(60))
        }
    }
}

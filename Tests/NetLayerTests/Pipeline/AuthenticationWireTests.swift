import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

extension WireTests.Resilience {
    /// Issue 7's fault matrix, authentication: single-flight refreshes, replays, and clean failures,
    /// checked against the `Authorization` headers the server received.
    @Suite("Resilience: authentication on the wire", .timeLimit(.minutes(1)))
    struct AuthenticationWireTests {
        static let server = TestServerPool.make()

        struct RefreshDenied: Error, Equatable {}

        /// Accepts only `Bearer <token>`; anything else gets 401.
        static func accepting(_ token: String) -> @Sendable (RecordedRequest) -> TestResponse {
            TestRoutes.acceptingBearer(token)
        }

        static func tokens(_ requests: [RecordedRequest]) -> [String] {
            requests.map { $0.header("Authorization") ?? "-" }
        }

        @Test func a401IsRefreshedOnceAndReplayedWithTheNewToken() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path, Self.accepting("new"))
                let refresher = Refresher(next: "new")
                let auth = Authentication.bearer(token: "old") { try await refresher.refresh($0) }
                let api = ResilientAPI(server: server, options: ResourceOptions(authentication: auth))
                let response = try await api.target(path).makeExecutor().response()
                #expect(response.statusCode == 200)
                #expect(Self.tokens(server.requests(path: path)) == ["Bearer old", "Bearer new"])
                #expect(auth.refreshCount == 1)
                #expect(refresher.rejected.withLock { $0 } == ["old"])
                // Later calls carry the new token at once.
                try await api.target(path).makeExecutor().execute()
                #expect(
                    Self.tokens(server.requests(path: path)) == ["Bearer old", "Bearer new", "Bearer new"])
                #expect(auth.refreshCount == 1)
            }
        }

        @Test func aFailedRefreshFailsTheCallWithTheRefreshError() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path, Self.accepting("new"))
                let auth = Authentication.bearer(token: "old") { _ in throw RefreshDenied() }
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions(
                        retryPolicy: .fixed(delay: .milliseconds(5)), authentication: auth))
                let error = await failure { try await api.target(path).makeExecutor().execute() }
                #expect(error?.code == .authenticationFailed)
                #expect(error?.underlying as? RefreshDenied == RefreshDenied())
                #expect(error?.message.contains("refreshing the credentials failed") == true)
                // Not retried, not replayed.
                #expect(Self.tokens(server.requests(path: path)) == ["Bearer old"])
                #expect(auth.refreshCount == 1)
                // A later rejection tries again: a failed refresh does not poison the credentials.
                _ = await failure { try await api.target(path).makeExecutor().execute() }
                #expect(auth.refreshCount == 2)
            }
        }

        @Test func aRejectionArrivingAfterItsWavesRefreshFailedSharesThatFailure() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let gate = TestGate()
                defer { gate.open() }
                server.route(path + "/fast") { _ in .text("token expired", status: 401) }
                server.routeHeld(path + "/slow", by: gate) { _ in .text("token expired", status: 401) }
                let auth = Authentication.bearer(token: "old") { _ in throw RefreshDenied() }
                let api = ResilientAPI(server: server, options: ResourceOptions(authentication: auth))
                // Sent with the old token; its 401 comes back only after the refresh failed.
                let slow = Task { try await api.target(path + "/slow").makeExecutor().execute() }
                #expect(await server.waitForRequests(count: 1, path: path + "/slow").count == 1)
                let fast = await failure { try await api.target(path + "/fast").makeExecutor().execute() }
                #expect(fast?.code == .authenticationFailed)
                #expect(auth.refreshCount == 1)
                gate.open()
                let late = await failure { try await slow.value }
                #expect(late?.code == .authenticationFailed)
                #expect(late?.underlying as? RefreshDenied == RefreshDenied())
                #expect(auth.refreshCount == 1, "the late rejection refreshed again with a spent token")
                // A call sent after the failure may refresh again.
                _ = await failure { try await api.target(path + "/fast").makeExecutor().execute() }
                #expect(auth.refreshCount == 2)
            }
        }

        @Test func aRefreshThatHangsEndsAtTheTotalDeadline() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path, Self.accepting("new"))
                let auth = Authentication.bearer(token: "old") { _ in
                    try await Task.sleep(for: .seconds(20))
                    return "new"
                }
                let api = ResilientAPI(server: server, options: ResourceOptions(authentication: auth))
                let start = ContinuousClock.now
                let error = await failure {
                    try await api.target(path).makeExecutor(resourceTimeout: .milliseconds(600)).execute()
                }
                let elapsed = ContinuousClock.now - start
                #expect(error?.code == .timedOut)
                #expect(elapsed < .seconds(5), "the call waited \(elapsed) for a hung refresh")
                #expect(Self.tokens(server.requests(path: path)) == ["Bearer old"])
            }
        }

        @Test func anAuthenticationWorksAsACallsOwnInterceptor() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path, Self.accepting("admin-2"))
                let refresher = Refresher(next: "admin-2")
                let admin = Authentication.bearer(token: "admin-1") { try await refresher.refresh($0) }
                // The resource has no authentication; this one call carries its own.
                let api = ResilientAPI(server: server)
                let response = try await api.target(path).makeExecutor().intercepted(by: admin).response()
                #expect(response.statusCode == 200)
                #expect(Self.tokens(server.requests(path: path)) == ["Bearer admin-1", "Bearer admin-2"])
                #expect(admin.refreshCount == 1)
                #expect(response.attempts == 2)
            }
        }

        @Test func aFileBodyThatShrankIsNotReplayedAfterTheRefreshAndTheErrorSaysWhy() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path, Self.accepting("new"))
                let file = FileManager.default.temporaryDirectory
                    .appendingPathComponent("netlayer-auth-shrink-\(UUID().uuidString).bin")
                try Data(repeating: 0x41, count: 4096).write(to: file)
                defer { try? FileManager.default.removeItem(at: file) }
                // The file is cut short while the credentials are refreshed.
                let auth = Authentication.bearer(token: "old") { _ in
                    try Data(repeating: 0x41, count: 10).write(to: file)
                    return "new"
                }
                let api = ResilientAPI(server: server, options: ResourceOptions(authentication: auth))
                let error = await failure {
                    try await api.target(path).makeExecutor(method: .put, body: .file(file)).execute()
                }
                #expect(error?.code == .authenticationFailed)
                #expect(error?.message.contains("cannot be") == true, "\(String(describing: error))")
                #expect(auth.refreshCount == 1)
                // Only the first attempt reached the server, with the whole file.
                let received = server.requests(path: path)
                #expect(received.count == 1)
                #expect(received.first?.body.count == 4096)
            }
        }

        @Test func aReplayRejectedAgainIsA401AfterExactlyOneRefresh() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path, Self.accepting("never"))
                let refresher = Refresher(next: "new")
                let auth = Authentication.bearer(token: "old") { try await refresher.refresh($0) }
                let api = ResilientAPI(server: server, options: ResourceOptions(authentication: auth))
                let error = await failure { try await api.target(path).makeExecutor().execute() }
                #expect(error?.code == .unacceptableStatus && error?.statusCode == 401)
                #expect(error?.body == Data("token expired".utf8))
                #expect(error?.attempts == 2)
                #expect(auth.refreshCount == 1)
                #expect(Self.tokens(server.requests(path: path)) == ["Bearer old", "Bearer new"])
                // The token is redacted in the error's text.
                #expect(error.map { !"\($0)\($0.debugDescription)".contains("Bearer new") } == true)
            }
        }

        @Test func fiftyConcurrent401sShareOneRefreshAndAllReplayWithTheNewToken() async throws {
            try await withDeadline(.seconds(40)) {
                let server = try Self.server.get()
                let path = uniquePath()
                let gate = TestGate()
                defer { gate.open() }
                // Every old-token request is held until all 50 have arrived: they fail together.
                server.route(path, TestRoutes.acceptingBearer("new", holdingRejectionsAt: gate))
                let refresher = Refresher(next: "new")
                let auth = Authentication.bearer(token: "old") { token in
                    try await refresher.refresh(token)
                }
                let api = ResilientAPI(
                    server: server, connections: 64, options: ResourceOptions(authentication: auth))
                let calls = (0..<50).map { n in
                    Task {
                        try await api.target(path).makeExecutor(params: ["n": n]).execute(model: String.self)
                    }
                }
                let held = await server.waitForRequests(count: 50, path: path, timeout: .seconds(20))
                try #require(held.count == 50)
                gate.open()
                for call in calls { _ = try await call.value }
                #expect(auth.refreshCount == 1)
                #expect(refresher.rejected.withLock { $0 } == ["old"])
                let received = server.requests(path: path)
                #expect(received.count == 100)
                #expect(received.filter { $0.header("Authorization") == "Bearer old" }.count == 50)
                let replays = received.filter { $0.header("Authorization") == "Bearer new" }
                #expect(replays.count == 50)
                #expect(Set(replays.compactMap { $0.queryValue("n") }).count == 50)
            }
        }

        @Test func oneAuthenticationSharedByTwoResourcesRefreshesOnceForBoth() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let gate = TestGate()
                defer { gate.open() }
                server.route(path, TestRoutes.acceptingBearer("new", holdingRejectionsAt: gate))
                let refresher = Refresher(next: "new")
                let auth = Authentication.bearer(token: "old") { try await refresher.refresh($0) }
                let first = ResilientAPI(server: server, options: ResourceOptions(authentication: auth))
                let second = ResilientAPI(server: server, options: ResourceOptions(authentication: auth))
                let calls = [first, second].map { api in
                    Task { try await api.target(path).makeExecutor().execute() }
                }
                #expect(await server.waitForRequests(count: 2, path: path).count == 2)
                gate.open()
                for call in calls { _ = try await call.value }
                #expect(auth.refreshCount == 1)
                #expect(
                    Self.tokens(server.requests(path: path)).sorted() == [
                        "Bearer new", "Bearer new", "Bearer old", "Bearer old",
                    ])
            }
        }

        @Test func cancellingOneCallerWaitingForARefreshNeitherStartsASecondRefreshNorLosesTheNewToken()
            async throws
        {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path, Self.accepting("new"))
                let refreshing = TestSignal()
                let release = TestSignal()
                let running = LockedValue((now: 0, most: 0))
                let auth = Authentication.bearer(token: "old") { _ in
                    running.withLock {
                        $0.now += 1
                        $0.most = max($0.most, $0.now)
                    }
                    defer { running.withLock { $0.now -= 1 } }
                    refreshing.signal()
                    await release.wait()
                    return "new"
                }
                let api = ResilientAPI(server: server, options: ResourceOptions(authentication: auth))
                let cancelled = Task { try await api.target(path).makeExecutor().execute() }
                await refreshing.wait()
                cancelled.cancel()
                let error = await failure { try await cancelled.value }
                #expect(error?.code == .cancelled)
                // The refresh goes on; a call made meanwhile waits for it instead of starting another.
                let later = Task {
                    try await api.target(path).makeExecutor(params: ["n": 2]).execute(model: String.self)
                }
                // Give the later call the chance to go wrong (send the old token, refresh again)
                // before the refresh ends.
                _ = await eventually(timeout: .milliseconds(300)) { server.requests(path: path).count > 1 }
                release.signal()
                _ = try await later.value
                #expect(auth.refreshCount == 1)
                #expect(running.withLock { $0.most } == 1)
                #expect(Self.tokens(server.requests(path: path)) == ["Bearer old", "Bearer new"])
                // Later calls go out with the new token at once.
                try await api.target(path).makeExecutor().execute()
                #expect(auth.refreshCount == 1)
                #expect(server.requests(path: path).last?.header("Authorization") == "Bearer new")
            }
        }

        /// Reads the token from a store that something else rotates.
        struct StoreAuthenticator: Authenticator {
            let store: LockedValue<String>
            func authenticate(_ request: inout TransportRequest) async throws {
                try request.headerFields.setValue("Token \(store.withLock { $0 })", for: "Authorization")
            }
            func refresh() async throws {}
        }

        @Test func credentialsAreAskedForOnEveryAttemptSoARotatedTokenIsUsedWithoutANewResource() async throws
        {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, responders: [{ _ in .retryAfter("0") }, { .echo($0) }])
                let store = LockedValue("one")
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions(
                        interceptors: [
                            ClosureInterceptor { request, context, next in
                                // Rotated between the first attempt and the retry.
                                if context.attempt == 2 { store.withLock { $0 = "two" } }
                                return try await next(request)
                            }
                        ],
                        retryPolicy: .fixed(delay: .milliseconds(5)),
                        authentication: Authentication(StoreAuthenticator(store: store))))
                try await api.target(path).makeExecutor().execute()
                store.withLock { $0 = "three" }
                try await api.target(path).makeExecutor().execute()
                #expect(
                    Self.tokens(server.requests(path: path)) == ["Token one", "Token two", "Token three"])
            }
        }

        struct BrokenAuthenticator: Authenticator {
            func authenticate(_ request: inout TransportRequest) async throws { throw RefreshDenied() }
            func refresh() async throws {}
        }

        @Test func anAuthenticatorThatCannotAddCredentialsFailsBeforeAnythingIsSent() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions(authentication: Authentication(BrokenAuthenticator())))
                let error = await failure { try await api.target(path).makeExecutor().execute() }
                #expect(error?.code == .authenticationFailed)
                #expect(error?.underlying as? RefreshDenied == RefreshDenied())
                #expect(server.requests(path: path).isEmpty)
            }
        }

        @Test func basicCredentialsGoOutAndA401IsNotRefreshed() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let good = ResilientAPI(
                    server: server,
                    options: ResourceOptions(authentication: .basic(username: "ana", password: "pä ss")))
                let data = try await EchoTarget(resource: good, path: "/basic-auth")
                    .makeExecutor(params: ["user": "ana", "pass": "pä ss"]).execute()
                #expect(String(decoding: data, as: UTF8.self).contains("/basic-auth"))
                let auth = Authentication.basic(username: "ana", password: "wrong")
                let bad = ResilientAPI(server: server, options: ResourceOptions(authentication: auth))
                let before = server.requests(path: "/basic-auth").count
                let error = await failure {
                    try await EchoTarget(resource: bad, path: "/basic-auth")
                        .makeExecutor(params: ["user": "ana", "pass": "pä ss"]).execute()
                }
                #expect(error?.code == .unacceptableStatus && error?.statusCode == 401)
                #expect(auth.refreshCount == 0)
                let sent = server.requests(path: "/basic-auth").dropFirst(before)
                #expect(sent.count == 1)
                #expect(
                    sent.first?.header("Authorization") == "Basic "
                        + Data("ana:wrong".utf8).base64EncodedString())
            }
        }

        /// A personal access token: the same `Authorization` on every attempt, retries included.
        @Test func aStaticBearerTokenGoesOutOnEveryAttempt() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, [.text("busy", status: 503), .text("busy", status: 503), .text("ok")])
                let auth = Authentication.bearer(token: "pat-1234")
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions {
                        $0.authentication = auth
                        $0.retryPolicy = .fixed(delay: .milliseconds(10))
                    })
                let response = try await api.target(path).makeExecutor().response(model: String.self)
                #expect(response.value == "ok" && response.attempts == 3)
                try await api.target(path).makeExecutor().execute()
                #expect(
                    Self.tokens(server.requests(path: path)) == Array(repeating: "Bearer pat-1234", count: 4))
                #expect(auth.refreshCount == 0)
            }
        }

        /// A token that cannot be refreshed: its 401 is thrown once, neither replayed nor retried.
        @Test func aStaticBearerTokensRejectionIsThrownOnceNotReplayed() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path, Self.accepting("another"))
                let auth = Authentication.bearer(token: "pat-revoked")
                // With a retry policy too: a 401 is neither a rejection to refresh after nor a
                // status the policy retries.
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions {
                        $0.authentication = auth
                        $0.retryPolicy = .fixed(delay: .milliseconds(10))
                    })
                let error = await failure { try await api.target(path).makeExecutor().execute() }
                #expect(error?.code == .unacceptableStatus && error?.statusCode == 401)
                #expect(error?.attempts == 1)
                #expect(Self.tokens(server.requests(path: path)) == ["Bearer pat-revoked"])
                #expect(auth.refreshCount == 0)
            }
        }

        /// A token read from a missing setting, or with the line break of the file it came from,
        /// fails every call with a typed error; nothing goes out.
        @Test(.tags(.hardening), arguments: ["", "  ", "pat-1234\n", "pat\r\nX-Evil: 1"])
        func anUnusableStaticBearerTokenFailsTheCallBeforeAnythingIsSent(_ token: String) async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let api = ResilientAPI(
                    server: server, options: ResourceOptions { $0.authentication = .bearer(token: token) })
                let error = await failure { try await api.target(path).makeExecutor().execute() }
                let expected: NetLayerError.Code = token.contains("pat") ? .invalidHeader : .invalidValue
                #expect(error?.code == expected, "\(String(describing: error))")
                #expect(server.requests(path: path).isEmpty)
            }
        }

        /// Treats 403 with `X-Token: expired` as a rejection too.
        struct ForbiddenMeansExpired: Authenticator {
            let store: LockedValue<String>
            func authenticate(_ request: inout TransportRequest) async throws {
                try request.headerFields.setValue(store.withLock { $0 }, for: "X-Api-Key")
            }
            func refresh() async throws { store.withLock { $0 = "fresh" } }
            func isRejection(_ response: ResponseHead) -> Bool {
                response.statusCode == 403 && response.headerFields["X-Token"] == "expired"
            }
        }

        @Test func anAuthenticatorDecidesWhatARejectionIs() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path) { request in
                    if request.header("X-Api-Key") == "fresh" { return .echo(request) }
                    var response = TestResponse.text("expired", status: 403)
                    response.addHeader("X-Token", "expired")
                    return response
                }
                let auth = Authentication(ForbiddenMeansExpired(store: LockedValue("stale")))
                let api = ResilientAPI(server: server, options: ResourceOptions(authentication: auth))
                try await api.target(path).makeExecutor().execute()
                #expect(auth.refreshCount == 1)
                #expect(
                    server.requests(path: path).map { $0.header("X-Api-Key") ?? "-" } == ["stale", "fresh"])
            }
        }

        @Test func aRefreshedTokenThatIsNotAValidHeaderFailsTheRefresh() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path, Self.accepting("new"))
                let auth = Authentication.bearer(token: "old") { _ in "new\r\nX-Injected: 1" }
                let api = ResilientAPI(server: server, options: ResourceOptions(authentication: auth))
                let error = await failure { try await api.target(path).makeExecutor().execute() }
                #expect(error?.code == .authenticationFailed)
                #expect((error?.underlying as? NetLayerError)?.code == .invalidHeader)
                #expect(server.requests(path: path).count == 1)
                #expect(server.requests.allSatisfy { $0.header("X-Injected") == nil })
            }
        }
    }
}

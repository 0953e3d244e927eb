import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

extension WireTests.Resilience {
    /// Issue 7's fault matrix, retries: what the server counts, what the caller gets, and why a
    /// call was not retried.
    @Suite("Resilience: retries on the wire", .timeLimit(.minutes(1)))
    struct RetryWireTests {
        static let server = TestServerPool.make()

        /// Retries quickly, up to `attempts` in all.
        static func quick(_ attempts: Int = 3) -> RetryPolicy {
            .fixed(delay: .milliseconds(10), maximumAttempts: attempts, maximumDelay: .seconds(10))
        }

        static let status500 = TestResponse.text("boom", status: 500)

        /// `Retry-After` as an IMF-fixdate `seconds` from now.
        static func httpDate(secondsFromNow seconds: Double) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(secondsFromGMT: 0)
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            return formatter.string(from: Date().addingTimeInterval(seconds))
        }

        @Test func fiveHundredTwiceThenSuccessIsThreeAttemptsAndSucceeds() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, [Self.status500, Self.status500, .json(#"{"id":1,"title":"Dune"}"#)])
                let api = ResilientAPI(server: server, options: ResourceOptions(retryPolicy: Self.quick()))
                let book = try await api.target(path).makeExecutor().execute(model: Book.self)
                #expect(book == Book(id: 1, title: "Dune"))
                #expect(server.requests(path: path).count == 3)
            }
        }

        @Test func aFailureAfterEveryAttemptCarriesTheAttemptCountAndSaysWhy() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, [Self.status500])
                let api = ResilientAPI(server: server, options: ResourceOptions(retryPolicy: Self.quick(3)))
                let error = await failure { try await api.target(path).makeExecutor().execute() }
                #expect(error?.code == .unacceptableStatus && error?.statusCode == 500)
                #expect(error?.attempts == 3)
                #expect(
                    error?.message.contains("3 attempts made, the policy's maximum") == true,
                    "\(String(describing: error))")
                #expect(error?.body == Data("boom".utf8))
                #expect(server.requests(path: path).count == 3)
            }
        }

        @Test func withoutAPolicyNothingIsRetriedAndOneAttemptIsReported() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, [Self.status500, .text("ok")])
                let error = await failure {
                    try await ResilientAPI(server: server).target(path).makeExecutor().execute()
                }
                #expect(error?.code == .unacceptableStatus && error?.attempts == 1)
                #expect(server.requests(path: path).count == 1)
            }
        }

        @Test func aPostIsNotRetriedByDefaultAndTheErrorSaysSo() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, [Self.status500, .text("ok")])
                let api = ResilientAPI(server: server, options: ResourceOptions(retryPolicy: Self.quick()))
                let error = await failure {
                    try await api.target(path).makeExecutor(method: .post, params: ["a": 1]).execute()
                }
                #expect(
                    error?.code == .unacceptableStatus && error?.statusCode == 500 && error?.attempts == 1)
                #expect(
                    error?.message.contains("POST is not idempotent") == true, "\(String(describing: error))")
                #expect(error?.message.contains(".idempotent()") == true)
                #expect(server.requests(path: path).count == 1)
            }
        }

        @Test func aPostMarkedIdempotentIsRetriedWithTheSameBody() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, [Self.status500, .text("created", status: 201)])
                let api = ResilientAPI(server: server, options: ResourceOptions(retryPolicy: Self.quick()))
                let text = try await api.target(path)
                    .makeExecutor(
                        method: .post, headers: ["Idempotency-Key": "k-1"], body: .json(["title": "Dune"])
                    )
                    .idempotent().execute(model: String.self)
                #expect(text == "created")
                let received = server.requests(path: path)
                #expect(received.count == 2)
                #expect(received.allSatisfy { $0.bodyString == #"{"title":"Dune"}"# })
                #expect(received.allSatisfy { $0.header("Idempotency-Key") == "k-1" })
            }
        }

        @Test func aPutMarkedNotIdempotentIsNotRetried() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, [Self.status500, .text("ok")])
                let api = ResilientAPI(server: server, options: ResourceOptions(retryPolicy: Self.quick()))
                let error = await failure {
                    try await api.target(path).makeExecutor(method: .put).idempotent(false).execute()
                }
                #expect(error?.statusCode == 500 && error?.message.contains("PUT is not idempotent") == true)
                #expect(server.requests(path: path).count == 1)
            }
        }

        @Test func aFileBodyIsSentByteExactOnEveryAttempt() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let file = FileManager.default.temporaryDirectory
                    .appendingPathComponent("netlayer-retry-\(UUID().uuidString).bin")
                // Above the in-memory limit, so the body streams from the file on each attempt.
                let bytes = Data((0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
                try bytes.write(to: file)
                defer { try? FileManager.default.removeItem(at: file) }
                server.script(path, [.retryAfter("0"), .retryAfter("0"), .text("stored")])
                let api = ResilientAPI(server: server, options: ResourceOptions(retryPolicy: Self.quick()))
                let text = try await api.target(path).makeExecutor(method: .put, body: .file(file))
                    .execute(model: String.self)
                #expect(text == "stored")
                let received = server.requests(path: path)
                #expect(received.count == 3)
                #expect(received.allSatisfy { $0.body == bytes }, "\(received.map(\.body.count))")
            }
        }

        @Test func aFileThatShrankBetweenAttemptsIsNotSentAgain() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let file = FileManager.default.temporaryDirectory
                    .appendingPathComponent("netlayer-shrink-\(UUID().uuidString).bin")
                let bytes = Data(repeating: 0x5A, count: 4096)
                try bytes.write(to: file)
                defer { try? FileManager.default.removeItem(at: file) }
                // The file is cut short while the first attempt is answered.
                server.route(path) { _ in
                    try? Data("short".utf8).write(to: file)
                    return .text("busy", status: 503)
                }
                let api = ResilientAPI(server: server, options: ResourceOptions(retryPolicy: Self.quick()))
                let error = await failure {
                    try await api.target(path).makeExecutor(method: .put, body: .file(file)).execute()
                }
                #expect(error?.statusCode == 503 && error?.attempts == 1)
                #expect(
                    error?.message.contains("the body cannot be sent again") == true,
                    "\(String(describing: error))")
                let received = server.requests(path: path)
                #expect(received.count == 1 && received.first?.body == bytes)
            }
        }

        static let retryAfterCases: [(status: Int, asDate: Bool)] = [
            (429, false), (503, false), (429, true), (503, true),
        ]

        @Test(arguments: retryAfterCases)
        func retryAfterIsWaitedForAsSecondsOrAsAnHTTPDate(_ status: Int, _ asDate: Bool) async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                // A date has whole seconds: 2 s from now is between 1 and 2 s away.
                server.script(
                    path,
                    responders: [
                        { _ in .retryAfter(asDate ? Self.httpDate(secondsFromNow: 2) : "1", status: status) },
                        { .echo($0) },
                    ])
                // The policy's own delay is short: the wait comes from Retry-After.
                let api = ResilientAPI(server: server, options: ResourceOptions(retryPolicy: Self.quick()))
                try await api.target(path).makeExecutor().execute()
                let received = server.requests(path: path)
                try #require(received.count == 2)
                let gap = received[1].receivedAt - received[0].receivedAt
                #expect(gap >= .milliseconds(900), "retried after \(gap)")
                #expect(gap < .seconds(6), "retried after \(gap)")
            }
        }

        @Test func aRetryAfterPausesEveryCallerOfTheResourceAndNoOtherResource() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, [.retryAfter("2", status: 429)])
                let api = ResilientAPI(server: server)
                let start = ContinuousClock.now
                let error = await failure { try await api.target(path).makeExecutor().execute() }
                #expect(error?.statusCode == 429)
                let pausedUntil = try #require(api.limiter.pausedUntil)
                #expect(pausedUntil - start > .milliseconds(1500))
                // Another caller of the same service waits the pause out before it is sent...
                try await api.target(path + "/other").makeExecutor().execute()
                let elapsed = ContinuousClock.now - start
                #expect(elapsed >= .milliseconds(1800), "the second call was sent after \(elapsed)")
                #expect(
                    server.requests(path: path + "/other").first.map { $0.receivedAt >= pausedUntil } == true)
                // ...a caller of another resource does not.
                let other = ResilientAPI(server: server)
                let otherStart = ContinuousClock.now
                try await other.target(path + "/elsewhere").makeExecutor().execute()
                #expect(ContinuousClock.now - otherStart < .seconds(1))
            }
        }

        @Test func callersWaitingDuringAPauseAreAllHeldUntilItEnds() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, [.retryAfter("1", status: 503), .text("ok")])
                let api = ResilientAPI(server: server, options: ResourceOptions(retryPolicy: Self.quick()))
                let first = Task { try await api.target(path).makeExecutor().execute(model: String.self) }
                #expect(await eventually { api.limiter.pausedUntil != nil })
                let pausedUntil = try #require(api.limiter.pausedUntil)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for n in 0..<5 {
                        group.addTask {
                            try await api.target(path + "/others").makeExecutor(params: ["n": n]).execute()
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(try await first.value == "ok")
                let others = server.requests(path: path + "/others")
                #expect(others.count == 5)
                #expect(others.allSatisfy { $0.receivedAt >= pausedUntil })
            }
        }

        @Test func aRetryAfterLongerThanTheMaximumDelayIsNotWaitedForAndTheErrorSaysSo() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, [.retryAfter("120", status: 429), .text("ok")])
                let policy = RetryPolicy.fixed(
                    delay: .milliseconds(10), maximumAttempts: 3, maximumDelay: .seconds(2))
                let api = ResilientAPI(server: server, options: ResourceOptions(retryPolicy: policy))
                let start = ContinuousClock.now
                let error = await failure { try await api.target(path).makeExecutor().execute() }
                #expect(ContinuousClock.now - start < .seconds(3))
                #expect(
                    error?.code == .unacceptableStatus && error?.statusCode == 429 && error?.attempts == 1)
                #expect(error?.header("Retry-After") == "120")
                #expect(
                    error?.message.contains(
                        "Retry-After asks for 120.0 s, more than the policy's maximumDelay of 2.0 s")
                        == true, "\(String(describing: error))")
                #expect(server.requests(path: path).count == 1)
            }
        }

        @Test func aSpentRetryBudgetStopsRetriesForTheWholeResource() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, [Self.status500])
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions(
                        retryPolicy: Self.quick(5), retryBudget: RetryBudget(capacity: 2, refillPerSuccess: 0)
                    ))
                let first = await failure { try await api.target(path).makeExecutor().execute() }
                #expect(first?.attempts == 3)
                #expect(
                    first?.message.contains("the resource's retry budget is spent") == true,
                    "\(String(describing: first))")
                #expect(server.requests(path: path).count == 3)
                let second = await failure {
                    try await api.target(path).makeExecutor(params: ["n": 2]).execute()
                }
                #expect(second?.attempts == 1)
                #expect(second?.message.contains("retry budget is spent") == true)
                #expect(server.requests(path: path).count == 4)
            }
        }

        @Test func successesRefillTheBudget() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, [Self.status500, .text("ok"), Self.status500, .text("ok")])
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions(
                        retryPolicy: Self.quick(), retryBudget: RetryBudget(capacity: 1, refillPerSuccess: 1))
                )
                // Each call spends the one token on its retry and its success puts it back.
                #expect(try await api.target(path).makeExecutor().execute(model: String.self) == "ok")
                #expect(try await api.target(path).makeExecutor().execute(model: String.self) == "ok")
                #expect(server.requests(path: path).count == 4)
            }
        }

        @Test func aRetryThatWouldOutliveTheTotalDeadlineIsNotMade() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, [Self.status500, .text("ok")])
                let policy = RetryPolicy.fixed(delay: .seconds(5), maximumAttempts: 3)
                let api = ResilientAPI(server: server, options: ResourceOptions(retryPolicy: policy))
                let start = ContinuousClock.now
                let error = await failure {
                    try await api.target(path).makeExecutor(resourceTimeout: .seconds(1)).execute()
                }
                #expect(ContinuousClock.now - start < .seconds(1))
                #expect(error?.statusCode == 500)
                #expect(
                    error?.message.contains("the total deadline would pass") == true,
                    "\(String(describing: error))")
                #expect(server.requests(path: path).count == 1)
            }
        }

        @Test func statusesThatAreNotRetryableAreReturnedAtOnce() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, [.text("missing", status: 404), .text("ok")])
                let api = ResilientAPI(server: server, options: ResourceOptions(retryPolicy: Self.quick()))
                let error = await failure { try await api.target(path).makeExecutor().execute() }
                #expect(error?.statusCode == 404 && error?.attempts == 1)
                #expect(server.requests(path: path).count == 1)
            }
        }

        @Test func theCallsPolicyWinsOverTheTargetsWhichWinsOverTheResources() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let api = ResilientAPI(server: server, options: ResourceOptions(retryPolicy: Self.quick(2)))
                func attempts(_ executor: Executor) async -> Int? {
                    await failure { try await executor.execute() }?.attempts
                }
                let resourcePath = uniquePath()
                server.script(resourcePath, [Self.status500])
                #expect(await attempts(api.target(resourcePath).makeExecutor()) == 2)
                let targetPath = uniquePath()
                server.script(targetPath, [Self.status500])
                let target = TunedTarget(resource: api, path: targetPath, retryPolicy: Self.quick(4))
                #expect(await attempts(target.makeExecutor()) == 4)
                let callPath = uniquePath()
                server.script(callPath, [Self.status500])
                let call = TunedTarget(resource: api, path: callPath, retryPolicy: Self.quick(4))
                #expect(await attempts(call.makeExecutor().retry(.none)) == 1)
                #expect(server.requests(path: resourcePath).count == 2)
                #expect(server.requests(path: targetPath).count == 4)
                #expect(server.requests(path: callPath).count == 1)
            }
        }

        @Test func anInvalidPolicyFailsTheCallBeforeAnythingIsSent() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let api = ResilientAPI(server: server)
                let error = await failure {
                    try await api.target(path).makeExecutor().retry(.fixed(maximumAttempts: 0)).execute()
                }
                #expect(error?.code == .invalidValue && error?.part == "retryPolicy.maximumAttempts")
                #expect(server.requests(path: path).isEmpty)
            }
        }

        /// "Retry only 502 and 503": a 500 goes back at once, a 502 and a 503 are retried, for
        /// both backoffs.
        @Test(arguments: ["fixed", "exponential"])
        func onlyTheListedStatusesAreRetried(_ backoff: String) async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let policy: RetryPolicy =
                    backoff == "fixed"
                    ? .fixed(delay: .milliseconds(10), statusCodes: [502, 503])
                    : .exponential(base: .milliseconds(10), statusCodes: [502, 503])
                let api = ResilientAPI(server: server, options: ResourceOptions { $0.retryPolicy = policy })
                let notListed = uniquePath()
                server.script(notListed, [Self.status500, .text("ok")])
                let error = await failure { try await api.target(notListed).makeExecutor().execute() }
                #expect(error?.statusCode == 500 && error?.attempts == 1)
                #expect(server.requests(path: notListed).count == 1)
                let listed = uniquePath()
                server.script(
                    listed,
                    [.text("bad gateway", status: 502), .text("unavailable", status: 503), .text("ok")])
                let response = try await api.target(listed).makeExecutor().response(model: String.self)
                #expect(response.value == "ok" && response.attempts == 3)
                #expect(server.requests(path: listed).count == 3)
            }
        }

        @Test func anEmptyStatusListRetriesTransportFailuresOnly() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let api = ResilientAPI(
                    server: server,
                    options: ResourceOptions {
                        $0.retryPolicy = .fixed(delay: .milliseconds(10), statusCodes: [])
                    })
                let status = uniquePath()
                server.script(status, [.text("unavailable", status: 503), .text("ok")])
                let error = await failure { try await api.target(status).makeExecutor().execute() }
                #expect(error?.statusCode == 503 && error?.attempts == 1)
                #expect(server.requests(path: status).count == 1)
                let dropped = uniquePath()
                server.script(dropped, responders: [{ _ in .drop() }, { _ in .text("ok") }])
                try await api.target(dropped).makeExecutor().execute()
                #expect(server.requests(path: dropped).count == 2)
            }
        }

        /// A success, an interim status or a number that is no status cannot be retried: the call
        /// fails with `invalidValue` naming the codes, and nothing is sent.
        @Test(.tags(.hardening), arguments: [[200], [204, 503], [101], [600], [0], [-1, 503], [Int.max]])
        func statusCodesOutside300To599FailTheCallBeforeAnythingIsSent(_ codes: [Int]) async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let api = ResilientAPI(server: server)
                for policy in [
                    RetryPolicy.fixed(statusCodes: Set(codes)), .exponential(statusCodes: Set(codes)),
                    .predicate(backoff: .fixed(statusCodes: Set(codes))) { _ in true },
                ] {
                    let error = await failure {
                        try await api.target(path).makeExecutor().retry(policy).execute()
                    }
                    #expect(error?.code == .invalidValue && error?.part == "retryPolicy.statusCodes")
                    let refused = codes.filter { !(300...599).contains($0) }.map(String.init)
                    #expect(
                        refused.allSatisfy { error?.message.contains($0) == true },
                        "\(String(describing: error))")
                }
                // Set directly on the property, the same.
                var policy = RetryPolicy.exponential()
                policy.statusCodes = Set(codes)
                let error = await failure {
                    try await api.target(path).makeExecutor().retry(policy).execute()
                }
                #expect(error?.code == .invalidValue)
                #expect(server.requests(path: path).isEmpty)
            }
        }

        @Test func aConnectionClosedBeforeTheHeadIsRetriedLikeAnyTransientFailure() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path, responders: [{ _ in .drop() }, { .echo($0) }])
                let api = ResilientAPI(server: server, options: ResourceOptions(retryPolicy: Self.quick()))
                try await api.target(path).makeExecutor().execute()
                #expect(server.requests(path: path).count >= 2)
            }
        }

        @Test func aRedirectIsFollowedAgainOnEveryAttempt() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.script(path + "/to", [Self.status500, .text("there")])
                server.route(path) { _ in
                    var response = TestResponse.text("moved", status: 307)
                    response.addHeader("Location", path + "/to")
                    return response
                }
                let api = ResilientAPI(server: server, options: ResourceOptions(retryPolicy: Self.quick()))
                let response = try await api.target(path).makeExecutor().response(model: String.self)
                #expect(response.value == "there")
                #expect(response.redirects.count == 1)
                #expect(server.requests(path: path).count == 2)
                #expect(server.requests(path: path + "/to").count == 2)
            }
        }
    }
}

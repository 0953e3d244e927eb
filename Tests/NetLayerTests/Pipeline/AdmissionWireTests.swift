import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

extension WireTests.Resilience {
    /// Issue 7: the concurrency limit, shared limiters, pauses and pacing, measured at the server.
    @Suite("Resilience: admission on the wire", .timeLimit(.minutes(1)))
    struct AdmissionWireTests {
        static let server = TestServerPool.make()

        @Test func maxConcurrentRequestsIsReachedAndNeverExceeded() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let gauge = TestGauge()
                server.gauged(path, gauge: gauge, hold: .milliseconds(100))
                let api = ResilientAPI(server: server, maxConcurrentRequests: 4, connections: 32)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for n in 0..<20 {
                        group.addTask { try await api.target(path).makeExecutor(params: ["n": n]).execute() }
                    }
                    try await group.waitForAll()
                }
                #expect(gauge.total == 20)
                #expect(gauge.maximum == 4, "the server saw \(gauge.maximum) at once")
                #expect(api.limiter.inFlight == 0)
            }
        }

        @Test func waitingCallsAreAdmittedFirstComeFirstServed() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let gate = TestGate()
                defer { gate.open() }
                let api = ResilientAPI(server: server, maxConcurrentRequests: 1)
                let held = await HeldSlot.hold(api, on: server, path: path, until: gate)
                var calls: [Task<Data, any Error>] = []
                for n in 0..<6 {
                    calls.append(
                        Task { try await api.target(path).makeExecutor(headers: ["X-N": "\(n)"]).execute() })
                    // Queued one after another, so the order of the queue is known.
                    #expect(await eventually { api.slotWaiters == n + 1 })
                }
                gate.open()
                _ = try await held.value
                for call in calls { _ = try await call.value }
                #expect(
                    server.requests(path: path).map { $0.header("X-N") ?? "-" } == [
                        "0", "1", "2", "3", "4", "5",
                    ])
            }
        }

        @Test func everyAttemptWaitsForAdmissionAgain() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let gate = TestGate()
                defer { gate.open() }
                server.script(
                    path + "/a",
                    responders: [
                        { _ in
                            gate.wait()
                            return .text("busy", status: 503)
                        },
                        { .echo($0) },
                    ])
                let api = ResilientAPI(
                    server: server, maxConcurrentRequests: 1,
                    options: ResourceOptions(retryPolicy: .fixed(delay: .milliseconds(10))))
                let first = Task { try await api.target(path + "/a").makeExecutor().execute() }
                #expect(await server.waitForRequests(count: 1, path: path + "/a").count == 1)
                let second = Task { try await api.target(path + "/b").makeExecutor().execute() }
                #expect(await eventually { api.slotWaiters == 1 })
                gate.open()
                _ = try await first.value
                _ = try await second.value
                // The retry queued behind the call that was waiting when the first attempt failed.
                let order = server.requests.filter { $0.path.hasPrefix(path) }.map(\.path)
                #expect(order == [path + "/a", path + "/b", path + "/a"])
            }
        }

        @Test func aLimiterSharedByTwoResourcesEnforcesOneLimitAcrossBoth() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let gauge = TestGauge()
                server.gauged(path, gauge: gauge, hold: .milliseconds(60))
                let quota = RequestLimiter(maxConcurrentRequests: 2)
                let search = ResilientAPI(server: server, limiter: quota, connections: 16)
                let catalog = ResilientAPI(server: server, limiter: quota, connections: 16)
                #expect(search.limiter === catalog.limiter)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for n in 0..<10 {
                        for api in [search, catalog] {
                            group.addTask {
                                try await api.target(path).makeExecutor(params: ["n": n]).execute()
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(gauge.total == 20)
                #expect(gauge.maximum == 2, "the server saw \(gauge.maximum) at once")
                #expect(quota.inFlight == 0)
            }
        }

        @Test func aSharedRateLimitCountsTheRequestsOfBothResources() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let quota = RequestLimiter(rateLimits: [RateLimit(requests: 2, per: .milliseconds(800))])
                let first = ResilientAPI(server: server, limiter: quota)
                let second = ResilientAPI(server: server, limiter: quota)
                try await first.target(path).makeExecutor(params: ["n": 1]).execute()
                try await second.target(path).makeExecutor(params: ["n": 2]).execute()
                try await first.target(path).makeExecutor(params: ["n": 3]).execute()
                let received = server.requests(path: path)
                try #require(received.count == 3)
                let gap = received[2].receivedAt - received[0].receivedAt
                #expect(gap >= .milliseconds(750), "\(gap)")
            }
        }

        @Test func aPauseAskedOfOneResourceHoldsEveryResourceSharingItsLimiter() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                server.route(path + "/limited") { _ in .retryAfter("1", status: 429) }
                let quota = RequestLimiter()
                let first = ResilientAPI(server: server, limiter: quota)
                let second = ResilientAPI(server: server, limiter: quota)
                let start = ContinuousClock.now
                _ = await failure { try await first.target(path + "/limited").makeExecutor().execute() }
                try await second.target(path).makeExecutor().execute()
                #expect(ContinuousClock.now - start >= .milliseconds(900))
                // A limiter that does not pause lets it through at once.
                let relaxed = RequestLimiter(pausesOnRetryAfter: false)
                let third = ResilientAPI(server: server, limiter: relaxed)
                _ = await failure { try await third.target(path + "/limited").makeExecutor().execute() }
                #expect(relaxed.pausedUntil == nil)
            }
        }

        @Test func aCallerQueuedForASlotWhenA429PausesAdmissionWaitsOutThePause() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let gate = TestGate()
                defer { gate.open() }
                server.routeHeld(path + "/limited", by: gate) { _ in .retryAfter("1", status: 429) }
                let api = ResilientAPI(server: server, maxConcurrentRequests: 1)
                let limited = Task { try await api.target(path + "/limited").makeExecutor().execute() }
                #expect(await server.waitForRequests(count: 1, path: path + "/limited").count == 1)
                // Queued for the slot before the 429 exists: the pause must still hold it.
                let queued = Task { try await api.target(path + "/next").makeExecutor().execute() }
                #expect(await eventually { api.slotWaiters == 1 })
                let answered = ContinuousClock.now
                gate.open()
                _ = await failure { try await limited.value }
                _ = try await queued.value
                let received = try #require(server.requests(path: path + "/next").first)
                let gap = received.receivedAt - answered
                #expect(gap >= .milliseconds(900), "the queued call reached the server \(gap) after the 429")
                #expect(api.limiter.inFlight == 0)
            }
        }

        @Test func aSafetyMarginWidensTheWindowAndPacingSpreadsTheGrants() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let margin = uniquePath()
                let widened = RequestLimiter(
                    rateLimits: [RateLimit(requests: 2, per: .milliseconds(300))],
                    safetyMargin: .milliseconds(300))
                let api = ResilientAPI(server: server, limiter: widened)
                for n in 0..<3 { try await api.target(margin).makeExecutor(params: ["n": n]).execute() }
                let marginRequests = server.requests(path: margin)
                #expect(marginRequests[2].receivedAt - marginRequests[0].receivedAt >= .milliseconds(550))

                let paced = uniquePath()
                let spread = ResilientAPI(
                    server: server, rateLimits: [RateLimit(requests: 4, per: .milliseconds(800)).paced()])
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for n in 0..<4 {
                        group.addTask {
                            try await spread.target(paced).makeExecutor(params: ["n": n]).execute()
                        }
                    }
                    try await group.waitForAll()
                }
                let times = server.requests(path: paced).map(\.receivedAt).sorted()
                try #require(times.count == 4)
                // One every 200 ms, not a burst of four (a little slack for the loopback hop).
                #expect(times[3] - times[0] >= .milliseconds(500), "\(times[3] - times[0])")
            }
        }

        @Test func invalidLimitsFailEveryCallBeforeAnythingIsSent() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let zero = await failure {
                    try await ResilientAPI(server: server, maxConcurrentRequests: 0).target(path)
                        .makeExecutor().execute()
                }
                #expect(zero?.code == .invalidValue && zero?.part == "maxConcurrentRequests")
                let both = await failure {
                    try await ResilientAPI(
                        server: server, maxConcurrentRequests: 2, limiter: RequestLimiter()
                    )
                    .target(path).makeExecutor().execute()
                }
                #expect(both?.code == .invalidValue && both?.part == "limiter")
                let sharedBad = RequestLimiter(maxConcurrentRequests: -1)
                let viaShared = await failure {
                    try await ResilientAPI(server: server, limiter: sharedBad).target(path).makeExecutor()
                        .execute()
                }
                #expect(viaShared?.code == .invalidValue)
                #expect(server.requests(path: path).isEmpty)
            }
        }
    }
}

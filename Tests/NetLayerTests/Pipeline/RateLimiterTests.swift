import NetLayer
import Testing

// Timing-based: run one at a time so tests do not steal each other's cores.
extension WireTests {
    @Suite(.serialized)
    struct RateLimiterTests {
        typealias Instant = ContinuousClock.Instant

        // MARK: - RateLimit values

        @Test func valuesAreKeptAsGiven() {
            // Invalid values are no longer clamped or ignored: every call of the resource throws
            // (see RateLimitValueWireTests.invalidRateLimitsFailEveryCallAndSendNothing).
            #expect(RateLimit(requests: 0, per: .seconds(1)).requests == 0)
            #expect(RateLimit(requests: 3, per: .zero).window == .zero)
            #expect(RateLimit.perSecond(5) == RateLimit(requests: 5, per: .seconds(1)))
            #expect(RateLimit.perMinute(5).window == .seconds(60))
            #expect(RateLimit.perHour(1000) == RateLimit(requests: 1000, per: .seconds(3600)))
            #expect(Set([RateLimit.perSecond(5), .perSecond(5), .perSecond(6)]).count == 2)
        }

        // MARK: - Schedule (no clock, exact)

        @Test func scheduleWindowIsHalfOpenAndSlides() {
            let t = Duration.milliseconds(100)
            let base = ContinuousClock.now
            var schedule = RateLimitSchedule(limits: [RateLimit(requests: 2, per: t)])
            #expect(schedule.nextAllowed == nil)
            schedule.record(base)
            #expect(schedule.allows(at: base))
            schedule.record(base + .milliseconds(40))
            #expect(schedule.nextAllowed == base + t)
            #expect(!schedule.allows(at: base + t - .nanoseconds(1)))
            #expect(schedule.allows(at: base + t))  // exactly oldest + T is allowed
            schedule.record(base + t)
            // The ring wrapped: now the 2nd most recent grant is the one at 40 ms.
            #expect(schedule.nextAllowed == base + .milliseconds(40) + t)
            schedule.record(base + .milliseconds(140))
            #expect(schedule.nextAllowed == base + t + t)
        }

        @Test func scheduleTakesTheLatestOfAllLimits() {
            let base = ContinuousClock.now
            var schedule = RateLimitSchedule(limits: [
                RateLimit(requests: 2, per: .milliseconds(100)),
                RateLimit(requests: 3, per: .seconds(1)),
                RateLimit(requests: 1, per: .zero),  // no limit: ignored
            ])
            schedule.record(base)
            schedule.record(base)
            #expect(schedule.nextAllowed == base + .milliseconds(100))
            schedule.record(base + .milliseconds(100))
            #expect(schedule.nextAllowed == base + .seconds(1))
        }

        // MARK: - Limiter

        @Test func unlimitedLimiterReturnsImmediately() async throws {
            let empty = RateLimiter(limits: [])
            // An invalid limit is reported by the resource; the limiter itself just drops it.
            let degenerate = RateLimiter(limits: [RateLimit(requests: 5, per: .zero)])
            #expect(empty.isUnlimited)
            #expect(degenerate.isUnlimited)
            #expect(!RateLimiter(limits: [.perSecond(1)]).isUnlimited)

            let clock = ContinuousClock()
            let start = clock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        try await empty.acquire()
                        try await degenerate.acquire()
                    }
                }
                try await group.waitForAll()
            }
            let elapsed = start.duration(to: clock.now)
            #expect(elapsed < .milliseconds(500), "200 unlimited acquires took \(elapsed)")
            #expect(await empty.waitingCount == 0)
        }

        @Test func burstOfNPassesImmediatelyThenTheNextWaits() async throws {
            let limit = RateLimit(requests: 10, per: .milliseconds(300))
            let limiter = RateLimiter(limits: [limit])
            let clock = ContinuousClock()
            let start = clock.now
            var grants: [Instant] = []
            for _ in 0..<10 {
                grants.append(try await limiter.acquire())
            }
            let burst = start.duration(to: clock.now)
            #expect(burst < .milliseconds(20), "a burst of 10 took \(burst)")

            let eleventh = try await limiter.acquire()
            #expect(eleventh - grants[0] >= limit.window)
            #expect(start.duration(to: clock.now) >= limit.window)
        }

        @Test func oneRequestPerWindowLetsLaterRequestsThrough() async throws {
            let limit = RateLimit(requests: 1, per: .milliseconds(150))
            let limiter = RateLimiter(limits: [limit])
            let clock = ContinuousClock()
            let start = clock.now
            let first = try await limiter.acquire()
            let second = try await limiter.acquire()
            let third = try await limiter.acquire()
            let elapsed = start.duration(to: clock.now)
            #expect(second - first >= limit.window)
            #expect(third - second >= limit.window)
            #expect(elapsed >= limit.window * 2)
            #expect(elapsed < limit.window * 4, "3 requests at 1 per 150 ms took \(elapsed)")
        }

        @Test func slidingWindowHoldsFor200ConcurrentCallers() async throws {
            let limit = RateLimit(requests: 10, per: .milliseconds(200))
            let limiter = RateLimiter(limits: [limit])
            let clock = ContinuousClock()
            let start = clock.now
            let results = try await withThrowingTaskGroup(of: (granted: Instant, observed: Instant).self) {
                group in
                for _ in 0..<200 {
                    group.addTask {
                        let granted = try await limiter.acquire()
                        return (granted, ContinuousClock.now)
                    }
                }
                var results: [(granted: Instant, observed: Instant)] = []
                for try await result in group { results.append(result) }
                return results
            }
            let elapsed = start.duration(to: clock.now)

            #expect(results.count == 200)
            #expect(results.allSatisfy { $0.observed >= $0.granted && $0.granted >= start })
            expectSlidingWindow(results.map(\.granted), limit)

            let ideal = limit.window * (200 / 10 - 1)
            #expect(elapsed >= ideal)
            #expect(elapsed < ideal * 2, "200 requests took \(elapsed), ideal \(ideal)")
            #expect(await limiter.waitingCount == 0)
            print("RateLimiterTests: 200 callers at 10 per 200 ms took \(elapsed) (ideal \(ideal))")
        }

        @Test func twoLimitsBothHold() async throws {
            let fast = RateLimit(requests: 3, per: .milliseconds(100))
            let slow = RateLimit(requests: 5, per: .seconds(1))
            let limiter = RateLimiter(limits: [fast, slow])
            let clock = ContinuousClock()
            let start = clock.now
            let grants = try await withThrowingTaskGroup(of: Instant.self) { group in
                for _ in 0..<12 {
                    group.addTask { try await limiter.acquire() }
                }
                var grants: [Instant] = []
                for try await grant in group { grants.append(grant) }
                return grants
            }
            let elapsed = start.duration(to: clock.now)

            #expect(grants.count == 12)
            expectSlidingWindow(grants, fast)
            expectSlidingWindow(grants, slow)
            // Exact schedule: 3 at 0, 2 at 0.1 s, 3 at 1.0 s, 2 at 1.1 s, 2 at 2.0 s.
            let ideal = Duration.seconds(2)
            #expect(elapsed >= ideal)
            #expect(elapsed < ideal * 2, "12 requests took \(elapsed), ideal \(ideal)")
            print("RateLimiterTests: 12 requests under 3/100 ms + 5/1 s took \(elapsed) (ideal \(ideal))")
        }

        @Test func waitersAreServedInArrivalOrder() async throws {
            let limiter = RateLimiter(limits: [RateLimit(requests: 1, per: .milliseconds(40))])
            try await limiter.acquire()  // use the only slot so everyone below must queue
            let count = 8
            var peakQueue = 0
            let grants = try await withThrowingTaskGroup(of: (index: Int, granted: Instant).self) { group in
                for index in 0..<count {
                    group.addTask { (index, try await limiter.acquire()) }
                    // Start the next caller only once this one has reached the actor.
                    let arrived = await waitUntil { await limiter.arrivalCount == index + 2 }
                    #expect(arrived, "caller \(index) never reached the limiter")
                    peakQueue = max(peakQueue, await limiter.waitingCount)
                }
                var grants: [(index: Int, granted: Instant)] = []
                for try await grant in group { grants.append(grant) }
                return grants
            }
            // Grants are >= 40 ms apart, so ordering by grant instant is unambiguous.
            let order = grants.sorted { $0.granted < $1.granted }.map(\.index)
            #expect(order == Array(0..<count))
            #expect(
                peakQueue >= count / 2, "the queue never built up (peak \(peakQueue)); FIFO was not exercised"
            )
        }

        @Test func cancelledWaiterLeavesPromptlyAndGivesItsSlotToTheNext() async throws {
            let limit = RateLimit(requests: 1, per: .milliseconds(300))
            let limiter = RateLimiter(limits: [limit])
            let clock = ContinuousClock()
            let first = try await limiter.acquire()

            let cancelled = Task { try await limiter.acquire() }
            #expect(await waitUntil { await limiter.waitingCount == 1 })
            let next = Task { try await limiter.acquire() }
            #expect(await waitUntil { await limiter.waitingCount == 2 })
            try await Task.sleep(for: .milliseconds(50))

            let cancelledAt = clock.now
            cancelled.cancel()
            let outcome = await cancelled.result
            let latency = cancelledAt.duration(to: clock.now)
            #expect(throws: CancellationError.self) { try outcome.get() }
            #expect(latency < .milliseconds(50), "cancellation took \(latency)")
            #expect(await limiter.waitingCount == 1)

            let nextGrant = try await next.value
            #expect(nextGrant - first >= limit.window)
            // Had the cancelled waiter kept its slot, this would be 2 windows (600 ms).
            #expect(
                nextGrant - first < limit.window + .milliseconds(150),
                "next waiter granted after \(nextGrant - first)")
            print("RateLimiterTests: cancellation latency \(latency); next grant after \(nextGrant - first)")
        }

        @Test func alreadyCancelledCallerThrowsAtOnceAndTakesNoSlot() async throws {
            let limiter = RateLimiter(limits: [RateLimit(requests: 1, per: .seconds(30))])
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await limiter.acquire()
            }
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(await limiter.arrivalCount == 0)

            // The only slot is still free: this returns at once instead of after 30 s.
            let clock = ContinuousClock()
            let start = clock.now
            try await limiter.acquire()
            #expect(start.duration(to: clock.now) < .milliseconds(100))
        }

        @Test func cancellationRacingGrantsNeverLosesOrDoublesAWaiter() async throws {
            let limit = RateLimit(requests: 4, per: .milliseconds(20))
            let limiter = RateLimiter(limits: [limit])
            let total = 120
            let outcomes = await withTaskGroup(of: (cancelled: Bool, granted: Instant?).self) { group in
                var tasks: [Task<Instant, any Error>] = []
                for _ in 0..<total {
                    tasks.append(Task { try await limiter.acquire() })
                }
                // Cancel every other waiter at staggered moments while grants keep happening.
                for (index, task) in tasks.enumerated() {
                    let cancel = index % 2 == 1
                    group.addTask {
                        if cancel {
                            try? await Task.sleep(for: .milliseconds(index % 7 * 15))
                            task.cancel()
                        }
                        return (cancel, try? await task.value)
                    }
                }
                var outcomes: [(cancelled: Bool, granted: Instant?)] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.count == total)
            // Never-cancelled waiters all get a slot; cancelled ones either got one first or threw.
            #expect(outcomes.filter { !$0.cancelled }.allSatisfy { $0.granted != nil })
            #expect(
                outcomes.contains { $0.cancelled && $0.granted == nil },
                "no waiter was cancelled while queued")
            expectSlidingWindow(outcomes.compactMap(\.granted), limit)
            #expect(await limiter.waitingCount == 0)
        }
    }
}

// MARK: - Helpers

/// Checks that no half-open window of length `limit.window` contains more than `limit.requests` of
/// `grants`: after sorting, grant i and grant i + N must be at least one window apart.
private func expectSlidingWindow(
    _ grants: [ContinuousClock.Instant],
    _ limit: RateLimit,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let sorted = grants.sorted()
    let n = limit.requests
    guard sorted.count > n else { return }
    var tightest = sorted[n] - sorted[0]
    for index in 0..<(sorted.count - n) {
        tightest = min(tightest, sorted[index + n] - sorted[index])
    }
    #expect(
        tightest >= limit.window,
        "\(n + 1) grants fell within \(tightest), inside one window of \(limit.window)",
        sourceLocation: sourceLocation
    )
}

/// Polls `condition` every millisecond for up to `timeout`; returns whether it became true.
private func waitUntil(
    timeout: Duration = .seconds(5),
    _ condition: @Sendable () async -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return await condition()
}

import Foundation
import Testing

@testable import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 7: the retry policies, the retry budget and the concurrency slots on their own, without a
/// server.
@Suite("Resilience: policies, budget and slots")
struct ResiliencePolicyTests {
    private static func head(_ status: Int) -> ResponseHead {
        ResponseHead(statusCode: status, url: URL(string: "http://127.0.0.1/x"))
    }

    private static func attempt(status: Int? = nil, error: NetLayerError? = nil) -> RetryAttempt {
        RetryAttempt(
            attempt: 1, request: TransportRequest(method: .get, url: URL(string: "http://127.0.0.1/x")!),
            response: status.map(head), error: error)
    }

    @Test func exponentialDelaysGrowByTheMultiplierUpToTheCap() {
        let policy = RetryPolicy.exponential(
            base: .milliseconds(100), multiplier: 2, maximumDelay: .seconds(1))
        // random 1 is the top of the jitter range: the ceiling itself.
        #expect(policy.delay(after: 1, random: 1) == .milliseconds(100))
        #expect(policy.delay(after: 2, random: 1) == .milliseconds(200))
        #expect(policy.delay(after: 3, random: 1) == .milliseconds(400))
        #expect(policy.delay(after: 4, random: 1) == .milliseconds(800))
        #expect(policy.delay(after: 5, random: 1) == .seconds(1))
        #expect(policy.delay(after: 60, random: 1) == .seconds(1))
        #expect(policy.delay(after: Int.max, random: 1) == .seconds(1))
    }

    @Test func fullJitterSpreadsEachDelayFromZeroToTheCeiling() {
        let policy = RetryPolicy.exponential(
            base: .milliseconds(100), multiplier: 2, maximumDelay: .seconds(1))
        #expect(policy.delay(after: 3, random: 0) == .zero)
        #expect(policy.delay(after: 3, random: 0.5) == .milliseconds(200))
        // Out-of-range randomness is clamped, never beyond the ceiling or below zero.
        #expect(policy.delay(after: 3, random: 7) == .milliseconds(400))
        #expect(policy.delay(after: 3, random: -1) == .zero)
        #expect(policy.delay(after: 3, random: .nan) <= .milliseconds(400))
        for attempt in 1...40 {
            for _ in 0..<50 {
                let delay = policy.delay(after: attempt, random: Double.random(in: 0...1))
                #expect(delay >= .zero && delay <= .seconds(1), "attempt \(attempt): \(delay)")
            }
        }
    }

    @Test func extremeExponentialSettingsStayBoundedAndNeverCrash() {
        let huge = RetryPolicy.exponential(base: .seconds(1), multiplier: 1e300, maximumDelay: .seconds(5))
        #expect(huge.delay(after: 50, random: 1) == .seconds(5))
        let zeroBase = RetryPolicy.exponential(base: .zero, multiplier: 1e300, maximumDelay: .seconds(5))
        #expect(zeroBase.delay(after: 1000, random: 1) == .zero)
        // A cap above the longest timeout is clamped to it.
        let longCap = RetryPolicy.exponential(base: .seconds(1), maximumDelay: .seconds(Int64.max / 4))
        #expect(longCap.delay(after: 200, random: 1) == Timeouts.maximum)
        let fixed = RetryPolicy.fixed(delay: .seconds(90), maximumDelay: .seconds(30))
        #expect(fixed.delay(after: 1, random: 0) == .seconds(30))
        #expect(RetryPolicy.fixed(delay: .milliseconds(250)).delay(after: 9, random: 0) == .milliseconds(250))
        #expect(RetryPolicy.none.delay(after: 1, random: 1) == .zero)
    }

    @Test func documentedDefaults() {
        #expect(RetryPolicy.none.maximumAttempts == 1)
        let fixed = RetryPolicy.fixed()
        #expect(fixed.maximumAttempts == 3 && fixed.maximumDelay == .seconds(60))
        #expect(fixed.delay(after: 1, random: 0.3) == .seconds(1))
        let exponential = RetryPolicy.exponential()
        #expect(exponential.maximumAttempts == 4 && exponential.maximumDelay == .seconds(30))
        #expect(exponential.delay(after: 1, random: 1) == .milliseconds(200))
        #expect(exponential.delay(after: 2, random: 1) == .milliseconds(400))
        #expect(RetryPolicy.retryableStatusCodes == [408, 429, 500, 502, 503, 504])
        #expect(ResourceOptions().retryPolicy.maximumAttempts == 1)
        #expect(ResourceOptions().retryBudget == .default)
    }

    @Test func invalidPoliciesAreReportedNotCrashed() {
        #expect(RetryPolicy.fixed(maximumAttempts: 0).problem?.part == "retryPolicy.maximumAttempts")
        #expect(RetryPolicy.fixed(delay: .seconds(-1)).problem?.part == "retryPolicy.delay")
        #expect(RetryPolicy.fixed(maximumDelay: .seconds(-1)).problem?.part == "retryPolicy.maximumDelay")
        // Durations in these messages are rounded as debug output prints them.
        let negative = RetryPolicy.fixed(delay: .milliseconds(-500)).problem?.message ?? ""
        #expect(negative.contains("-500 ms is negative"), "\(negative)")
        #expect(RetryPolicy.exponential(multiplier: 0.5).problem?.code == .invalidValue)
        #expect(RetryPolicy.exponential(multiplier: .infinity).problem?.code == .invalidValue)
        #expect(RetryPolicy.exponential(multiplier: .nan).problem?.code == .invalidValue)
        #expect(RetryPolicy.exponential(base: .seconds(-1)).problem?.code == .invalidValue)
        #expect(RetryPolicy.exponential().problem == nil)
        #expect(RetryPolicy.none.problem == nil)
    }

    @Test func retryableStatusesAndTransientErrorsQualify() {
        let policy = RetryPolicy.fixed()
        for status in [408, 429, 500, 502, 503, 504] {
            #expect(policy.qualifies(Self.attempt(status: status)), "\(status)")
        }
        for status in [200, 204, 301, 400, 401, 403, 404, 409, 422, 501, 505] {
            #expect(!policy.qualifies(Self.attempt(status: status)), "\(status)")
        }
        #expect(policy.qualifies(Self.attempt(error: .timedOut("idle"))))
        for code in [URLError.Code.networkConnectionLost, .cannotConnectToHost, .timedOut, .dnsLookupFailed] {
            let error = NetLayerError.transport(
                URLError(code), method: .get, url: nil, redactor: Redactor(redaction: .default))
            #expect(policy.qualifies(Self.attempt(error: error)), "\(code)")
        }
        for code in [URLError.Code.cancelled, .serverCertificateUntrusted, .badURL, .unsupportedURL] {
            let error = NetLayerError.transport(
                URLError(code), method: .get, url: nil, redactor: Redactor(redaction: .default))
            #expect(!policy.qualifies(Self.attempt(error: error)), "\(code)")
        }
        #expect(!policy.qualifies(Self.attempt(error: .cancelled)))
        #expect(!policy.qualifies(Self.attempt(error: .invalidValue(part: "x", reason: "y"))))
    }

    @Test func aPredicateDecidesInsteadOfTheStatusList() {
        let policy = RetryPolicy.predicate(backoff: .fixed(delay: .milliseconds(5), maximumAttempts: 7)) {
            $0.response?.statusCode == 409
        }
        #expect(policy.maximumAttempts == 7)
        #expect(policy.delay(after: 3, random: 1) == .milliseconds(5))
        #expect(policy.qualifies(Self.attempt(status: 409)))
        #expect(!policy.qualifies(Self.attempt(status: 503)))
        #expect(!policy.qualifies(Self.attempt(error: .timedOut("x"))))
    }

    @Test func theBudgetSpendsOneTokenPerRetryAndRefillsPerSuccess() {
        let tokens = RetryTokens(RetryBudget(capacity: 2, refillPerSuccess: 0.5))
        #expect(tokens.spend() && tokens.spend())
        #expect(!tokens.spend())
        tokens.refill()
        #expect(!tokens.spend())  // half a token is not a retry
        tokens.refill()
        #expect(tokens.spend())
        for _ in 0..<100 { tokens.refill() }
        #expect(tokens.available == 2)  // never above capacity
    }

    @Test func budgetValuesAreClampedNotTrusted() {
        #expect(RetryBudget(capacity: -5).capacity == 0)
        #expect(RetryBudget(capacity: .nan).capacity == 10)
        #expect(RetryBudget(refillPerSuccess: -1).refillPerSuccess == 0)
        #expect(RetryBudget(refillPerSuccess: .infinity).refillPerSuccess == 0.1)
        let none = RetryTokens(RetryBudget(capacity: 0, refillPerSuccess: 0))
        #expect(!none.spend())
        let unlimited = RetryTokens(.unlimited)
        for _ in 0..<10_000 { #expect(unlimited.spend()) }
    }

    @Test func slotsAreHandedOutFirstComeFirstServedAndNeverExceeded() async throws {
        try await withDeadline {
            let slots = ConcurrencySlots(limit: 2)
            let first = try await slots.acquire()
            let second = try await slots.acquire()
            #expect(slots.inFlight == 2)
            let order = LockedValue<[Int]>([])
            var waiters: [Task<ConcurrencySlots.Slot, any Error>] = []
            for n in 0..<5 {
                waiters.append(
                    Task {
                        let slot = try await slots.acquire()
                        order.withLock { $0.append(n) }
                        return slot
                    })
                // Queued one after another, so the queue order is known.
                #expect(await eventually { slots.waitingCount == n + 1 })
            }
            first.release()
            first.release()  // a second release is ignored
            let granted0 = try await waiters[0].value
            #expect(slots.inFlight == 2)
            second.release()
            let granted1 = try await waiters[1].value
            granted0.release()
            granted1.release()
            for waiter in waiters[2...] { try await waiter.value.release() }
            #expect(order.withLock { $0 } == [0, 1, 2, 3, 4])
            #expect(slots.inFlight == 0 && slots.waitingCount == 0)
        }
    }

    @Test func aCancelledSlotWaiterLeavesTheQueueAndTakesNothing() async throws {
        try await withDeadline {
            let slots = ConcurrencySlots(limit: 1)
            let held = try await slots.acquire()
            let waiter = Task { try await slots.acquire() }
            #expect(await eventually { slots.waitingCount == 1 })
            waiter.cancel()
            await #expect(throws: CancellationError.self) { _ = try await waiter.value }
            #expect(slots.waitingCount == 0)
            held.release()
            #expect(slots.inFlight == 0)
            // Already cancelled before asking: refused at once.
            let early = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await slots.acquire()
            }
            await #expect(throws: CancellationError.self) { _ = try await early.value }
            let next = try await slots.acquire()
            #expect(slots.inFlight == 1)
            next.release()
        }
    }

    @Test func aSlotDroppedWithoutReleaseIsReleased() async throws {
        let slots = ConcurrencySlots(limit: 1)
        do { _ = try await slots.acquire() }
        #expect(slots.inFlight == 0)
    }

    @Test func manyCancelledWaitersNeverLeakSlots() async throws {
        try await withDeadline {
            let slots = ConcurrencySlots(limit: 3)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<400 {
                    group.addTask {
                        let waiter = Task {
                            let slot = try await slots.acquire()
                            try? await Task.sleep(for: .microseconds(50))
                            slot.release()
                        }
                        if n % 3 == 0 { waiter.cancel() }
                        _ = await waiter.result
                    }
                }
                try await group.waitForAll()
            }
            #expect(slots.inFlight == 0)
            #expect(slots.waitingCount == 0)
        }
    }
}

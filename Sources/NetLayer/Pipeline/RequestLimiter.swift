/// Admission for one or more resources: how many of their requests may be in flight at once,
/// how many may start per window, and pauses the server asked for.
///
/// Every ``Resource`` has one; pass the same limiter to several resources (two services behind
/// one API key) and they share every limit:
/// ```swift
/// let quota = RequestLimiter(maxConcurrentRequests: 8, rateLimits: [.perSecond(50)])
/// let search = SearchAPI(limiter: quota)
/// let catalog = CatalogAPI(limiter: quota)
/// ```
///
/// A request is admitted in this order, and again for every attempt and every redirect hop:
/// 1. wait out a pause: a 429 or 503 with `Retry-After` pauses admission for that long (capped by
///    ``maximumPause``), so callers of the same service wait instead of adding load;
/// 2. a concurrency slot, first come first served, held until the response body is read, released
///    or cancelled;
/// 3. every rate limit (see ``RateLimit``), optionally widened by ``safetyMargin``.
///
/// A caller cancelled while waiting leaves the queue at once and takes nothing.
public final class RequestLimiter: Sendable {
    /// The most requests in flight at once; `nil` for no limit.
    public let maxConcurrentRequests: Int?
    /// The rate limits every request waits for.
    public let rateLimits: [RateLimit]
    /// Added to every rate limit's window, because requests granted at the window's edge can reach
    /// the server closer together than they left (the core measured up to ~100 ms under load).
    public let safetyMargin: Duration
    /// Whether a 429 or 503 with `Retry-After` pauses admission.
    public let pausesOnRetryAfter: Bool
    /// The longest pause a `Retry-After` can cause.
    public let maximumPause: Duration

    let rateLimiter: RateLimiter
    let slots: ConcurrencySlots?
    private let pause = LockedValue<ContinuousClock.Instant?>(nil)
    /// Why this limiter cannot be used; every call through it throws it.
    let problem: NetLayerError?

    /// A pause longer than this is not honoured in full: 60 s. A server that asks for an hour
    /// should not freeze every caller of the resource for an hour; each call's retry policy still
    /// decides whether to wait that long itself.
    public static let defaultMaximumPause: Duration = .seconds(60)

    /// Creates a limiter.
    /// - Parameters:
    ///   - maxConcurrentRequests: Default `nil` (no limit). Less than 1 makes every call throw
    ///     ``NetLayerError/Code/invalidValue``.
    ///   - rateLimits: Default none. An invalid limit makes every call throw
    ///     ``NetLayerError/Code/invalidValue``.
    ///   - safetyMargin: Default zero. Negative is treated as zero; more than a day is clamped.
    ///   - pausesOnRetryAfter: Default `true`.
    ///   - maximumPause: Default ``defaultMaximumPause``.
    public init(
        maxConcurrentRequests: Int? = nil, rateLimits: [RateLimit] = [], safetyMargin: Duration = .zero,
        pausesOnRetryAfter: Bool = true, maximumPause: Duration = RequestLimiter.defaultMaximumPause
    ) {
        self.maxConcurrentRequests = maxConcurrentRequests
        self.rateLimits = rateLimits
        let margin = min(max(.zero, safetyMargin), .seconds(86_400))
        self.safetyMargin = margin
        self.pausesOnRetryAfter = pausesOnRetryAfter
        self.maximumPause = min(max(.zero, maximumPause), Timeouts.maximum)
        rateLimiter = RateLimiter(limits: rateLimits, safetyMargin: margin)
        if let maxConcurrentRequests, maxConcurrentRequests >= 1 {
            slots = ConcurrencySlots(limit: maxConcurrentRequests)
        } else {
            slots = nil
        }
        if let maxConcurrentRequests, maxConcurrentRequests < 1 {
            problem = .invalidValue(
                part: "maxConcurrentRequests",
                reason: "\(maxConcurrentRequests) is less than 1; leave it nil for no limit")
        } else {
            problem =
                rateLimits.enumerated().lazy.compactMap { index, limit in
                    limit.problem.map { NetLayerError.invalidValue(part: "rateLimits[\(index)]", reason: $0) }
                }.first
        }
    }

    /// Pauses admission for `duration` (capped by ``maximumPause``) from now; a longer pause
    /// already in place stays.
    public func pause(for duration: Duration) {
        let until = ContinuousClock.now.advanced(by: min(max(.zero, duration), maximumPause))
        pause.withLock { current in
            if current.map({ $0 < until }) ?? true { current = until }
        }
    }

    /// When the current pause ends; `nil` when admission is not paused.
    public var pausedUntil: ContinuousClock.Instant? {
        pause.withLock { current in
            guard let until = current else { return nil }
            if until <= .now {
                current = nil
                return nil
            }
            return until
        }
    }

    /// How many requests hold a concurrency slot now (`0` without a concurrency limit).
    public var inFlight: Int { slots?.inFlight ?? 0 }

    /// Whether a request would be admitted now without waiting or taking a slot: no concurrency
    /// limit, no rate limit, no pause. Lets a caller skip the async ``admit(deadline:)``.
    var admitsAtOnce: Bool { slots == nil && rateLimiter.isUnlimited && pausedUntil == nil }

    /// What one admission took and held: the concurrency slot, and how long the request waited
    /// for each limit that made it wait (printed by debug output apart from the exchange).
    struct Admission: Sendable {
        /// The slot to release when the response is done; `nil` without a concurrency limit.
        var slot: ConcurrencySlots.Slot?
        /// The waits, in the order they happened; empty when the request was admitted at once.
        var waits: [Wait] = []
    }

    /// One wait of an admission.
    struct Wait: Sendable, Equatable {
        /// What the request waited for.
        enum Reason: Sendable, Equatable {
            /// A pause a server asked for (`Retry-After` on a 429 or 503).
            case pause
            /// A free concurrency slot.
            case slot
            /// The rate limits.
            case rateLimit
        }
        var reason: Reason
        var duration: Duration
    }

    /// Waits for admission: pause, then a slot, then every rate limit.
    /// - Parameter deadline: The call's total deadline; waiting past it throws
    ///   ``NetLayerError/Code/timedOut``. `nil`: wait as long as it takes.
    /// - Returns: The slot to release when the response is done (`nil` without a concurrency
    ///   limit), and the waits.
    /// - Throws: ``NetLayerError/Code/cancelled`` when the task is cancelled while waiting, or
    ///   ``NetLayerError/Code/timedOut``; nothing is held then.
    /// - Parameter record: The call's record, told every wait (its kind, when it began and how long
    ///   it lasted), for the call's metrics and observer.
    func admit(deadline: ContinuousClock.Instant?, record: AttemptRecord? = nil) async throws(NetLayerError)
        -> Admission
    {
        if admitsAtOnce { return Admission() }
        guard let deadline else { return try await admit(record) }
        do {
            return try await withThrowingTaskGroup(of: Admission.self) { group in
                group.addTask { try await self.admit(record) }
                group.addTask {
                    try await Task.sleep(until: deadline, clock: .continuous)
                    throw NetLayerError.timedOut("the total deadline elapsed while waiting for admission")
                }
                defer { group.cancelAll() }
                guard let first = try await group.next() else { return Admission() }
                return first
            }
        } catch let error as NetLayerError {
            throw error
        } catch {
            throw .cancelled
        }
    }

    private func admit(_ record: AttemptRecord?) async throws(NetLayerError) -> Admission {
        var waits: [Wait] = []
        /// Notes a wait from `start` to `end`, added to an earlier one for the same reason, and
        /// tells the record.
        func waited(
            _ reason: Wait.Reason, from start: ContinuousClock.Instant, until end: ContinuousClock.Instant
        ) {
            let duration = end - start
            if let index = waits.firstIndex(where: { $0.reason == reason }) {
                waits[index].duration += duration
            } else {
                waits.append(Wait(reason: reason, duration: duration))
            }
            switch reason {
            case .pause: record?.waited(.serverPause, from: start, until: end)
            case .slot: record?.waited(.concurrencySlot, from: start, until: end)
            case .rateLimit: record?.waited(.rateLimit, from: start, until: end)
            }
        }
        var start = ContinuousClock.now
        if try await waitOutPause(holding: nil) { waited(.pause, from: start, until: .now) }
        let slot: ConcurrencySlots.Slot?
        if let slots {
            start = .now
            let queued: Bool
            do { (slot, queued) = try await slots.acquireQueued() } catch { throw .cancelled }
            if queued { waited(.slot, from: start, until: .now) }
        } else {
            slot = nil
        }
        // A pause may have begun while this caller queued for the slot (the 429 that caused it
        // handed its slot on): wait it out holding the slot, so the queue keeps its order.
        start = .now
        if try await waitOutPause(holding: slot) { waited(.pause, from: start, until: .now) }
        if !rateLimiter.isUnlimited {
            start = .now
            let granted: ContinuousClock.Instant
            let queued: Bool
            do { (granted, queued) = try await rateLimiter.acquireQueued() } catch {
                slot?.release()
                throw .cancelled
            }
            if queued { waited(.rateLimit, from: start, until: granted) }
            start = .now
            if try await waitOutPause(holding: slot) { waited(.pause, from: start, until: .now) }
        }
        if Task.isCancelled {
            slot?.release()
            throw .cancelled
        }
        return Admission(slot: slot, waits: waits)
    }

    /// Sleeps until no pause is in force; on cancellation releases `slot` and throws.
    /// - Returns: Whether there was a pause to wait out.
    private func waitOutPause(holding slot: ConcurrencySlots.Slot?) async throws(NetLayerError) -> Bool {
        var paused = false
        while let until = pausedUntil {
            paused = true
            do { try await Task.sleep(until: until, clock: .continuous) } catch {
                slot?.release()
                throw .cancelled
            }
        }
        return paused
    }

    /// Notes a response: a 429 or 503 with a `Retry-After` pauses admission.
    func observe(_ head: ResponseHead) {
        guard pausesOnRetryAfter, head.statusCode == 429 || head.statusCode == 503,
            let delay = RetryAfter.delay(head.headerFields["Retry-After"]), delay > .zero
        else { return }
        pause(for: delay)
    }
}

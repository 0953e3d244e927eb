/// Serialises request starts through a set of ``RateLimit``s.
///
/// One limiter is shared by everything that must respect the same limits (for example all targets of
/// one resource). Call ``acquire()`` right before starting a request; it returns when the request may
/// start.
///
/// Behaviour:
/// - For every limit, at most `requests` grants happen in **any** window of length `window` (the window
///   slides and is half-open, so a grant exactly `window` after the oldest counted grant is allowed).
///   A request starts only when every limit allows it. Instants come from `ContinuousClock`.
/// - Bursts of up to `requests` pass at once.
/// - Waiters are served first come, first served, in the order they reached the actor.
/// - A waiter whose task is cancelled leaves the queue at once, throws `CancellationError`, and takes no
///   slot: the slot goes to the next waiter.
/// - Nothing polls and nothing blocks a thread: waiters are parked on continuations, and while anyone
///   waits a single task sleeps until the next allowed instant, grants the head of the queue, and ends
///   when the queue is empty.
///
/// When there are no limits (``isUnlimited``), callers may skip the limiter entirely and avoid the
/// actor hop.
package actor RateLimiter {
    /// The limits this limiter enforces: the valid ones given to ``init(limits:)`` (invalid limits are
    /// reported by the resource, which never sends then).
    package nonisolated let limits: [RateLimit]

    /// `true` when there is nothing to enforce, so callers may skip ``acquire()`` (and the actor hop).
    package nonisolated var isUnlimited: Bool { limits.isEmpty }

    /// Longest single sleep of the scheduling task. Keeps deadlines far inside what the runtime's
    /// timers can represent even for absurdly long windows; for any window shorter than this the
    /// scheduler sleeps exactly once per grant.
    private static let maximumSleep: Duration = .seconds(86_400)

    private var schedule: RateLimitSchedule
    private var waiters = WaiterQueue()
    private var nextWaiterID: UInt64 = 0
    private var isDraining = false
    private var arrivals = 0

    /// Creates a limiter enforcing all of `limits` at once.
    ///
    /// - Parameter limits: The limits to enforce. Invalid limits (see ``RateLimit``) are dropped;
    ///   an empty list (the default) makes an unlimited limiter.
    /// - Parameter safetyMargin: Added to every window. Default zero.
    package init(limits: [RateLimit] = [], safetyMargin: Duration = .zero) {
        let effective = limits.filter { $0.problem == nil }
        self.limits = effective
        self.schedule = RateLimitSchedule(limits: effective, safetyMargin: safetyMargin)
    }

    /// Waits until every limit allows one more request to start, and takes that slot.
    ///
    /// Returns at once when a slot is free and nobody is waiting; otherwise the caller joins the end of
    /// a first-come-first-served queue.
    ///
    /// - Returns: The monotonic instant at which the slot was granted (the instant the guarantee is
    ///   measured on). Callers that only need to wait may ignore it.
    /// - Throws: `CancellationError` if the calling task is already cancelled when it calls, or is
    ///   cancelled while waiting. In both cases no slot is taken. A task cancelled after its slot was
    ///   granted keeps the slot and returns normally.
    @discardableResult
    package func acquire() async throws -> ContinuousClock.Instant {
        try await acquireQueued().granted
    }

    /// Takes a slot as ``acquire()`` does, and tells whether the caller had to wait in the queue.
    package func acquireQueued() async throws -> (granted: ContinuousClock.Instant, queued: Bool) {
        try Task.checkCancellation()
        arrivals += 1
        let now = ContinuousClock.now
        if waiters.isEmpty, schedule.allows(at: now) {
            schedule.record(now)
            return (now, false)
        }

        let id = nextWaiterID
        nextWaiterID &+= 1
        let granted = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<ContinuousClock.Instant, any Error>) in
                // Runs on this actor, synchronously. If cancellation came first, `onCancel` may already
                // have run and found nothing to remove, so answer here; if it comes later, its removal
                // is queued on this actor behind us and finds the waiter.
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                waiters.append(Waiter(id: id, continuation: continuation))
                startDrainingIfNeeded()
            }
        } onCancel: {
            Task { await self.cancelWaiter(id: id) }
        }
        return (granted, true)
    }

    /// How many callers are parked in the queue right now (diagnostics and tests).
    package var waitingCount: Int { waiters.count }

    /// How many calls to ``acquire()`` have reached the actor so far, granted at once or queued;
    /// calls from already-cancelled tasks are not counted (diagnostics and tests).
    package var arrivalCount: Int { arrivals }

    // MARK: - Scheduling

    private func startDrainingIfNeeded() {
        guard !isDraining else { return }
        isDraining = true
        Task { await self.drain() }
    }

    /// The single scheduling loop: sleeps until the next allowed instant, grants the head of the queue,
    /// and ends as soon as the queue is empty. Every waiter leaves the queue exactly once, either here
    /// or in `cancelWaiter`, and only the one that removes it resumes its continuation.
    private func drain() async {
        while !waiters.isEmpty {
            let now = ContinuousClock.now
            if let next = schedule.nextAllowed, next > now {
                let deadline = min(next, now.advanced(by: Self.maximumSleep))
                // Nobody holds this task's handle, so it is never cancelled and this sleep never
                // throws; the next turn of the loop re-reads the queue and the schedule either way.
                try? await Task.sleep(until: deadline, tolerance: .zero, clock: .continuous)
                continue
            }
            guard let waiter = waiters.popFirst() else { break }
            schedule.record(now)
            waiter.continuation.resume(returning: now)
        }
        isDraining = false
    }

    private func cancelWaiter(id: UInt64) {
        guard let waiter = waiters.remove(id: id) else { return }  // already granted: keeps its slot
        waiter.continuation.resume(throwing: CancellationError())
    }
}

// MARK: - Waiter queue

private struct Waiter {
    let id: UInt64
    let continuation: CheckedContinuation<ContinuousClock.Instant, any Error>
}

/// FIFO queue with O(1) append and pop, and removal by id for cancellation.
private struct WaiterQueue {
    private var storage: [Waiter?] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }
    var count: Int { storage.count - head }

    mutating func append(_ waiter: Waiter) {
        storage.append(waiter)
    }

    mutating func popFirst() -> Waiter? {
        while head < storage.count {
            let waiter = storage[head]
            storage[head] = nil
            head += 1
            if let waiter {
                compact()
                return waiter
            }
        }
        compact()
        return nil
    }

    mutating func remove(id: UInt64) -> Waiter? {
        guard let index = storage[head...].firstIndex(where: { $0?.id == id }) else { return nil }
        let waiter = storage[index]
        storage.remove(at: index)
        compact()
        return waiter
    }

    private mutating func compact() {
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }
}

// MARK: - Schedule

/// The bookkeeping behind ``RateLimiter``, free of clocks and concurrency: for each limit it keeps the
/// instants of the last `requests` grants in a ring buffer.
///
/// The next grant is allowed at the latest, over all limits, of "the `requests`-th most recent grant
/// plus `window`" (any instant if a limit has fewer than `requests` grants). Windows are half-open: a
/// grant exactly at that instant is allowed. Instants must be recorded in non-decreasing order.
package struct RateLimitSchedule: Sendable {
    private var rings: [Ring]

    /// Creates an empty schedule for `limits`; invalid limits are ignored.
    /// - Parameter safetyMargin: Added to every window (and to each paced interval's share).
    package init(limits: [RateLimit], safetyMargin: Duration = .zero) {
        var rings: [Ring] = []
        for limit in limits where limit.problem == nil {
            let window = limit.enforcedWindow + safetyMargin
            rings.append(Ring(capacity: max(1, limit.requests), window: window))
            if limit.isPaced, limit.requests > 1 {
                rings.append(Ring(capacity: 1, window: window / limit.requests))
            }
        }
        self.rings = rings
    }

    /// The earliest instant at which one more grant is allowed, or `nil` if one is allowed at any instant.
    package var nextAllowed: ContinuousClock.Instant? {
        var result: ContinuousClock.Instant?
        for ring in rings {
            if let instant = ring.nextAllowed, result.map({ instant > $0 }) ?? true {
                result = instant
            }
        }
        return result
    }

    /// Whether every limit allows one more grant at `instant`.
    package func allows(at instant: ContinuousClock.Instant) -> Bool {
        nextAllowed.map { $0 <= instant } ?? true
    }

    /// Records a grant at `instant` against every limit.
    package mutating func record(_ instant: ContinuousClock.Instant) {
        for index in rings.indices {
            rings[index].record(instant)
        }
    }

    /// The last `capacity` grant instants of one limit. Grows on demand up to `capacity`, so a large
    /// `requests` costs memory only once that many grants have happened.
    private struct Ring: Sendable {
        let capacity: Int
        let window: Duration
        var instants: [ContinuousClock.Instant] = []
        /// Index of the oldest instant once the buffer is full.
        var oldest = 0

        var nextAllowed: ContinuousClock.Instant? {
            guard instants.count >= capacity, oldest < instants.count else { return nil }
            return instants[oldest].advanced(by: window)
        }

        mutating func record(_ instant: ContinuousClock.Instant) {
            if instants.count < capacity {
                instants.append(instant)
            } else {
                instants[oldest] = instant
                oldest = oldest + 1 == capacity ? 0 : oldest + 1
            }
        }
    }
}

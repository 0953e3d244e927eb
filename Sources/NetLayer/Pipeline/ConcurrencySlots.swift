import Foundation

/// A counting semaphore for async callers: FIFO, cancellation-aware, never blocking a thread.
final class ConcurrencySlots: Sendable {
    let limit: Int
    private let state: LockedValue<State>

    private struct State {
        var inFlight = 0
        var nextID: UInt64 = 0
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var head = 0
        /// Waiters cancelled before they were queued.
        var cancelled: Set<UInt64> = []
    }

    init(limit: Int) {
        self.limit = limit
        state = LockedValue(State())
    }

    var inFlight: Int { state.withLock { $0.inFlight } }

    /// Callers queued for a slot now (diagnostics and tests).
    var waitingCount: Int { state.withLock { $0.waiters.count - $0.head } }

    /// A held slot; released once, however many times ``release()`` is called.
    final class Slot: Sendable {
        private let owner: ConcurrencySlots
        private let released = LockedValue(false)

        init(_ owner: ConcurrencySlots) { self.owner = owner }

        func release() {
            let first = released.withLock { done in
                defer { done = true }
                return !done
            }
            if first { owner.releaseOne() }
        }

        deinit { release() }
    }

    /// Takes a slot, waiting in line when none is free.
    /// - Throws: `CancellationError` when the task is cancelled before or while waiting; no slot is
    ///   taken then.
    func acquire() async throws -> Slot { try await acquireQueued().slot }

    /// Takes a slot as ``acquire()`` does, and tells whether the caller had to wait in line.
    func acquireQueued() async throws -> (slot: Slot, queued: Bool) {
        try Task.checkCancellation()
        let id: UInt64? = state.withLock { state in
            if state.inFlight < limit, state.head == state.waiters.count {
                state.inFlight += 1
                return nil
            }
            state.nextID &+= 1
            return state.nextID
        }
        guard let id else { return (Slot(self), false) }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return true }
                    // A slot may have been freed between the check above and now.
                    if state.inFlight < limit, state.head == state.waiters.count {
                        state.inFlight += 1
                        continuation.resume()
                        return false
                    }
                    state.waiters.append((id, continuation))
                    return false
                }
                if resumeNow { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, any Error>? = state.withLock { state in
                if let index = state.waiters[state.head...].firstIndex(where: { $0.id == id }) {
                    return state.waiters.remove(at: index).continuation
                }
                // Not queued yet (or already granted: then this id is never looked up again).
                state.cancelled.insert(id)
                return nil
            }
            waiter?.resume(throwing: CancellationError())
        }
        // Granted: a cancelled id left behind by a late `onCancel` is dropped.
        state.withLock { _ = $0.cancelled.remove(id) }
        return (Slot(self), true)
    }

    /// Hands the slot to the first waiter, or frees it.
    fileprivate func releaseOne() {
        let next: CheckedContinuation<Void, any Error>? = state.withLock { state in
            if state.head < state.waiters.count {
                let waiter = state.waiters[state.head]
                state.head += 1
                if state.head == state.waiters.count {
                    state.waiters.removeAll(keepingCapacity: true)
                    state.head = 0
                } else if state.head >= 64, state.head * 2 >= state.waiters.count {
                    state.waiters.removeFirst(state.head)
                    state.head = 0
                }
                return waiter.continuation  // the slot passes on; inFlight stays
            }
            state.inFlight -= 1
            return nil
        }
        next?.resume()
    }
}

import Dispatch

/// Flushes a file to disk in the background while it is still being written, so that the final
/// `fsync` of a download finds little left to do: the disk works while the network does, instead of
/// after it.
///
/// Every ``interval`` bytes, ``wrote(_:)`` starts a flush (``FileSync/flushData(_:)``: `fdatasync` on Linux, `fsync` on
/// Darwin) on a utility queue unless one is
/// still running; ``finish()`` waits (without blocking a thread) for the one in flight, so the file
/// descriptor is never closed under it.
final class WriteBehind: Sendable {
    /// 32 MiB between background flushes: large enough that the flushes are few, small enough that
    /// the final `fsync` is short.
    static let interval: Int64 = 32 << 20

    private struct State {
        var written: Int64 = 0
        var sinceFlush: Int64 = 0
        var flushing = false
        var flushes = 0
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let descriptor: Int32
    private let state = LockedValue(State())
    private static let queue = DispatchQueue(label: "NetLayer.WriteBehind", qos: .utility)

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Bytes counted by ``wrote(_:)`` so far.
    var written: Int64 { state.withLock { $0.written } }

    /// How many background flushes have started (for tests).
    var flushes: Int { state.withLock { $0.flushes } }

    /// Whether a background flush is running now (for tests).
    var isFlushing: Bool { state.withLock { $0.flushing } }

    /// Counts `count` bytes written (one lock per chunk: the download's only bookkeeping); may
    /// start a background flush.
    func wrote(_ count: Int) {
        let start = state.withLock { state -> Bool in
            state.written += Int64(count)
            state.sinceFlush += Int64(count)
            guard state.sinceFlush >= Self.interval, !state.flushing else { return false }
            state.sinceFlush = 0
            state.flushing = true
            state.flushes += 1
            return true
        }
        guard start else { return }
        let descriptor = self.descriptor
        Self.queue.async { [self] in
            FileSync.flushData(descriptor)
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.flushing = false
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    /// Returns once no background flush is running; none starts after this.
    func finish() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                state.sinceFlush = .min  // never reaches the interval again
                if state.flushing {
                    state.waiter = continuation
                    return false
                }
                return true
            }
            if now { continuation.resume() }
        }
    }

    /// Makes the file durable (``FileSync/makeDurable(_:)``: `fsync`, `F_FULLFSYNC` on Darwin) on
    /// the flush queue, so the blocking call never holds a thread of Swift's cooperative pool.
    /// Call after ``finish()``.
    /// - Returns: `0`, or the `errno` of the failed call.
    func makeDurable() async -> Int32 {
        let descriptor = self.descriptor
        return await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Self.queue.async {
                continuation.resume(returning: FileSync.makeDurable(descriptor))
            }
        }
    }
}

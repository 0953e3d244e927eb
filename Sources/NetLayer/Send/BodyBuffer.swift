import Foundation

/// The bounded buffer between a transport that receives chunks (the session delegate) and the one
/// consumer of a ``ResponseBody``.
///
/// Above ``limit`` unread bytes it asks the producer to pause (the URLSession task is suspended);
/// once the consumer has taken the buffer down to half, it asks it to resume. Pause and resume are
/// applied on one serial queue, always to the latest wish, so they can never be applied out of
/// order. Unchecked Sendable: every mutable field is guarded by `lock`, except `applied`, which only
/// the serial `controlQueue` touches.
final class BodyBuffer: @unchecked Sendable {
    /// How the buffer reaches the transfer behind it.
    struct Control: Sendable {
        var pause: @Sendable () -> Void
        var resume: @Sendable () -> Void
        var cancel: @Sendable () -> Void
    }

    /// 1 MiB: four default-sized socket reads ahead, a small fraction of any device's memory.
    static let defaultLimit = 1 << 20

    let limit: Int
    private let control: Control
    private let lock = NSLock()
    private var chunks: [Data] = []
    private var first = 0
    private var buffered = 0
    private var peak = 0
    private var end: Result<Void, any Error>?
    private var waiter: CheckedContinuation<Data?, any Error>?
    private var cancelled = false
    private var wantsPause = false
    private var pauses = 0
    private var applied = false
    private static let controlQueue = DispatchQueue(label: "NetLayer.BodyBuffer.control")

    init(limit: Int = BodyBuffer.defaultLimit, control: Control) {
        self.limit = max(1, limit)
        self.control = control
    }

    /// The most unread bytes held at once, and how often the producer was paused (for tests and
    /// the documented bound).
    var statistics: (peakBytes: Int, pauses: Int) { lock.withLock { (peak, pauses) } }

    /// Whether the producer is paused because the consumer lags (the idle timer must not count it).
    var isPaused: Bool { lock.withLock { wantsPause } }

    /// Producer: a chunk arrived.
    func yield(_ data: Data) {
        if data.isEmpty { return }
        var handOver: CheckedContinuation<Data?, any Error>?
        var pauseNow = false
        lock.withLock {
            if cancelled || end != nil { return }
            if let waiter {
                self.waiter = nil
                handOver = waiter
                return
            }
            chunks.append(data)
            buffered += data.count
            peak = max(peak, buffered)
            if buffered >= limit && !wantsPause {
                wantsPause = true
                pauses += 1
                pauseNow = true
            }
        }
        handOver?.resume(returning: data)
        if pauseNow { applyLatestWish() }
    }

    /// Producer: the body ended, with an error or not. Chunks already buffered are still read.
    func finish(_ error: (any Error)?) {
        let waiter: CheckedContinuation<Data?, any Error>? = lock.withLock {
            if end != nil { return nil }
            end = error.map { .failure($0) } ?? .success(())
            defer { self.waiter = nil }
            return self.waiter
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    /// Consumer: the next chunk, waiting for one; `nil` at the end.
    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                var resumeNow = false
                let outcome: Result<Data?, any Error>? = lock.withLock {
                    if first < chunks.count {
                        let chunk = chunks[first]
                        chunks[first] = Data()
                        first += 1
                        if first >= 64 && first * 2 >= chunks.count {
                            chunks.removeFirst(first)
                            first = 0
                        }
                        buffered -= chunk.count
                        if wantsPause && buffered <= limit / 2 {
                            wantsPause = false
                            resumeNow = true
                        }
                        return .success(chunk)
                    }
                    if cancelled { return .failure(CancellationError()) }
                    if let end {
                        switch end {
                        case .success: return .success(nil)
                        case .failure(let error): return .failure(error)
                        }
                    }
                    waiter = continuation
                    return nil
                }
                if resumeNow { applyLatestWish() }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Consumer: stop the transfer (the consumer went away or was cancelled). Idempotent.
    func cancel() {
        let (waiter, first): (CheckedContinuation<Data?, any Error>?, Bool) = lock.withLock {
            if cancelled { return (nil, false) }
            cancelled = true
            chunks = []
            buffered = 0
            defer { self.waiter = nil }
            return (self.waiter, end == nil)
        }
        waiter?.resume(throwing: CancellationError())
        guard first else { return }
        // Off the caller's thread (it may hold the Swift task's lock; see TaskExchange.cancel), and
        // after any pause, so a suspended task is resumed before it is cancelled.
        Self.controlQueue.async { [self] in
            if applied {
                applied = false
                control.resume()
            }
            control.cancel()
        }
    }

    /// Applies the latest pause wish on the serial control queue.
    private func applyLatestWish() {
        Self.controlQueue.async { [self] in
            let (wish, stopped) = lock.withLock { (wantsPause, cancelled || end != nil) }
            if stopped && !applied { return }
            let target = wish && !stopped
            guard target != applied else { return }
            applied = target
            if target { control.pause() } else { control.resume() }
        }
    }
}

import Foundation

/// The bounded buffer between a transport that receives chunks (the session delegate) and the one
/// consumer of a ``ResponseBody``.
///
/// Above ``limit`` unread bytes in memory, one of two things happens:
/// - with a `pause` control (Apple platforms: the URLSession task is suspended), the producer is
///   asked to pause, and to resume once the consumer has taken the buffer down to half. Pause and
///   resume are applied on one serial queue, always to the latest wish, so never out of order.
/// - without one (Linux: `suspend()` of a running task removes its handle from libcurl, and the
///   transfer stalls or starts over — measured), further chunks go to a spill file in
///   `spillDirectory` until the consumer has read them, so memory stays flat; the file is removed
///   as soon as it is drained, and on cancellation.
///
/// Unchecked Sendable: every mutable field is guarded by `lock`, except `applied`, which only the
/// serial `controlQueue` touches.
final class BodyBuffer: @unchecked Sendable {
    /// How the buffer reaches the transfer behind it.
    struct Control: Sendable {
        /// Pauses the producer; `nil` when it cannot be paused (spill instead).
        var pause: (@Sendable () -> Void)?
        var resume: (@Sendable () -> Void)?
        var cancel: @Sendable () -> Void
    }

    /// 1 MiB: four default-sized socket reads ahead, a small fraction of any device's memory.
    static let defaultLimit = 1 << 20

    /// The most unread bytes a spill file holds: 4 GiB. A server streaming without end to a reader
    /// that stalled must not fill the disk; past this the call fails with `.responseTooLarge`.
    static let defaultMaximumSpill: Int64 = 4 << 30

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
    private var spill: SpillFile?
    private var spilled: Int64 = 0
    /// Set by ``drain(into:)``: every chunk goes straight to it, on the producer's thread.
    private var sink: (@Sendable (Data) throws -> Void)?
    /// The producer is inside `sink` now. A ``finish(_:)`` from another thread meanwhile (a
    /// deadline, a cancellation) leaves the drain's waiter to the producer, which resumes it once
    /// the sink returned: the drain never returns while its sink still writes.
    private var inSink = false
    private let spillDirectory: URL?
    private static let controlQueue = DispatchQueue(label: "NetLayer.BodyBuffer.control")

    let maximumSpill: Int64

    init(
        limit: Int = BodyBuffer.defaultLimit, control: Control, spillDirectory: URL? = nil,
        maximumSpill: Int64 = BodyBuffer.defaultMaximumSpill
    ) {
        self.limit = max(1, limit)
        self.maximumSpill = maximumSpill
        self.control = control
        self.spillDirectory = spillDirectory
    }

    deinit {
        spill?.remove()
    }

    /// The most unread bytes held in memory at once, how often the producer was paused, and how
    /// many bytes went through a spill file (for tests and the documented bound).
    var statistics: (peakBytes: Int, pauses: Int, spilledBytes: Int64) {
        lock.withLock { (peak, pauses, spilled) }
    }

    /// Whether the producer is paused because the consumer lags (the idle timer must not count it).
    var isPaused: Bool { lock.withLock { wantsPause } }

    /// Producer: a chunk arrived.
    func yield(_ data: Data) {
        if data.isEmpty { return }
        var handOver: CheckedContinuation<Data?, any Error>?
        var direct: (@Sendable (Data) throws -> Void)?
        var pauseNow = false
        var spillFailure: (any Error)?
        lock.withLock {
            if cancelled || end != nil { return }
            if let sink {
                direct = sink
                inSink = true
                return
            }
            if let waiter {
                self.waiter = nil
                handOver = waiter
                return
            }
            if control.pause == nil, let spillDirectory, spill != nil || buffered + data.count > limit {
                do {
                    if spill == nil { spill = try SpillFile(in: spillDirectory) }
                    if let spill, spill.unread + Int64(data.count) > maximumSpill {
                        throw NetLayerError(
                            .responseTooLarge,
                            "the reader fell more than \(maximumSpill) bytes behind the response body")
                    }
                    try spill?.append(data)
                    spilled += Int64(data.count)
                } catch {
                    spillFailure = error
                }
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
        if let direct {
            // The producer is serial, so chunks reach the sink in order and one at a time.
            var sinkFailure: (any Error)?
            do { try direct(data) } catch { sinkFailure = error }
            let (late, end) = lock.withLock {
                () -> (CheckedContinuation<Data?, any Error>?, Result<Void, any Error>?) in
                inSink = false
                // Finished by another thread while the sink ran: the waiter is this thread's to resume.
                guard let end = self.end, let waiter = self.waiter else { return (nil, nil) }
                self.waiter = nil
                return (waiter, cancelled ? .failure(CancellationError()) : end)
            }
            if let late, let end {
                switch end {
                case .success: late.resume(returning: nil)
                case .failure(let error): late.resume(throwing: error)
                }
            }
            if let sinkFailure {
                finish(sinkFailure)
                control.cancel()
                return
            }
        }
        if pauseNow { applyLatestWish() }
        if let spillFailure {
            finish(
                spillFailure as? NetLayerError
                    ?? NetLayerError.fileFailed(
                        "cannot hold the unread response body in a temporary file: \(spillFailure.localizedDescription)",
                        underlying: spillFailure))
            control.cancel()
        }
    }

    /// Producer: the body ended, with an error or not. Chunks already buffered are still read. A
    /// consumer that cancelled and waits is released now, once the transfer has let go of
    /// everything it held (a spooled request body, the connection).
    func finish(_ error: (any Error)?) {
        let (waiter, cancelled): (CheckedContinuation<Data?, any Error>?, Bool) = lock.withLock {
            if end != nil { return (nil, false) }
            end = error.map { .failure($0) } ?? .success(())
            // The producer is inside the sink: it resumes the waiter when the sink returns.
            if inSink { return (nil, false) }
            defer { self.waiter = nil }
            return (self.waiter, self.cancelled)
        }
        if cancelled {
            waiter?.resume(throwing: CancellationError())
        } else if let error {
            waiter?.resume(throwing: error)
        } else {
            waiter?.resume(returning: nil)
        }
    }

    /// Consumer: the next chunk, waiting for one; `nil` at the end.
    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Data?, any Error>) in
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
                    switch readSpill() {
                    case .success(let chunk?): return .success(chunk)
                    case .failure(let error): return .failure(error)
                    case .success(nil): break
                    }
                    if cancelled {
                        // Wait for the producer to end, so that nothing the transfer holds outlives
                        // the call.
                        if end != nil { return .failure(CancellationError()) }
                        return wait(continuation)
                    }
                    if let end {
                        switch end {
                        case .success: return .success(nil)
                        case .failure(let error): return .failure(error)
                        }
                    }
                    return wait(continuation)
                }
                if resumeNow { applyLatestWish() }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Makes `continuation` the one waiter, or, when a reader already waits (a second reader of a
    /// single-pass body), fails it: a waiter is never replaced, so none is leaked or resumed
    /// twice. Call under `lock`.
    private func wait(
        _ continuation: CheckedContinuation<Data?, any Error>
    ) -> Result<Data?, any Error>? {
        guard waiter == nil else {
            return .failure(
                NetLayerError(
                    .bodyConsumed,
                    "the response body is already being read by another task; bodies are single-pass"))
        }
        waiter = continuation
        return nil
    }

    /// Consumer: hands every chunk to `sink` until the end of the body: first those already
    /// buffered or spilled (on the caller's task), then each new one as it arrives, on the
    /// producer's thread, without a hop to the caller (a download writing to its file). Returns
    /// once the producer ended and no chunk is left; `sink` is never called after that.
    /// - Throws: The transfer's error, the sink's error (the transfer is then cancelled), or
    ///   `CancellationError` when the caller is cancelled (once the producer has ended).
    func drain(into sink: @escaping @Sendable (Data) throws -> Void) async throws {
        // Catch up with what is waiting, then switch the producer over.
        while true {
            let (pending, problem) = takePendingOrInstall(sink)
            if let problem { throw problem }
            guard let pending else { break }
            do { for chunk in pending { try sink(chunk) } } catch {
                cancel()
                throw error
            }
        }
        try await withTaskCancellationHandler {
            _ = try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Data?, any Error>) in
                let outcome: Result<Data?, any Error>? = lock.withLock {
                    // While the producer is inside the sink, it resumes this waiter when the sink
                    // returns.
                    if let end, !inSink {
                        if cancelled { return .failure(CancellationError()) }
                        if case .failure(let error) = end { return .failure(error) }
                        return .success(nil)
                    }
                    return wait(continuation)
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The chunks waiting (from memory or the spill file), or, when none are left, installs
    /// `sink` for the producer and returns `nil`.
    private func takePendingOrInstall(_ sink: @escaping @Sendable (Data) throws -> Void) -> (
        [Data]?, (any Error)?
    ) {
        lock.withLock {
            if cancelled, end != nil { return (nil, CancellationError()) }
            if first < chunks.count {
                let pending = Array(chunks[first...])
                chunks = []
                first = 0
                buffered = 0
                if wantsPause {
                    wantsPause = false
                    Self.controlQueue.async { [self] in applyLatestWishNow() }
                }
                return (pending, nil)
            }
            switch readSpill() {
            case .success(let chunk?): return ([chunk], nil)
            case .failure(let error): return (nil, error)
            case .success(nil): break
            }
            self.sink = sink
            return (nil, nil)
        }
    }

    /// The next chunk of the spill file (removed once drained); `nil` when there is none. Call
    /// under `lock`.
    private func readSpill() -> Result<Data?, any Error> {
        guard let spill else { return .success(nil) }
        do {
            guard let chunk = try spill.read(upTo: limit) else { return .success(nil) }
            if spill.isDrained {
                spill.remove()
                self.spill = nil
            }
            return .success(chunk)
        } catch {
            return .failure(
                NetLayerError.fileFailed(
                    "cannot read back the unread response body: \(error.localizedDescription)",
                    underlying: error))
        }
    }

    /// Consumer: stop the transfer (the consumer went away or was cancelled). Idempotent. A
    /// consumer waiting in ``next()`` gets `CancellationError` once the producer has ended.
    func cancel() {
        let stopProducer: Bool = lock.withLock {
            if cancelled { return false }
            cancelled = true
            chunks = []
            first = 0
            buffered = 0
            spill?.remove()
            spill = nil
            return end == nil
        }
        guard stopProducer else { return }
        // Off the caller's thread (it may hold the Swift task's lock; see TaskExchange.cancel), and
        // after any pause, so a suspended task is resumed before it is cancelled.
        Self.controlQueue.async { [self] in
            if applied {
                applied = false
                control.resume?()
            }
            control.cancel()
        }
    }

    /// Applies the latest pause wish on the serial control queue.
    private func applyLatestWish() {
        Self.controlQueue.async { [self] in applyLatestWishNow() }
    }

    /// Applies the latest pause wish; runs on the control queue only.
    private func applyLatestWishNow() {
        let (wish, stopped) = lock.withLock { (wantsPause, cancelled || end != nil) }
        if stopped && !applied { return }
        let target = wish && !stopped
        guard target != applied else { return }
        applied = target
        if target { control.pause?() } else { control.resume?() }
    }
}

import Foundation

/// The decisions of a ``BodyBuffer``, without its I/O: which chunk goes where, who waits, when the
/// producer should pause, when the body is over. Each method takes one event and returns what the
/// buffer must do; the buffer calls it under its lock and does the returned work (resuming the
/// reader, calling the sink, pausing the task, writing or reading the spill file) after releasing
/// it. Generic over the reader's continuation, so tests drive it with plain values.
///
/// The states, as fields rather than one enum because they combine freely: chunks in memory (and,
/// past ``limit``, bytes in a spill file) waiting for the reader; at most one reader waiting; a
/// sink installed by a drain (every chunk goes straight to it; ``inSink`` while the producer is
/// inside it); the end (`end`, once); the reader's cancellation (`cancelled`, once); and the
/// producer's pause wish (`wantsPause`) beside the pause actually applied (`applied`).
struct BodyBufferStateMachine<Waiter> {
    /// What a drain hands every chunk to, on the producer's thread.
    typealias Sink = @Sendable (Data) throws -> Void

    /// What to do with a chunk the producer yielded.
    enum YieldAction {
        /// Nothing: the body is over or was cancelled.
        case drop
        /// Hand it to the drain's sink (the buffer is then ``inSink`` until ``sinkReturned()``).
        case sink(Sink)
        /// Resume the waiting reader with it.
        case resume(Waiter, Data)
        /// Append it to the spill file (creating the file when there is none).
        case spill
        /// Held in memory; `pause`: apply the new pause wish.
        case buffered(pause: Bool)
        /// The reader is too far behind: end the body with this error and stop the producer.
        case fail(NetLayerError)
    }

    /// What a reader asking for the next chunk gets.
    enum ReadAction {
        /// A chunk from memory; `resume`: apply the new pause wish (the producer may go on).
        case chunk(Data, resume: Bool)
        /// The next chunk is in the spill file: read it (see ``hasSpill``, ``spillRead(_:)``).
        case readSpill
        /// The end, an error, or the chunk the reader gets at once.
        case resolve(Result<Data?, any Error>)
        /// The reader's continuation is kept; an event resumes it later.
        case wait
    }

    /// What a drain catching up gets.
    enum DrainStep {
        /// The drain was cancelled and the producer has ended.
        case cancelled
        /// The chunks waiting in memory, in order; `resume`: apply the new pause wish.
        case chunks([Data], resume: Bool)
        /// The next chunks are in the spill file.
        case readSpill
        /// Nothing waits: the sink is installed, and the producer calls it from now on.
        case installed
    }

    /// A change of the producer's pause to apply.
    enum PauseAction: Equatable {
        case pause
        case resume
    }

    /// The most unread bytes held in memory before the producer is paused or the surplus spills.
    let limit: Int
    /// Whether the producer can be paused (Apple platforms).
    let canPause: Bool
    /// Whether the surplus can go to a spill file (a producer that cannot pause, a directory given).
    let canSpill: Bool
    /// The most unread bytes the spill file holds.
    let maximumSpill: Int64

    private var chunks: [Data] = []
    private var first = 0
    /// Unread bytes in memory.
    private(set) var buffered = 0
    /// The most unread bytes held in memory at once.
    private(set) var peak = 0
    /// How the producer ended, once it has.
    private(set) var end: Result<Void, any Error>?
    private var waiter: Waiter?
    /// The reader cancelled: nothing more is kept.
    private(set) var cancelled = false
    /// The producer should be paused (the reader lags).
    private(set) var wantsPause = false
    /// How often a pause was wished.
    private(set) var pauses = 0
    /// Whether a pause is applied now (only the serial control queue's events change it).
    private var applied = false
    /// Unread bytes in the spill file; `nil` while there is no file.
    private(set) var spillUnread: Int64?
    /// Bytes that went through the spill file.
    private(set) var spilled: Int64 = 0
    private var sink: Sink?
    /// The producer is inside the sink: a ``finish(_:)`` from another thread meanwhile leaves the
    /// drain's waiter to the producer, which resumes it once the sink returned.
    private(set) var inSink = false

    init(limit: Int, canPause: Bool, canSpill: Bool, maximumSpill: Int64) {
        self.limit = max(1, limit)
        self.canPause = canPause
        self.canSpill = canSpill && !canPause
        self.maximumSpill = maximumSpill
    }

    /// Whether a reader waits (for tests).
    var hasWaiter: Bool { waiter != nil }

    // MARK: Producer

    /// A chunk of `data` arrived (never empty).
    mutating func yield(_ data: Data) -> YieldAction {
        if cancelled || end != nil { return .drop }
        if let sink {
            inSink = true
            return .sink(sink)
        }
        if let waiter {
            self.waiter = nil
            return .resume(waiter, data)
        }
        let count = Int64(data.count)
        if canSpill, spillUnread != nil || buffered + data.count > limit {
            let unread = spillUnread ?? 0
            if unread + count > maximumSpill {
                return .fail(
                    NetLayerError(
                        .responseTooLarge,
                        "the reader fell more than \(maximumSpill) bytes behind the response body"))
            }
            spillUnread = unread + count
            spilled += count
            return .spill
        }
        chunks.append(data)
        buffered += data.count
        peak = max(peak, buffered)
        if buffered >= limit && !wantsPause {
            wantsPause = true
            pauses += 1
            return .buffered(pause: true)
        }
        return .buffered(pause: false)
    }

    /// Writing the spilled chunk of `count` bytes failed: it is not in the file.
    mutating func spillFailed(count: Int) {
        guard let unread = spillUnread else { return }
        let left = unread - Int64(count)
        spillUnread = left > 0 ? left : nil
        spilled -= Int64(count)
    }

    /// The producer came back from the sink. Returns the drain's waiter and its outcome when the
    /// body ended meanwhile.
    mutating func sinkReturned() -> (Waiter, Result<Data?, any Error>)? {
        inSink = false
        guard let end, let waiter else { return nil }
        self.waiter = nil
        return (waiter, cancelled ? .failure(CancellationError()) : end.map { nil })
    }

    /// The producer ended, with `error` or not (only the first end counts). Returns the waiting
    /// reader and its outcome, unless the producer is inside the sink (it resumes the reader then).
    mutating func finish(_ error: (any Error)?) -> (Waiter, Result<Data?, any Error>)? {
        if end != nil { return nil }
        end = error.map { .failure($0) } ?? .success(())
        if inSink { return nil }
        guard let waiter else { return nil }
        self.waiter = nil
        if cancelled { return (waiter, .failure(CancellationError())) }
        return (waiter, error.map { .failure($0) } ?? .success(nil))
    }

    // MARK: Reader

    /// The reader asks for the next chunk, with `waiter` to resume when none is there yet.
    mutating func read(_ waiter: Waiter) -> ReadAction {
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
                return .chunk(chunk, resume: true)
            }
            return .chunk(chunk, resume: false)
        }
        if spillUnread != nil { return .readSpill }
        if cancelled {
            // Wait for the producer to end, so that nothing the transfer holds outlives the call.
            if end != nil { return .resolve(.failure(CancellationError())) }
            return wait(waiter)
        }
        if let end { return .resolve(end.map { nil }) }
        return wait(waiter)
    }

    /// Keeps `waiter` as the one waiting reader, or fails it when another waits already (a second
    /// reader of a single-pass body): a waiter is never replaced, so none is leaked or resumed twice.
    private mutating func wait(_ waiter: Waiter) -> ReadAction {
        guard self.waiter == nil else {
            return .resolve(
                .failure(
                    NetLayerError(
                        .bodyConsumed,
                        "the response body is already being read by another task; bodies are single-pass")))
        }
        self.waiter = waiter
        return .wait
    }

    /// Whether unread bytes wait in the spill file (asked with the spill file's lock held, so the
    /// answer matches the file).
    var hasSpill: Bool { spillUnread != nil }

    /// `count` bytes were read from the spill file (0: it had none left). Returns whether the file
    /// is drained and must be removed.
    mutating func spillRead(_ count: Int) -> Bool {
        guard let unread = spillUnread else { return false }
        let left = unread - Int64(count)
        if count > 0 && left > 0 {
            spillUnread = left
            return false
        }
        spillUnread = nil
        return true
    }

    /// A drain catches up with what waits, or installs `sink` when nothing does.
    mutating func takePendingOrInstall(_ sink: @escaping Sink) -> DrainStep {
        if cancelled, end != nil { return .cancelled }
        if first < chunks.count {
            let pending = Array(chunks[first...])
            chunks = []
            first = 0
            buffered = 0
            if wantsPause {
                wantsPause = false
                return .chunks(pending, resume: true)
            }
            return .chunks(pending, resume: false)
        }
        if spillUnread != nil { return .readSpill }
        self.sink = sink
        return .installed
    }

    /// The drain waits for the end, with `waiter`; returns its outcome when the end is already there.
    mutating func drainWait(_ waiter: Waiter) -> Result<Data?, any Error>? {
        // While the producer is inside the sink, it resumes this waiter when the sink returns.
        if let end, !inSink {
            if cancelled { return .failure(CancellationError()) }
            return end.map { nil }
        }
        switch wait(waiter) {
        case .resolve(let outcome): return outcome
        default: return nil
        }
    }

    /// The reader stops the transfer (idempotent). Returns whether a spill file must be removed and
    /// whether the producer must be stopped (it has not ended).
    mutating func cancel() -> (discardSpill: Bool, stopProducer: Bool) {
        if cancelled { return (false, false) }
        cancelled = true
        chunks = []
        first = 0
        buffered = 0
        let discard = spillUnread != nil
        spillUnread = nil
        return (discard, end == nil)
    }

    // MARK: Pause (serial control queue only)

    /// Brings the applied pause in line with the latest wish: the change to apply, if any.
    mutating func applyWish() -> PauseAction? {
        let stopped = cancelled || end != nil
        if stopped && !applied { return nil }
        let target = wantsPause && !stopped
        guard target != applied else { return nil }
        applied = target
        return target ? .pause : .resume
    }

    /// Before the producer is stopped: whether a pause is applied and must be lifted first.
    mutating func liftPauseForCancel() -> Bool {
        defer { applied = false }
        return applied
    }
}

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
/// Every decision is made by a ``BodyBufferStateMachine`` under `state`'s lock; everything it asks
/// for — resuming the reader, calling a drain's sink, pausing or cancelling the transfer, writing
/// and reading the spill file — happens after that lock is released. The spill file has a lock of
/// its own (`spill`): the producer holds it from its decision to the end of its write, and the
/// reader while it reads, so the file always holds what the state machine counts.
final class BodyBuffer: Sendable {
    /// How the buffer reaches the transfer behind it.
    struct Control: Sendable {
        /// Pauses the producer; `nil` when it cannot be paused (spill instead).
        var pause: (@Sendable () -> Void)?
        /// Resumes a paused producer.
        var resume: (@Sendable () -> Void)?
        /// Stops the producer.
        var cancel: @Sendable () -> Void
    }

    typealias StateMachine = BodyBufferStateMachine<CheckedContinuation<Data?, any Error>>

    /// 1 MiB: four default-sized socket reads ahead, a small fraction of any device's memory.
    static let defaultLimit = 1 << 20

    /// The most unread bytes a spill file holds: 4 GiB. A server streaming without end to a reader
    /// that stalled must not fill the disk; past this the call fails with `.responseTooLarge`.
    static let defaultMaximumSpill: Int64 = 4 << 30

    let limit: Int
    let maximumSpill: Int64
    private let control: Control
    private let state: LockedValue<StateMachine>
    /// The spill file, once the producer needed one; lock order: `spill`, then `state`.
    private let spill = LockedValue<SpillFile?>(nil)
    /// Where spill files go; `nil` when the producer pauses instead, or no directory was given.
    private let spillDirectory: URL?
    private static let controlQueue = DispatchQueue(label: "NetLayer.BodyBuffer.control")

    init(
        limit: Int = BodyBuffer.defaultLimit, control: Control, spillDirectory: URL? = nil,
        maximumSpill: Int64 = BodyBuffer.defaultMaximumSpill
    ) {
        self.limit = max(1, limit)
        self.maximumSpill = maximumSpill
        self.control = control
        // Only a producer that cannot pause spills.
        self.spillDirectory = control.pause == nil ? spillDirectory : nil
        state = LockedValue(
            StateMachine(
                limit: limit, canPause: control.pause != nil, canSpill: spillDirectory != nil,
                maximumSpill: maximumSpill))
    }

    deinit {
        spill.withLock { file in
            file?.remove()
            file = nil
        }
    }

    /// The most unread bytes held in memory at once, how often the producer was paused, and how
    /// many bytes went through a spill file (for tests and the documented bound).
    var statistics: (peakBytes: Int, pauses: Int, spilledBytes: Int64) {
        state.withLock { ($0.peak, $0.pauses, $0.spilled) }
    }

    /// Whether the producer is paused because the consumer lags (the idle timer must not count it).
    var isPaused: Bool { state.withLock { $0.wantsPause } }

    // MARK: Producer

    /// Producer: a chunk arrived.
    func yield(_ data: Data) {
        if data.isEmpty { return }
        guard let spillDirectory else {
            perform(state.withLock { $0.yield(data) }, data)
            return
        }
        // The decision and the write under the spill file's lock, so a reader never finds the file
        // behind the count.
        let outcome = spill.withLock { file -> (StateMachine.YieldAction, (any Error)?) in
            let action = state.withLock { $0.yield(data) }
            guard case .spill = action else { return (action, nil) }
            do {
                if file == nil { file = try SpillFile(in: spillDirectory) }
                try file?.append(data)
                return (action, nil)
            } catch {
                state.withLock { $0.spillFailed(count: data.count) }
                return (action, error)
            }
        }
        if let failure = outcome.1 {
            finish(
                failure as? NetLayerError
                    ?? NetLayerError.fileFailed(
                        "cannot hold the unread response body in a temporary file: \(failure.localizedDescription)",
                        underlying: failure))
            control.cancel()
            return
        }
        perform(outcome.0, data)
    }

    /// Does what the state machine decided for a chunk (the spill write is already done).
    private func perform(_ action: StateMachine.YieldAction, _ data: Data) {
        switch action {
        case .drop, .spill, .buffered(pause: false):
            break
        case .buffered(pause: true):
            applyLatestWish()
        case .resume(let waiter, let chunk):
            waiter.resume(returning: chunk)
        case .fail(let error):
            finish(error)
            control.cancel()
        case .sink(let sink):
            // The producer is serial, so chunks reach the sink in order and one at a time.
            var sinkFailure: (any Error)?
            do { try sink(data) } catch { sinkFailure = error }
            // Finished by another thread while the sink ran: the waiter is this thread's to resume.
            if let (waiter, outcome) = state.withLock({ $0.sinkReturned() }) {
                waiter.resume(with: outcome)
            }
            if let sinkFailure {
                finish(sinkFailure)
                control.cancel()
            }
        }
    }

    /// Producer: the body ended, with an error or not. Chunks already buffered are still read. A
    /// consumer that cancelled and waits is released now, once the transfer has let go of
    /// everything it held (a spooled request body, the connection).
    func finish(_ error: (any Error)?) {
        if let (waiter, outcome) = state.withLock({ $0.finish(error) }) {
            waiter.resume(with: outcome)
        }
    }

    // MARK: Consumer

    /// Consumer: the next chunk, waiting for one; `nil` at the end.
    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Data?, any Error>) in
                while true {
                    switch state.withLock({ $0.read(continuation) }) {
                    case .chunk(let chunk, let resume):
                        if resume { applyLatestWish() }
                        continuation.resume(returning: chunk)
                        return
                    case .resolve(let outcome):
                        continuation.resume(with: outcome)
                        return
                    case .wait:
                        return
                    case .readSpill:
                        // `nil`: the file went meanwhile (a cancellation); ask again.
                        guard let outcome = readSpill() else { continue }
                        continuation.resume(with: outcome.map { $0 })
                        return
                    }
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The next chunk of the spill file (the file is removed once drained); `nil` when there is no
    /// spill any more.
    private func readSpill() -> Result<Data, any Error>? {
        spill.withLock { file -> Result<Data, any Error>? in
            guard state.withLock({ $0.hasSpill }) else { return nil }
            let chunk: Data?
            do {
                chunk = try file?.read(upTo: limit)
            } catch {
                return .failure(
                    NetLayerError.fileFailed(
                        "cannot read back the unread response body: \(error.localizedDescription)",
                        underlying: error))
            }
            if state.withLock({ $0.spillRead(chunk?.count ?? 0) }) {
                file?.remove()
                file = nil
            }
            return chunk.map { .success($0) }
        }
    }

    /// Consumer: hands every chunk to `sink` until the end of the body: first those already
    /// buffered or spilled (on the caller's task), then each new one as it arrives, on the
    /// producer's thread, without a hop to the caller (a download writing to its file). Returns
    /// once the producer ended and no chunk is left; `sink` is never called after that.
    /// - Throws: The transfer's error, the sink's error (the transfer is then cancelled), or
    ///   `CancellationError` when the caller is cancelled (once the producer has ended).
    func drain(into sink: @escaping @Sendable (Data) throws -> Void) async throws {
        // Catch up with what is waiting, then switch the producer over.
        catchUp: while true {
            let pending: [Data]
            switch state.withLock({ $0.takePendingOrInstall(sink) }) {
            case .cancelled:
                throw CancellationError()
            case .installed:
                break catchUp
            case .chunks(let chunks, let resume):
                if resume { applyLatestWish() }
                pending = chunks
            case .readSpill:
                switch readSpill() {
                case .success(let chunk)?: pending = [chunk]
                case .failure(let error)?: throw error
                case nil: continue catchUp
                }
            }
            do { for chunk in pending { try sink(chunk) } } catch {
                cancel()
                throw error
            }
        }
        try await withTaskCancellationHandler {
            _ = try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Data?, any Error>) in
                if let outcome = state.withLock({ $0.drainWait(continuation) }) {
                    continuation.resume(with: outcome)
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Consumer: stop the transfer (the consumer went away or was cancelled). Idempotent. A
    /// consumer waiting in ``next()`` gets `CancellationError` once the producer has ended.
    func cancel() {
        let (discardSpill, stopProducer) = state.withLock { $0.cancel() }
        if discardSpill {
            spill.withLock { file in
                file?.remove()
                file = nil
            }
        }
        guard stopProducer else { return }
        // Off the caller's thread (it may hold the Swift task's lock; see TaskExchange.cancel), and
        // after any pause, so a suspended task is resumed before it is cancelled.
        Self.controlQueue.async { [self] in
            if state.withLock({ $0.liftPauseForCancel() }) { control.resume?() }
            control.cancel()
        }
    }

    /// Applies the latest pause wish on the serial control queue, so pauses and resumes reach the
    /// producer in the order they were decided.
    private func applyLatestWish() {
        Self.controlQueue.async { [self] in
            switch state.withLock({ $0.applyWish() }) {
            case .pause?: control.pause?()
            case .resume?: control.resume?()
            case nil: break
            }
        }
    }
}

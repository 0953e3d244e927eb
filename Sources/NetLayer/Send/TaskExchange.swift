import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One delegate-driven task: it hands the head to the caller, then streams the body through a
/// bounded ``BodyBuffer``, reports progress, and enforces the idle timeout and total deadline
/// until the last byte.
///
/// Unchecked Sendable: every mutable field is read and written only under `lock`.
final class TaskExchange: @unchecked Sendable {
    let task: URLSessionTask
    private let lock = NSLock()
    private let progress: ProgressReporter?
    private let uploadLength: Int64?
    private let bufferLimit: Int
    private let spillDirectory: URL
    /// Runs once when the task is over (removes a spooled body).
    private var cleanup: (@Sendable () -> Void)?
    private var headContinuation: CheckedContinuation<TransportResponse, any Error>?
    private var buffer: BodyBuffer?
    private var early = Data()
    private var received: Int64 = 0
    private var expected: Int64?
    private var lastActivity = ContinuousClock.now
    private var timeoutReason: String?
    private var challengeResponse: HTTPURLResponse?
    private var cancelled = false
    private var started = false
    private var watchdog: Task<Void, Never>?

    init(
        task: URLSessionTask, progress: ProgressReporter?, uploadLength: Int64?, bufferLimit: Int,
        spillDirectory: URL, cleanup: (@Sendable () -> Void)?
    ) {
        self.spillDirectory = spillDirectory
        self.task = task
        self.progress = progress
        self.uploadLength = uploadLength
        self.bufferLimit = bufferLimit
        self.cleanup = cleanup
    }

    /// Attaches the continuation and resumes the task, unless the caller was cancelled first.
    /// - Returns: `false` when the caller's task was already cancelled; nothing was started then.
    func start(_ continuation: CheckedContinuation<TransportResponse, any Error>) -> Bool {
        // Resuming under the lock makes `cancel()` either see `started == false` (and leave the
        // task alone) or run after `resume()` returned: a URLSession task cancelled before it was
        // resumed never reports completion on Linux.
        lock.withLock {
            if cancelled { return false }
            headContinuation = continuation
            started = true
            lastActivity = .now
            task.resume()
            return true
        }
    }

    /// The response head arrived: hand it to the caller with a body that streams from here on.
    func receivedHead(_ response: HTTPURLResponse) {
        #if canImport(FoundationNetworking)
            // Linux: suspending a running task removes it from libcurl, and the transfer stalls or
            // restarts; the buffer spills to disk instead.
            let control = BodyBuffer.Control(
                pause: nil, resume: nil, cancel: { [weak self] in self?.cancelTransfer() })
        #else
            let task = self.task
            let control = BodyBuffer.Control(
                pause: { task.suspend() }, resume: { task.resume() },
                cancel: { [weak self] in self?.cancelTransfer() })
        #endif
        let buffer = BodyBuffer(limit: bufferLimit, control: control, spillDirectory: spillDirectory)
        let (continuation, early): (CheckedContinuation<TransportResponse, any Error>?, Data) = lock.withLock
        {
            lastActivity = .now
            self.buffer = buffer
            expected = ResponseHead(response).contentLength
            defer {
                headContinuation = nil
                self.early = Data()
            }
            return (headContinuation, self.early)
        }
        buffer.yield(early)
        let head = ResponseHead(response)
        continuation?.resume(
            returning: TransportResponse(
                head: head, body: ResponseBody(buffer: buffer, expectedLength: head.contentLength)))
    }

    func receivedBody(_ chunk: Data) {
        let (buffer, total, expected): (BodyBuffer?, Int64, Int64?) = lock.withLock {
            lastActivity = .now
            received += Int64(chunk.count)
            if self.buffer == nil { early.append(chunk) }
            return (self.buffer, received, self.expected)
        }
        buffer?.yield(chunk)
        progress?.reportDownload(received: total, expected: expected)
    }

    func sentBody(total: Int64) {
        lock.withLock { lastActivity = .now }
        progress?.reportUpload(sent: total, expected: uploadLength)
    }

    func challenged(_ response: HTTPURLResponse) {
        lock.withLock { challengeResponse = response }
    }

    /// Cancels the task because the caller's Swift task was cancelled while waiting for the head.
    ///
    /// Runs inside a task-cancellation handler, which holds the Swift task's lock. URLSession's
    /// `cancel()` waits for the session's work queue, whose thread may itself be waiting for that lock
    /// to resume this task, so the URLSession call is made from another thread.
    func cancel() {
        let wasStarted = lock.withLock {
            cancelled = true
            return started
        }
        if wasStarted {
            let task = self.task
            DispatchQueue.global().async { task.cancel() }
        }
    }

    /// The body's consumer went away: stop the transfer (called off the consumer's thread).
    private func cancelTransfer() {
        lock.withLock { cancelled = true }
        task.cancel()
    }

    /// Starts the timer task that enforces the idle timeout and the total deadline.
    func startWatchdog(_ timeouts: Timeouts) {
        guard !timeouts.isEmpty else { return }
        let start = ContinuousClock.now
        let timer = Task { [weak self] in
            while true {
                guard let self else { return }
                let activity = self.lock.withLock {
                    // A consumer that lags pauses the transfer; that silence is not the server's.
                    if self.buffer?.isPaused == true { self.lastActivity = .now }
                    return self.lastActivity
                }
                var deadline: ContinuousClock.Instant?
                var reason = ""
                if let total = timeouts.total {
                    deadline = start + total
                    reason = "the total deadline of \(total.formattedSeconds) elapsed"
                }
                if let idle = timeouts.idle, deadline.map({ activity + idle < $0 }) ?? true {
                    deadline = activity + idle
                    reason = "no data for \(idle.formattedSeconds) (idle timeout)"
                }
                guard let deadline else { return }
                if ContinuousClock.now >= deadline {
                    self.lock.withLock { self.timeoutReason = reason }
                    self.task.cancel()
                    return
                }
                let wake = min(deadline, ContinuousClock.now + .milliseconds(250))
                do { try await Task.sleep(until: wake, clock: .continuous) } catch { return }
            }
        }
        lock.withLock { watchdog = timer }
    }

    /// The task is over: resumes the head continuation, or ends the body, exactly once.
    func complete(error: (any Error)?) {
        let state = lock.withLock {
            defer {
                headContinuation = nil
                watchdog = nil
                cleanup = nil
            }
            return (
                continuation: headContinuation, buffer: buffer, early: early, reason: timeoutReason,
                challenge: challengeResponse, cancelled: cancelled, watchdog: watchdog, cleanup: cleanup
            )
        }
        state.watchdog?.cancel()
        state.cleanup?()
        let cancelledByURLSession = (error as? URLError)?.code == .cancelled
        let failure: (any Error)? =
            if let reason = state.reason {
                NetLayerError.timedOut(reason)
            } else if state.cancelled {
                CancellationError()
            } else if state.challenge != nil && (cancelledByURLSession || error == nil) {
                nil
            } else {
                error
            }
        if let buffer = state.buffer {
            buffer.finish(failure)
            return
        }
        guard let continuation = state.continuation else { return }
        if let failure {
            continuation.resume(throwing: failure)
        } else if let response = state.challenge ?? (task.response as? HTTPURLResponse) {
            continuation.resume(
                returning: TransportResponse(head: ResponseHead(response), body: ResponseBody(state.early)))
        } else {
            continuation.resume(throwing: URLError(.badServerResponse))
        }
    }
}

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
    /// Enforces the timeouts; a Dispatch timer, so it fires on time even when the cooperative
    /// pool is busy (a timer task on the pool fired hundreds of ms late under load).
    private var watchdog: DispatchSourceTimer?
    private var watchdogStart = ContinuousClock.now
    private var isComplete = false
    private var watchdogTimeouts = Timeouts()
    /// Interim (1xx) heads skipped so far.
    private var interimHeads = 0

    /// The most interim (1xx) responses one call accepts before the final head: a server that
    /// sends `102 Processing` without end fails the call instead of holding it.
    static let maximumInterimResponses = 64

    /// The queue every exchange's watchdog fires on: each tick is a few reads under a lock.
    private static let watchdogQueue = DispatchQueue(label: "NetLayer.URLSessionTransport.timeouts")
    /// Where the watchdog has URLSession tasks cancelled: `cancel()` can wait for URLSession's own
    /// queue, so it never runs on the watchdog's queue (other calls' deadlines would wait behind
    /// it). A serial queue of its own always gets a thread, even when the global queues hold back
    /// new ones (a cooperative pool whose every thread is blocked held a timed-out transfer open
    /// for 1.8 s). Other cancellations go to the global queue, where one slow `cancel()` does not
    /// hold back the next.
    private static let timeoutCancelQueue = DispatchQueue(
        label: "NetLayer.URLSessionTransport.timeouts.cancel")

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

    deinit {
        // Released while the timer is still set (the exchange was dropped without completing).
        watchdog?.cancel()
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

    /// A response head arrived: an interim (1xx) one is skipped (RFC 9110 §15.2: never final;
    /// `101 Switching Protocols` ends HTTP on the connection and is handed on as final, for
    /// validation to refuse); the final one goes to the caller with a body that streams from here on.
    func receivedHead(_ response: HTTPURLResponse) {
        if (100..<200).contains(response.statusCode) && response.statusCode != 101 {
            let tooMany = lock.withLock { () -> Bool in
                lastActivity = .now
                interimHeads += 1
                return interimHeads > Self.maximumInterimResponses
            }
            if tooMany {
                failNow(
                    NetLayerError(
                        .transport,
                        "the server sent more than \(Self.maximumInterimResponses) interim (1xx) responses without a final one"
                    ))
            }
            return
        }
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
        // Built before the lock is taken, so that releasing it publishes the response to a caller
        // that takes the lock after its wait (``headTaken()``). Nobody reads a response whose
        // caller has already gone (no continuation): releasing it cancels the transfer.
        let head = ResponseHead(response)
        let answer = TransportResponse(
            head: head, body: ResponseBody(buffer: buffer, expectedLength: head.contentLength))
        let (continuation, early): (CheckedContinuation<TransportResponse, any Error>?, Data) = lock.withLock
        {
            lastActivity = .now
            self.buffer = buffer
            expected = head.contentLength
            defer {
                headContinuation = nil
                self.early = Data()
            }
            return (headContinuation, self.early)
        }
        buffer.yield(early)
        continuation?.resume(returning: answer)
    }

    /// The caller has the response from its continuation. Taking the lock that ``receivedHead(_:)``
    /// released after building the response orders the two threads where the thread sanitizer
    /// cannot see it: it reported the body's fields, written on the delegate queue, as read here
    /// unordered when the head arrived within microseconds of the request (a loopback server).
    func headTaken() {
        lock.withLock {}
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
        if wasStarted { failNow(CancellationError()) }
    }

    /// Ends the call now with `error`, without waiting for URLSession to report the task's end:
    /// the caller waiting for the head, or the body's reader, gets `error` at once, the spooled
    /// request body is released, and the task is cancelled from another thread. URLSession reports
    /// completion on a queue of its own that other work can hold for seconds (Linux runs every
    /// session's completions, and the shared cookie storage's writes, on one serial queue), so a
    /// deadline or a cancellation must not wait for it. ``complete(error:)`` later finds nothing
    /// left to deliver.
    private func failNow(_ error: any Error, cancelOn queue: DispatchQueue = .global()) {
        let (continuation, buffer, cleanup) = lock.withLock {
            defer {
                headContinuation = nil
                self.cleanup = nil
            }
            return (headContinuation, self.buffer, self.cleanup)
        }
        cleanup?()
        if let continuation {
            continuation.resume(throwing: error)
        } else {
            buffer?.finish(error)
        }
        let task = self.task
        queue.async { task.cancel() }
    }

    /// The body's consumer went away, or its sink failed: stop the transfer.
    ///
    /// URLSession's `cancel()` waits for the session's work queue. This may run on the delegate
    /// queue (a sink that failed), and on Linux the work queue may be waiting for the delegate queue
    /// to catch up (`BackpressureOperationQueue`), so the URLSession call is made from another thread.
    private func cancelTransfer() {
        lock.withLock { cancelled = true }
        failNow(CancellationError())
    }

    /// Starts the timer that enforces the idle timeout and the total deadline.
    func startWatchdog(_ timeouts: Timeouts) {
        guard !timeouts.isEmpty else { return }
        let timer = DispatchSource.makeTimerSource(queue: Self.watchdogQueue)
        timer.setEventHandler { [weak self] in self?.watchdogFired() }
        timer.schedule(deadline: .now())
        let armed = lock.withLock {
            // Already over (a fast failure): no timer.
            if isComplete { return false }
            watchdogStart = .now
            watchdogTimeouts = timeouts
            watchdog = timer
            return true
        }
        // A Dispatch source must be activated before its last release, even a cancelled one
        // (releasing an inactive source crashes the process).
        if !armed { timer.cancel() }
        timer.activate()
    }

    /// Checks the timeouts: cancels the task when one passed, else sets the timer for the next check
    /// (at the deadline, or in 250 ms at most, since data may arrive meanwhile).
    private func watchdogFired() {
        let check = lock.withLock { () -> (timer: DispatchSourceTimer, reason: String?, wake: Duration)? in
            guard let watchdog else { return nil }
            // A consumer that lags pauses the transfer; that silence is not the server's.
            if buffer?.isPaused == true { lastActivity = .now }
            var deadline: ContinuousClock.Instant?
            var reason = ""
            if let total = watchdogTimeouts.total {
                deadline = watchdogStart + total
                reason = "the total deadline of \(total.formattedSeconds) elapsed"
            }
            if let idle = watchdogTimeouts.idle, deadline.map({ lastActivity + idle < $0 }) ?? true {
                deadline = lastActivity + idle
                reason = "no data for \(idle.formattedSeconds) (idle timeout)"
            }
            guard let deadline else { return nil }
            let now = ContinuousClock.now
            if now >= deadline {
                timeoutReason = reason
                self.watchdog = nil
                return (watchdog, reason, .zero)
            }
            return (watchdog, nil, min(deadline - now, .milliseconds(250)))
        }
        guard let check else { return }
        if let reason = check.reason {
            check.timer.cancel()
            failNow(NetLayerError.timedOut(reason), cancelOn: Self.timeoutCancelQueue)
            return
        }
        let (seconds, attoseconds) = check.wake.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        check.timer.schedule(deadline: .now() + .nanoseconds(Int(max(1, nanoseconds))))
    }

    /// The task is over: resumes the head continuation, or ends the body, exactly once.
    func complete(error: (any Error)?) {
        let state = lock.withLock {
            defer {
                headContinuation = nil
                watchdog = nil
                cleanup = nil
                isComplete = true
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

import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One delegate-driven task: it hands the head to the caller, then streams the body through a
/// bounded ``BodyBuffer``, reports progress, and enforces the idle timeout and total deadline
/// until the last byte.
///
/// Every decision is made by a ``TaskExchangeStateMachine`` under `state`'s lock; what it returns
/// — resuming the caller, ending the body, `task.resume()` and `task.cancel()`, the cleanup,
/// progress — is done after the lock is released.
final class TaskExchange: Sendable {
    typealias StateMachine = TaskExchangeStateMachine<
        CheckedContinuation<TransportResponse, any Error>, BodyBuffer
    >

    let task: URLSessionTask
    private let state: LockedValue<StateMachine>
    private let progress: ProgressReporter?
    private let uploadLength: Int64?
    private let bufferLimit: Int
    private let spillDirectory: URL
    /// Runs once when the task is over (removes a spooled body).
    private let cleanup: (@Sendable () -> Void)?

    /// The most interim (1xx) responses one call accepts before the final head.
    static var maximumInterimResponses: Int { StateMachine.maximumInterimResponses }

    /// The queue every exchange's watchdog ticks on: each tick is a few reads under a lock. A
    /// Dispatch queue, so it fires on time even when the cooperative pool is busy (a timer task on
    /// the pool fired hundreds of ms late under load).
    private static let watchdogQueue = DispatchQueue(label: "NetLayer.URLSessionTransport.timeouts")

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
        state = LockedValue(StateMachine(hasCleanup: cleanup != nil))
    }

    /// Attaches the continuation and resumes the task, unless the caller was cancelled first.
    /// - Returns: `false` when the caller's task was already cancelled; nothing was started then
    ///   (the cleanup has run).
    func start(_ continuation: CheckedContinuation<TransportResponse, any Error>) -> Bool {
        if case .refused(let runCleanup) = state.withLock({ $0.start(continuation, now: .now) }) {
            if runCleanup { cleanup?() }
            return false
        }
        // Outside the lock: a `cancel()` meanwhile is held back until `resume()` returned (a
        // URLSession task cancelled before it was resumed never reports completion on Linux).
        task.resume()
        if let route = state.withLock({ $0.taskResumed() }) { cancelTask(on: route) }
        return true
    }

    /// A response head arrived: an interim (1xx) one is skipped (RFC 9110 §15.2: never final;
    /// `101 Switching Protocols` ends HTTP on the connection and is handed on as final, for
    /// validation to refuse); the final one goes to the caller with a body that streams from here on.
    func receivedHead(_ response: HTTPURLResponse) {
        if (100..<200).contains(response.statusCode) && response.statusCode != 101 {
            perform(state.withLock { $0.receivedInterimHead(now: .now) })
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
        // caller has already gone: releasing it cancels the transfer, which is over already.
        let head = ResponseHead(response)
        let answer = TransportResponse(
            head: head, body: ResponseBody(buffer: buffer, expectedLength: head.contentLength))
        let action = state.withLock {
            $0.receivedFinalHead(body: buffer, expectedLength: head.contentLength, now: .now)
        }
        perform(action, answer: answer)
    }

    /// The caller has the response from its continuation. Taking the lock that ``receivedHead(_:)``
    /// released after building the response orders the two threads where the thread sanitizer
    /// cannot see it: it reported the body's fields, written on the delegate queue, as read here
    /// unordered when the head arrived within microseconds of the request (a loopback server).
    func headTaken() {
        state.withLock { _ in }
    }

    func receivedBody(_ chunk: Data) {
        perform(state.withLock { $0.receivedBody(chunk, now: .now) })
    }

    func sentBody(total: Int64) {
        if state.withLock({ $0.sentBody(now: .now) }) {
            progress?.reportUpload(sent: total, expected: uploadLength)
        }
    }

    func challenged(_ response: HTTPURLResponse) {
        let head = ResponseHead(response)
        state.withLock { $0.challenged(head) }
    }

    /// Cancels the task because the caller's Swift task was cancelled while waiting for the head.
    ///
    /// Runs inside a task-cancellation handler, which holds the Swift task's lock. URLSession's
    /// `cancel()` waits for the session's work queue, whose thread may itself be waiting for that lock
    /// to resume this task, so the URLSession call is made from another thread.
    func cancel() {
        perform(state.withLock { $0.cancel() })
    }

    /// The body's consumer went away, or its sink failed: stop the transfer.
    ///
    /// URLSession's `cancel()` waits for the session's work queue. This may run on the delegate
    /// queue (a sink that failed), and on Linux the work queue may be waiting for the delegate queue
    /// to catch up (`BackpressureOperationQueue`), so the URLSession call is made from another thread.
    private func cancelTransfer() {
        perform(state.withLock { $0.cancel() })
    }

    /// Starts the watchdog that enforces the idle timeout and the total deadline.
    func startWatchdog(_ timeouts: Timeouts) {
        guard state.withLock({ $0.armWatchdog(timeouts, now: .now) }) else { return }
        Self.watchdogQueue.async { [weak self] in self?.watchdogFired() }
    }

    /// Checks the timeouts: ends the call when one passed, else checks again at the deadline, or in
    /// 250 ms at most, since data may arrive meanwhile. A tick after the end finds nothing to do.
    private func watchdogFired() {
        let paused = state.withLock { $0.streamingBody }?.isPaused ?? false
        switch state.withLock({ $0.watchdogTick(now: .now, bodyPaused: paused) }) {
        case .stop:
            break
        case .timedOut(let action):
            perform(action)
        case .check(let wait):
            let (seconds, attoseconds) = wait.components
            let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
            Self.watchdogQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(max(1, nanoseconds)))) {
                [weak self] in self?.watchdogFired()
            }
        }
    }

    /// The task is over: resumes the head continuation, or ends the body, exactly once.
    func complete(error: (any Error)?) {
        perform(state.withLock { $0.complete(error: error) })
    }

    /// Does what the state machine decided, outside the lock: the cleanup first (a spooled body is
    /// released before the caller hears of the end), then the caller or the body, then the task.
    /// - Parameter answer: The response for a head delivery (built before the lock was taken).
    private func perform(_ action: StateMachine.Action, answer: TransportResponse? = nil) {
        if action.cleanup { cleanup?() }
        switch action.delivery {
        case nil:
            break
        case .head(let continuation, let buffer, let early):
            buffer.yield(early)
            if let answer {
                continuation.resume(returning: answer)
            } else {
                continuation.resume(throwing: URLError(.badServerResponse))
            }
        case .failHead(let continuation, let error):
            continuation.resume(throwing: error)
        case .whole(let continuation, let challenge, let body):
            if let head = challenge ?? (task.response as? HTTPURLResponse).map(ResponseHead.init) {
                continuation.resume(returning: TransportResponse(head: head, body: ResponseBody(body)))
            } else {
                continuation.resume(throwing: URLError(.badServerResponse))
            }
        case .finishBody(let buffer, let error):
            buffer.finish(error)
        case .chunk(let buffer, let chunk):
            buffer.yield(chunk)
        }
        if let progress = action.progress {
            self.progress?.reportDownload(received: progress.received, expected: progress.expected)
        }
        if let route = action.cancelTask { cancelTask(on: route) }
    }

    /// Cancels the URLSession task on a thread of its own, whoever asked (the watchdog, the
    /// caller, a reader that stopped or hit its limit). `cancel()` can wait for URLSession's own
    /// queue, so it never runs on the watchdog's queue or under a lock; and a thread of its own
    /// always starts, where the global queues held back new work while the cooperative pool was
    /// busy (a timed-out transfer stayed open for 1.8 s; a limited call's transfer ran to 321 MB
    /// under a full parallel test run), and where one serial queue let one slow `cancel()` hold
    /// back the next (142 MB). A cancellation is rare next to the calls, so a thread each costs
    /// little.
    private func cancelTask(on route: StateMachine.CancelRoute) {
        let task = self.task
        Thread.detachNewThread { task.cancel() }
    }
}

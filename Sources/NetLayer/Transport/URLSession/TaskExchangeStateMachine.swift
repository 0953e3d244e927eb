import Foundation

/// The decisions of a ``TaskExchange``, without its I/O: one URLSession task from `resume()` to
/// its end, as a state enum and a few facts beside it. Each method takes one event (from the
/// caller, the session delegate or the watchdog) and returns what the exchange must do; the exchange
/// calls it under its lock and does the work — resuming the caller, ending the body, cancelling or
/// resuming the task, running the cleanup, reporting progress — after releasing it. Generic over
/// the caller's continuation and the body, so tests drive it with plain values.
///
/// ```
/// idle ──start──▶ waitingForHead ──final head──▶ streaming ──complete──▶ finished
///   │                  │ │                          │
///   │ cancel           │ └──complete (no head)──────┼──────────────────▶ finished
///   ▼                  └──cancel / timeout──▶ failed ◀──cancel / timeout─┘   │
/// cancelledBeforeStart                          └──────complete────────────▶ finished
/// ```
/// The caller's continuation is resumed exactly once (the head, the whole response, or an error),
/// the body is ended exactly once, the cleanup runs once and the task is cancelled at most once;
/// a second completion, or any event after the end, changes nothing.
struct TaskExchangeStateMachine<Waiter, Body> {
    /// Where the task is.
    enum Phase {
        /// Made, not started.
        case idle
        /// The caller was cancelled before the start: nothing is started.
        case cancelledBeforeStart
        /// The task runs and the caller waits for the head; body bytes before it are kept in `early`.
        case waitingForHead(Waiter, early: Data)
        /// The caller has the head; the body streams through `Body`.
        case streaming(Body)
        /// Ended early (a cancellation, a timeout, too many interim heads); the caller or the body
        /// already has the error. URLSession's report of the end is still awaited.
        case failed
        /// URLSession reported the end.
        case finished
    }

    /// Which queue the task's `cancel()` goes to.
    enum CancelRoute: Equatable {
        /// A global queue: a slow `cancel()` holds back nothing else.
        case global
        /// The watchdog's own cancel queue: a timeout's cancel always gets a thread.
        case timeouts
    }

    /// What the caller or the body gets.
    enum Delivery {
        /// Resume the caller with the head, a body that streams through `Body`, and the bytes that
        /// arrived before the head (hand them to the body first).
        case head(Waiter, Body, early: Data)
        /// Resume the caller with this error.
        case failHead(Waiter, any Error)
        /// The task ended before a head was handed on: resume the caller with the challenge's 401
        /// head, or else the task's own response, and the whole `body`.
        case whole(Waiter, challenge: ResponseHead?, body: Data)
        /// End the body, with an error or not.
        case finishBody(Body, (any Error)?)
        /// Hand a chunk to the body.
        case chunk(Body, Data)
    }

    /// What the exchange does after an event.
    struct Action {
        /// What the caller or the body gets.
        var delivery: Delivery?
        /// Run the cleanup (remove a spooled request body): once.
        var cleanup = false
        /// Cancel the URLSession task on this queue: once.
        var cancelTask: CancelRoute?
        /// Report download progress: bytes received so far and the expected total.
        var progress: (received: Int64, expected: Int64?)?

        static var none: Action { Action() }
    }

    /// What starting decides.
    enum StartAction: Equatable {
        /// Resume the task.
        case resumeTask
        /// Nothing starts; run the cleanup when `cleanup`.
        case refused(cleanup: Bool)
    }

    /// What a watchdog tick decides.
    enum WatchdogDecision {
        /// No watchdog, or the exchange is over: stop ticking.
        case stop
        /// Nothing passed: check again after this long.
        case check(after: Duration)
        /// A limit passed: fail the call with this error and do `action`.
        case timedOut(Action)
    }

    /// The most interim (1xx) responses one call accepts before the final head: a server that
    /// sends `102 Processing` without end fails the call instead of holding it.
    static var maximumInterimResponses: Int { 64 }

    private(set) var phase: Phase = .idle
    /// The caller (or the body's consumer) cancelled.
    private(set) var cancelled = false
    /// Why the watchdog ended the call, once it did.
    private(set) var timeoutReason: String?
    /// The 401 the session delegate answered a challenge for (Linux), once it did.
    private(set) var challenge: ResponseHead?
    /// `task.resume()` is running (outside the lock): a cancel meanwhile is deferred until it returned.
    private var resuming = false
    private var cancelAfterResume: CancelRoute?
    private var taskCancelled = false
    private var cleanupPending: Bool
    private var received: Int64 = 0
    private var expected: Int64?
    private var interimHeads = 0
    private var lastActivity: ContinuousClock.Instant
    private var watchdog: (start: ContinuousClock.Instant, timeouts: Timeouts)?

    /// - Parameter hasCleanup: Whether there is a cleanup to run once the call is over.
    init(hasCleanup: Bool, now: ContinuousClock.Instant = .now) {
        cleanupPending = hasCleanup
        lastActivity = now
    }

    /// Whether the exchange still waits for the head or streams the body.
    var isLive: Bool {
        switch phase {
        case .waitingForHead, .streaming: true
        case .idle, .cancelledBeforeStart, .failed, .finished: false
        }
    }

    /// The body while it streams (the watchdog asks whether it is paused).
    var streamingBody: Body? {
        if case .streaming(let body) = phase { return body }
        return nil
    }

    // MARK: Caller

    /// The caller starts the exchange with `waiter`. `.refused` when it was cancelled first (or
    /// the watchdog ended it): nothing is started, and `cleanup` says whether to run the cleanup.
    /// `.resumeTask`: resume the task (outside the lock), then send ``taskResumed()``.
    mutating func start(_ waiter: Waiter, now: ContinuousClock.Instant) -> StartAction {
        guard case .idle = phase else { return .refused(cleanup: takeCleanup()) }
        phase = .waitingForHead(waiter, early: Data())
        resuming = true
        lastActivity = now
        return .resumeTask
    }

    /// `task.resume()` returned: a cancellation that came meanwhile reaches the task now (a task
    /// cancelled before it was resumed never reports completion on Linux).
    mutating func taskResumed() -> CancelRoute? {
        resuming = false
        defer { cancelAfterResume = nil }
        return cancelAfterResume
    }

    /// The caller's task was cancelled, or the body's consumer went away (or its sink failed).
    mutating func cancel() -> Action {
        cancelled = true
        if case .idle = phase {
            phase = .cancelledBeforeStart
            return .none
        }
        return fail(CancellationError(), cancelOn: .global)
    }

    /// Ends the call now with `error`, without waiting for URLSession to report the task's end.
    private mutating func fail(_ error: any Error, cancelOn route: CancelRoute) -> Action {
        var action = Action()
        switch phase {
        case .waitingForHead(let waiter, _):
            action.delivery = .failHead(waiter, error)
        case .streaming(let body):
            action.delivery = .finishBody(body, error)
        case .idle, .failed:
            break
        case .cancelledBeforeStart, .finished:
            // Never resumed (left alone), or over: nothing to end, nothing to cancel.
            return action
        }
        phase = .failed
        watchdog = nil
        action.cleanup = takeCleanup()
        if !taskCancelled {
            taskCancelled = true
            if resuming {
                cancelAfterResume = route
            } else {
                action.cancelTask = route
            }
        }
        return action
    }

    private mutating func takeCleanup() -> Bool {
        defer { cleanupPending = false }
        return cleanupPending
    }

    // MARK: Session delegate

    /// An interim (1xx) head arrived: skipped, unless there were too many.
    mutating func receivedInterimHead(now: ContinuousClock.Instant) -> Action {
        guard isLive else { return .none }
        lastActivity = now
        interimHeads += 1
        guard interimHeads > Self.maximumInterimResponses else { return .none }
        return fail(
            NetLayerError(
                .transport,
                "the server sent more than \(Self.maximumInterimResponses) interim (1xx) responses without a final one"
            ), cancelOn: .global)
    }

    /// The final head arrived, with `body` ready to stream it and its announced length.
    /// `.head` when the caller still waits; nothing otherwise (the body is dropped).
    mutating func receivedFinalHead(body: Body, expectedLength: Int64?, now: ContinuousClock.Instant)
        -> Action
    {
        guard case .waitingForHead(let waiter, let early) = phase else { return .none }
        lastActivity = now
        expected = expectedLength
        phase = .streaming(body)
        var action = Action()
        action.delivery = .head(waiter, body, early: early)
        return action
    }

    /// Body bytes arrived: kept until the head, then handed to the body; progress is reported
    /// while the call is live.
    mutating func receivedBody(_ chunk: Data, now: ContinuousClock.Instant) -> Action {
        var action = Action()
        switch phase {
        case .waitingForHead(let waiter, var early):
            // Out of the enum while appending, so the bytes are not copied.
            phase = .idle
            early.append(chunk)
            phase = .waitingForHead(waiter, early: early)
        case .streaming(let body):
            action.delivery = .chunk(body, chunk)
        case .idle, .cancelledBeforeStart, .failed, .finished:
            return action
        }
        lastActivity = now
        received += Int64(chunk.count)
        action.progress = (received, expected)
        return action
    }

    /// Request body bytes went out: whether to report upload progress.
    mutating func sentBody(now: ContinuousClock.Instant) -> Bool {
        guard isLive else { return false }
        lastActivity = now
        return true
    }

    /// The session delegate answered an authentication challenge for this 401 (Linux).
    mutating func challenged(_ head: ResponseHead) {
        challenge = head
    }

    /// URLSession reported the task's end, with `error` or not. The first report counts; a second
    /// changes nothing.
    mutating func complete(error: (any Error)?) -> Action {
        var action = Action()
        if case .finished = phase { return action }
        let previous = phase
        phase = .finished
        watchdog = nil
        action.cleanup = takeCleanup()
        let cancelledByURLSession = (error as? URLError)?.code == .cancelled
        let failure: (any Error)? =
            if let timeoutReason {
                NetLayerError.timedOut(timeoutReason)
            } else if cancelled {
                CancellationError()
            } else if challenge != nil && (cancelledByURLSession || error == nil) {
                nil
            } else {
                error
            }
        switch previous {
        case .streaming(let body):
            action.delivery = .finishBody(body, failure)
        case .waitingForHead(let waiter, let early):
            if let failure {
                action.delivery = .failHead(waiter, failure)
            } else {
                action.delivery = .whole(waiter, challenge: challenge, body: early)
            }
        case .idle, .cancelledBeforeStart, .failed, .finished:
            break
        }
        return action
    }

    // MARK: Watchdog

    /// Arms the watchdog with `timeouts`. Returns whether to start ticking (not when the call is
    /// already over, or there is nothing to enforce).
    mutating func armWatchdog(_ timeouts: Timeouts, now: ContinuousClock.Instant) -> Bool {
        guard !timeouts.isEmpty, isWatchable else { return false }
        watchdog = (now, timeouts)
        return true
    }

    /// Whether the watchdog has anything to watch: a task started or about to be.
    private var isWatchable: Bool {
        if case .idle = phase { return true }
        return isLive
    }

    /// A watchdog tick at `now`; `bodyPaused`: the body's consumer lags and the transfer is paused
    /// (that silence is not the server's).
    mutating func watchdogTick(now: ContinuousClock.Instant, bodyPaused: Bool) -> WatchdogDecision {
        guard let watchdog, isWatchable else {
            self.watchdog = nil
            return .stop
        }
        if bodyPaused { lastActivity = now }
        var deadline: ContinuousClock.Instant?
        var reason = ""
        if let total = watchdog.timeouts.total {
            deadline = watchdog.start + total
            reason = "the total deadline of \(total.formattedSeconds) elapsed"
        }
        if let idle = watchdog.timeouts.idle, deadline.map({ lastActivity + idle < $0 }) ?? true {
            deadline = lastActivity + idle
            reason = "no data for \(idle.formattedSeconds) (idle timeout)"
        }
        guard let deadline else {
            self.watchdog = nil
            return .stop
        }
        if now < deadline { return .check(after: min(deadline - now, .milliseconds(250))) }
        timeoutReason = reason
        return .timedOut(fail(NetLayerError.timedOut(reason), cancelOn: .timeouts))
    }
}

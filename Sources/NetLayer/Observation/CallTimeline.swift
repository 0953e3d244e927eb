import Foundation

/// A call's timeline as its record keeps it: the ``CallMetrics`` so far, and how its attempts are
/// numbered and why they were sent. Lives in ``AttemptRecord``'s state, under its lock: recording
/// an event costs a lock and a clock read, and nothing is allocated for it.
///
/// Every event of a call goes through here — the one internal sink of observation. The record's
/// methods below are called by the transport stage (attempts, responses, admission waits), by the
/// bodies it receives (``BodyTap``: an attempt ends when its body does), by the retry stage and
/// by whatever ends the call (the collecting verbs, the stream readers, an event stream, a
/// download). When an observer watches the call, each method also queues the event for it
/// (``ObservedCall``), under the record's lock, so events are queued in the order they happened.
struct Timeline {
    var metrics: CallMetrics
    /// Attempts started so far (their numbers run from 1).
    var started = 0
    /// The retry policy's attempt of the latest first hop (a second first hop within the same
    /// retry attempt is a replay).
    var retryAttempt = 0
    /// Why the next attempt is sent, when the stage or consumer that sends it knows better than
    /// the transport stage (a retry, a reconnection, a restart).
    var nextReason: AttemptReason?
    /// The attempt whose response the consumer holds (0: none yet); cancelling its body is the
    /// consumer stopping, cancelling another's is NetLayer setting it aside.
    var handedOver = 0
    /// An attempt the consumer set aside itself (a restart, a rejected event stream).
    var setAside = 0
    /// The call ended: the metrics are final and nothing more is delivered.
    var ended = false

    init(start: ContinuousClock.Instant) { metrics = CallMetrics(start: start) }

    /// The metrics as of `now`: a running attempt's duration, and the call's, counted until then.
    func metrics(at now: ContinuousClock.Instant) -> CallMetrics {
        if ended { return metrics }
        var current = metrics
        current.duration = now - metrics.start
        if var last = current.lastAttempt, last.end == nil {
            last.duration = now - (metrics.start + last.start)
            current.lastAttempt = last
        }
        return current
    }
}

/// One event waiting for delivery.
enum ObservationEvent: Sendable {
    case admissionWaited(AdmissionWaited)
    case attemptStarted(AttemptStarted)
    case headReceived(HeadReceived)
    case attemptFinished(AttemptFinished)
    case callFinished(CallFinished)
}

/// The observer of one call, its events not delivered yet, and what they need. Made only when an
/// observer is installed, so a call without one carries none of this.
///
/// Locks, always taken in this order: the record's (events are queued under it) ▸ `delivery`
/// (held while events are handed to the observer) ▸ `queue`.
final class ObservedCall: Sendable {
    /// Receives this call's events (what ``CallObserver/callStarted(_:)`` returned).
    let observer: any CallObserver
    let id: CallID
    /// The resource's redaction (observers cannot set credentials).
    let redaction: Redaction
    /// Held while events are delivered, so a call's events never overlap.
    private let delivery = LockedValue(())
    private let queue = LockedValue(Queue())

    private struct Queue {
        /// Events not delivered yet, oldest first.
        var pending: [ObservationEvent] = []
        /// The thread delivering this call's events now, if any.
        var deliveringThread: ThreadIdentity?
        /// The fields the observer added to an attempt.
        var injected: (attempt: Int, fields: HeaderFields)?
        /// The redactor of the latest attempt (its response head is redacted the same way).
        var redactor: (attempt: Int, redactor: Redactor)?
    }

    /// The call's redactor as it started, the header fields it was built from, and its URL as
    /// printed: an attempt that sends those same fields (no interceptor or authenticator added
    /// any) reuses them instead of building them again.
    private let start: Start

    private struct Start {
        let redactor: Redactor
        let headers: HeaderFields
        let url: URL
        let printedURL: String
        let host: String
        let port: Int
    }

    private init(observer: any CallObserver, id: CallID, start: Start) {
        self.observer = observer
        self.id = id
        self.redaction = start.redactor.redaction
        self.start = start
    }

    /// Tells `observer` the call starts. The redactor (built by `makeRedactor`), the printed URL,
    /// host and port are worked out only when the observer reads them or observes the call.
    /// - Returns: The observation of the call; `nil` when the observer ignores it.
    static func start(
        _ observer: any CallObserver, request: TransportRequest, pathTemplate: String,
        start: ContinuousClock.Instant, makeRedactor: @escaping @Sendable () -> Redactor
    ) -> ObservedCall? {
        let url = request.url
        let details = CallStarted.Details(url: url, makeRedactor: makeRedactor)
        let event = CallStarted(
            callID: CallID.next(), method: request.method, pathTemplate: pathTemplate, start: start,
            details: details)
        guard let receiver = observer.callStarted(event) else { return nil }
        let values = details.values
        return ObservedCall(
            observer: receiver, id: event.callID,
            start: Start(
                redactor: values.redactor, headers: request.headerFields, url: url,
                printedURL: values.printedURL, host: values.host, port: values.port))
    }

    /// `url`'s host and port (the call's own, worked out once, when it is the call's URL).
    func hostAndPort(of url: URL) -> (String, Int) {
        url == start.url ? (start.host, start.port) : (url.host ?? "", url.effectivePort)
    }

    /// Whether an attempt whose record holds `blocks` can use the call's first redactor: every
    /// header block sent is the one the call started with.
    func startRedactorFits(_ blocks: [HeaderFields]) -> Bool { blocks.allSatisfy { $0 == start.headers } }

    /// The redactor for an attempt (see ``startRedactorFits(_:)``), and `url` as it prints.
    func redaction(for url: URL, fits: Bool, otherwise build: () -> Redactor) -> (Redactor, String) {
        guard fits else {
            let redactor = build()
            return (redactor, redactor.url(url))
        }
        return (start.redactor, url == start.url ? start.printedURL : start.redactor.url(url))
    }

    /// Keeps attempt `number`'s redactor for its response head.
    func keep(_ redactor: Redactor, for number: Int) { queue.withLock { $0.redactor = (number, redactor) } }

    /// Attempt `number`'s redactor, if it was kept.
    func redactor(for number: Int) -> Redactor? {
        queue.withLock { queue in queue.redactor.flatMap { $0.attempt == number ? $0.redactor : nil } }
    }

    /// Queues `event` (called under the record's lock, so events queue in the order they happened).
    func enqueue(_ event: ObservationEvent) { queue.withLock { $0.pending.append(event) } }

    /// The fields the observer added to attempt `number`, taken once.
    func takeInjected(for number: Int) -> HeaderFields? {
        queue.withLock { queue in
            guard let injected = queue.injected, injected.attempt == number else { return nil }
            queue.injected = nil
            return injected.fields
        }
    }

    /// Delivers the pending events, one at a time and in order. Another thread delivering them is
    /// waited for (and then nothing may be left); an event raised by an observer's own callback is
    /// delivered by the loop that runs it, after the callback returns.
    func deliver() {
        let current = ThreadIdentity.current
        if queue.withLock({ $0.deliveringThread == current }) { return }
        delivery.withLock { _ in
            while true {
                let event: ObservationEvent? = queue.withLock { queue in
                    if queue.pending.isEmpty {
                        queue.deliveringThread = nil
                        return nil
                    }
                    queue.deliveringThread = current
                    return queue.pending.removeFirst()
                }
                guard let event else { return }
                if let fields = dispatch(event), case .attemptStarted(let started) = event {
                    queue.withLock { $0.injected = (started.number, fields) }
                }
            }
        }
    }

    /// Hands one event to the observer; returns the fields an attempt's observer added.
    private func dispatch(_ event: ObservationEvent) -> HeaderFields? {
        switch event {
        case .admissionWaited(let event): observer.admissionWaited(event)
        case .attemptStarted(let event):
            var headers = AttemptHeaders(redaction: redaction)
            observer.attemptStarted(event, headers: &headers)
            return headers.fields
        case .headReceived(let event): observer.headReceived(event)
        case .attemptFinished(let event): observer.attemptFinished(event)
        case .callFinished(let event): observer.callFinished(event)
        }
        return nil
    }
}

extension Timeline {
    /// Numbers and records a new attempt (see ``AttemptRecord/attemptStarting(_:context:redactor:)``).
    /// - Returns: `nil` once the call ended.
    mutating func startAttempt(
        context: InterceptorContext, redirect: Int?, bodyLength: Int64, at now: ContinuousClock.Instant,
        observed: ObservedCall?
    ) -> (number: Int, reason: AttemptReason, start: Duration)? {
        guard !ended else { return nil }
        started += 1
        let number = started
        let previous = metrics.lastAttempt
        let reason: AttemptReason
        if let next = nextReason {
            reason = next
            nextReason = nil
        } else if context.isFollowUpHop {
            reason = AttemptReason(kind: .redirect, statusCode: redirect, errorCode: nil)
        } else if number == 1 {
            reason = .first
        } else if context.attempt > retryAttempt {
            reason = AttemptReason(
                kind: .retry, statusCode: previous?.statusCode, errorCode: previous?.errorCode)
        } else {
            reason = AttemptReason(kind: .replay, statusCode: previous?.statusCode, errorCode: nil)
        }
        if !context.isFollowUpHop { retryAttempt = context.attempt }
        if var previous {
            // Not ended yet (nothing should leave one so): set aside now.
            if previous.end == nil {
                finish(&previous, .setAside, errorCode: nil, received: previous.bytesReceived, at: now)
                if let observed { observed.enqueue(.attemptFinished(previous.finished(observed.id))) }
            }
            metrics.earlierAttempts.append(previous)
        }
        let start = now - metrics.start
        metrics.lastAttempt = AttemptMetrics(
            number: number, reason: reason, start: start, duration: .zero, bytesSent: bodyLength,
            bytesReceived: 0)
        return (number, reason, start)
    }

    /// Records attempt `number`'s head. - Returns: Its time to first byte; `nil` when the attempt
    /// is not the running one.
    mutating func head(of number: Int, status: Int, at now: ContinuousClock.Instant) -> Duration? {
        guard !ended, var last = metrics.lastAttempt, last.number == number, last.end == nil else {
            return nil
        }
        let ttfb = now - (metrics.start + last.start)
        last.timeToFirstByte = ttfb
        last.statusCode = status
        metrics.lastAttempt = last
        return ttfb
    }

    /// Ends attempt `number` as its body ended. - Returns: Whether an event was queued.
    mutating func endAttempt(
        _ number: Int, _ ending: BodyEnding, received: Int64, at now: ContinuousClock.Instant,
        observed: ObservedCall?
    ) -> Bool {
        guard !ended, var last = metrics.lastAttempt, last.number == number, last.end == nil else {
            return false
        }
        let end: AttemptEnd
        var code: NetLayerError.Code?
        switch ending {
        case .completed: end = .completed
        case .failed(let failure):
            end = .failed
            code = failure
        case .cancelled:
            end = handedOver == number && setAside != number ? .stopped : .setAside
        }
        finish(&last, end, errorCode: code, received: received, at: now)
        metrics.lastAttempt = last
        guard let observed else { return false }
        observed.enqueue(.attemptFinished(last.finished(observed.id)))
        return true
    }

    /// Ends the call (see ``AttemptRecord/endCall(_:)``). - Returns: The call's duration, and
    /// whether events were queued.
    mutating func endCall(
        _ error: NetLayerError.Code?, at now: ContinuousClock.Instant, observed: ObservedCall?
    )
        -> (Duration, Bool)
    {
        if ended { return (metrics.duration, false) }
        if var last = metrics.lastAttempt, last.end == nil {
            finish(
                &last, error == nil ? .stopped : .failed, errorCode: error, received: last.bytesReceived,
                at: now)
            metrics.lastAttempt = last
            if let observed { observed.enqueue(.attemptFinished(last.finished(observed.id))) }
        }
        metrics.duration = now - metrics.start
        ended = true
        guard let observed else { return (metrics.duration, false) }
        observed.enqueue(
            .callFinished(
                CallFinished(
                    callID: observed.id, statusCode: metrics.lastAttempt?.statusCode, errorCode: error,
                    attempts: started, duration: metrics.duration, metrics: metrics)))
        return (metrics.duration, true)
    }

    /// Ends `attempt` at `now`.
    func finish(
        _ attempt: inout AttemptMetrics, _ end: AttemptEnd, errorCode: NetLayerError.Code?, received: Int64,
        at now: ContinuousClock.Instant
    ) {
        attempt.end = end
        attempt.errorCode = errorCode
        attempt.bytesReceived = received
        attempt.duration = now - (metrics.start + attempt.start)
    }
}

extension AttemptMetrics {
    /// The event telling this (ended) attempt's end.
    func finished(_ id: CallID) -> AttemptFinished {
        AttemptFinished(
            callID: id, attempt: number, end: end ?? .stopped, errorCode: errorCode, statusCode: statusCode,
            bytesSent: bytesSent, bytesReceived: bytesReceived, duration: duration)
    }
}

extension Redactor {
    /// Header fields as an observer sees them: secret values replaced, known secrets masked, and a
    /// `Location` or `Content-Location` redacted as a URL (no user info, secret query values
    /// replaced) even when the server made its secrets up.
    func printed(_ fields: HeaderFields) -> HeaderFields {
        HeaderFields(
            received: fields.fields.map { field in
                var value = field.value
                if field.name.caseInsensitiveEquals("Location")
                    || field.name.caseInsensitiveEquals("Content-Location")
                {
                    if value.contains("@"), let url = URL(string: value),
                        url.user != nil || url.password != nil
                    {
                        value = redaction.url(url)
                    } else if let mark = value.firstIndex(of: "?") {
                        value =
                            value[..<mark] + "?"
                            + redaction.formText(String(value[value.index(after: mark)...]))
                    }
                }
                return (mask(field.name), headerValue(value, for: field.name))
            })
    }
}

extension URL {
    /// The port, or the scheme's default (443 for https and wss, else 80).
    var effectivePort: Int {
        if let port { return port }
        switch scheme?.lowercased() {
        case "https", "wss": return 443
        default: return 80
        }
    }
}

extension NetLayerError.Code {
    /// The kind of any error a transfer or a stage throws.
    static func of(_ error: any Error) -> NetLayerError.Code {
        if let known = error as? NetLayerError { return known.code }
        if error is CancellationError { return .cancelled }
        if let urlError = error as? URLError {
            switch urlError.code {
            case .cancelled: return .cancelled
            case .timedOut: return .timedOut
            default: return .transport
            }
        }
        return .transport
    }
}

import Foundation

// What the call's record does with its timeline (see `CallTimeline.swift`): the methods the
// stages, the bodies and the consumers call, each recording under the record's lock and queueing
// the event for an observer.
extension AttemptRecord {
    /// The call waited for admission of its next attempt from `from` to `until`.
    func waited(_ kind: AdmissionWait.Kind, from: ContinuousClock.Instant, until: ContinuousClock.Instant) {
        let observed = self.observed
        let queued = state.withLock { state in
            guard !state.timeline.ended else { return false }
            let wait = AdmissionWait(
                kind: kind, attempt: state.timeline.started + 1, start: from - state.timeline.metrics.start,
                duration: until - from)
            state.timeline.metrics.admissionWaits.append(wait)
            guard let observed else { return false }
            observed.enqueue(.admissionWaited(AdmissionWaited(callID: observed.id, wait: wait)))
            return true
        }
        if queued { observed?.deliver() }
    }

    /// The next attempt is sent for `reason` (a retry, a reconnection, a restart).
    func nextAttempt(_ reason: AttemptReason) { state.withLock { $0.timeline.nextReason = reason } }

    /// An attempt passed admission and is about to go to the transport: numbers it, records why it
    /// is sent, and lets the observer add fields to `request` (trace context).
    /// - Returns: The attempt's number.
    func attemptStarting(
        _ request: inout TransportRequest, context: InterceptorContext, redactor: () -> Redactor
    ) -> Int {
        let now = ContinuousClock.now
        let bodyLength = request.body?.length ?? 0
        let observed = self.observed
        let (started, fits) = state.withLock { state in
            if !context.isFollowUpHop { state.attempts += 1 }
            // The exchange's time, as debug output prints it, starts now.
            state.sentAt = now
            let started = state.timeline.startAttempt(
                context: context, redirect: state.redirects.last?.statusCode, bodyLength: bodyLength, at: now,
                observed: observed)
            return (started, observed?.startRedactorFits(state.sentBlocks) ?? false)
        }
        guard let started, let observed else { return started?.number ?? 0 }
        let url = request.url
        let (redactor, printedURL) = observed.redaction(for: url, fits: fits, otherwise: redactor)
        observed.keep(redactor, for: started.number)
        let (host, port) = observed.hostAndPort(of: url)
        let event = AttemptStarted(
            callID: observed.id, number: started.number, reason: started.reason, method: request.method,
            url: printedURL, host: host, port: port,
            headers: redactor.printed(request.headerFields), bodyLength: bodyLength, start: started.start)
        guard enqueue(.attemptStarted(event), to: observed) else { return started.number }
        observed.deliver()
        if let injected = observed.takeInjected(for: started.number), !injected.isEmpty {
            request.headerFields.merge(injected)
            let sent = request
            state.withLock { $0.lastRequest = sent }
        }
        return started.number
    }

    /// Attempt `number`'s response arrived: records its head, and taps its body so the attempt
    /// ends when the body does (a body already in memory ends it now, under the same lock).
    func received(_ number: Int, _ response: TransportResponse, redactor: () -> Redactor) {
        let now = ContinuousClock.now
        let head = response.head
        let whole = response.body.bufferedCount
        let observed = self.observed
        let ttfb = state.withLock { state in
            let ttfb = state.timeline.head(of: number, status: head.statusCode, at: now)
            if ttfb != nil, observed == nil, let whole {
                _ = state.timeline.endAttempt(
                    number, .completed, received: Int64(whole), at: now, observed: nil)
            }
            return ttfb
        }
        if let ttfb, let observed {
            let event = HeadReceived(
                callID: observed.id, attempt: number, statusCode: head.statusCode,
                headers: (observed.redactor(for: number) ?? redactor()).printed(head.headerFields),
                httpVersion: head.httpVersion,
                timeToFirstByte: ttfb)
            if enqueue(.headReceived(event), to: observed) { observed.deliver() }
        }
        if observed != nil || whole == nil { response.body.observe(BodyTap(record: self, attempt: number)) }
    }

    /// Attempt `number` ended as its body did (or as the transport failed: `.failed`).
    func attemptEnded(_ number: Int, _ ending: BodyEnding, received: Int64) {
        let now = ContinuousClock.now
        let observed = self.observed
        let queued = state.withLock {
            $0.timeline.endAttempt(number, ending, received: received, at: now, observed: observed)
        }
        if queued { observed?.deliver() }
    }

    /// What an opened call takes from its record.
    struct HandedOver {
        var lastRequest: TransportRequest
        var redirects: [Redirect]
        var attempts: Int
        var note: String?
        var sentHeaders: HeaderFields
        var sentBlocks: [HeaderFields]
    }

    /// The response of the latest attempt goes to the consumer: cancelling its body from now on is
    /// the consumer stopping. - Returns: What the attempts left behind (one lock for both; the
    /// timeline is not copied).
    func handOver() -> HandedOver {
        state.withLock { state in
            state.timeline.handedOver = state.timeline.metrics.lastAttempt?.number ?? 0
            return HandedOver(
                lastRequest: state.lastRequest, redirects: state.redirects, attempts: state.attempts,
                note: state.note, sentHeaders: state.sentHeaders, sentBlocks: state.sentBlocks)
        }
    }

    /// The consumer sets the response it holds aside (to restart, or to reject it).
    func setAside() {
        state.withLock { $0.timeline.setAside = $0.timeline.handedOver }
    }

    /// The call's metrics so far (final once it ended).
    var metrics: CallMetrics { state.withLock { $0.timeline.metrics(at: .now) } }

    /// Ends the call, once: the metrics become final and the observer hears ``CallFinished``
    /// (after the end of an attempt still running, which failed with the call's error, or
    /// stopped).
    /// - Parameter error: Why the call failed; `nil` when it succeeded.
    /// - Returns: The call's duration (the same on every later call).
    @discardableResult
    func endCall(_ error: NetLayerError.Code?) -> Duration {
        let now = ContinuousClock.now
        let observed = self.observed
        let (duration, queued) = state.withLock { $0.timeline.endCall(error, at: now, observed: observed) }
        if queued { observed?.deliver() }
        return duration
    }

    /// Queues `event` unless the call ended.
    private func enqueue(_ event: ObservationEvent, to observed: ObservedCall) -> Bool {
        state.withLock { state in
            guard !state.timeline.ended else { return false }
            observed.enqueue(event)
            return true
        }
    }
}

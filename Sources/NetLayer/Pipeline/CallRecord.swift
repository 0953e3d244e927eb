import Foundation

/// What the stages of one call share: who the call is, when it started, its log, and what its
/// attempts left behind. Made once per call and carried in ``InterceptorContext``.
final class CallRecord: Sendable {
    /// The service: its transport, limiter and retry budget.
    let resource: Resource
    /// The request as prepared, before any stage changed it (for errors and printing).
    let prepared: PreparedRequest
    /// The values of the path's tokens, for the redactor.
    let pathParts: [String: any ParamConvertible]
    /// The call's retry policy (``RetryPolicy/none`` when it has none).
    let retryPolicy: RetryPolicy
    /// How the call follows redirects.
    let redirectPolicy: RedirectPolicy
    /// Whether the call may be sent more than once.
    let isIdempotent: Bool
    /// When the call started (its total deadline counts from here).
    let start: ContinuousClock.Instant
    /// Prints the exchange when debugging is on.
    let log: RequestLog?
    /// Set for a collected call with a response limit: the retry stage reads each attempt's body
    /// itself, up to this many bytes, so a body cut short is a failed attempt the policy may retry.
    let collectLimit: Int?
    /// What the attempts left behind.
    let attempts: AttemptRecord

    init(
        resource: Resource, prepared: PreparedRequest, pathParts: [String: any ParamConvertible],
        retryPolicy: RetryPolicy, redirectPolicy: RedirectPolicy, isIdempotent: Bool,
        start: ContinuousClock.Instant, log: RequestLog?, collectLimit: Int?,
        attempts: AttemptRecord
    ) {
        self.resource = resource
        self.prepared = prepared
        self.pathParts = pathParts
        self.retryPolicy = retryPolicy
        self.redirectPolicy = redirectPolicy
        self.isIdempotent = isIdempotent
        self.start = start
        self.log = log
        self.collectLimit = collectLimit
        self.attempts = attempts
    }

    /// The redactor of `prepared` with this call's path parts and the resource's redaction.
    func redactor(for prepared: PreparedRequest) -> Redactor {
        Redactor(prepared, pathParts: pathParts, redaction: resource.options.redaction)
    }

    /// The prepared request with every header block sent so far, for redaction.
    var sentPrepared: PreparedRequest {
        var sent = prepared
        let state = attempts.snapshot
        sent.headers.merge(state.sentHeaders)
        sent.sentHeaderBlocks = state.sentBlocks
        return sent
    }
}

/// What the attempts of one call left behind: the last request sent, its redirects, how many
/// attempts reached the transport, why a retry did not happen, and the call's timeline (its
/// ``CallMetrics``, and the events for its observer). Copies share one record (the state is one
/// locked buffer: a single allocation per call).
///
/// A call that opens more than once (an event stream's reconnections, a download's restart) keeps
/// one record, so its timeline and its observer's events span every connection.
struct AttemptRecord: Sendable {
    struct State {
        var lastRequest: TransportRequest
        var redirects: [Redirect] = []
        var attempts = 0
        var note: String?
        var sentHeaders = HeaderFields()
        /// Every attempt's header block as sent (a replay's refreshed credentials included).
        var sentBlocks: [HeaderFields] = []
        /// When the last request (attempt or redirect hop) went to the transport, after admission.
        var sentAt: ContinuousClock.Instant?
        /// The call's timeline and observation (see `Observation/CallTimeline.swift`).
        var timeline: Timeline
    }
    let state: LockedValue<State>
    /// The call's observer and what its events need; `nil` when nothing observes the call.
    let observed: ObservedCall?

    init(_ request: TransportRequest, start: ContinuousClock.Instant, observed: ObservedCall? = nil) {
        state = LockedValue(State(lastRequest: request, timeline: Timeline(start: start)))
        self.observed = observed
    }

    /// The call opens again with `request` (a reconnection, a restart): what the last opening
    /// left behind, but the timeline and the credentials sent, is forgotten.
    func reopen(_ request: TransportRequest) {
        state.withLock { state in
            state.lastRequest = request
            state.redirects = []
            state.note = nil
            state.timeline.retryAttempt = 0
        }
    }

    /// Everything at once (one lock instead of one per field).
    var snapshot: State { state.withLock { $0 } }
    var lastRequest: TransportRequest { state.withLock { $0.lastRequest } }
    var redirects: [Redirect] { state.withLock { $0.redirects } }
    var attempts: Int { state.withLock { $0.attempts } }
    /// Appended to the final error: why it was not retried.
    var note: String? { state.withLock { $0.note } }
    /// Headers added on the way (an authenticator's), so their values are redacted too.
    var sentHeaders: HeaderFields { state.withLock { $0.sentHeaders } }
    /// Every header block sent so far, for the redactor: their secret values are all secrets.
    var sentBlocks: [HeaderFields] { state.withLock { $0.sentBlocks } }

    /// An attempt's first hop is about to wait for admission.
    func started(_ request: TransportRequest) {
        state.withLock { state in
            state.lastRequest = request
            state.redirects = []
            state.sentHeaders.merge(request.headerFields)
            state.sentBlocks.append(request.headerFields)
        }
    }

    /// A stage inside the redirect stage (the cookie jar) added headers to a hop after the first:
    /// its header block counts among those sent, so their secret values are masked.
    func sentOnFollowUpHop(_ headers: HeaderFields) {
        state.withLock { $0.sentBlocks.append(headers) }
    }

    /// When the last request went to the transport; `nil` before any did.
    var sentAt: ContinuousClock.Instant? { state.withLock { $0.sentAt } }

    /// An attempt passed admission but was not sent (the deadline elapsed): it counts.
    func countAttempt() { state.withLock { $0.attempts += 1 } }

    func redirected(_ redirect: Redirect, to request: TransportRequest) {
        state.withLock { state in
            state.redirects.append(redirect)
            state.lastRequest = request
        }
    }

    func noteNoRetry(_ reason: String) { state.withLock { $0.note = " (not retried: \(reason))" } }
}

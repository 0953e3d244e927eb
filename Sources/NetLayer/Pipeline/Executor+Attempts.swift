import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the attempts of one call left behind: the last request sent, its redirects, how many
/// attempts reached the transport, and why a retry did not happen. Copies share one record (the
/// state is one locked buffer: a single allocation per call).
struct AttemptRecord: Sendable {
    struct State {
        var lastRequest: TransportRequest
        var redirects: [Redirect] = []
        var attempts = 0
        var note: String?
        var sentHeaders = HeaderFields()
        /// Every attempt's header block as sent (a replay's refreshed credentials included).
        var sentBlocks: [HeaderFields] = []
    }
    private let state: LockedValue<State>

    init(_ request: TransportRequest) { state = LockedValue(State(lastRequest: request)) }

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

    func started(_ request: TransportRequest) {
        state.withLock { state in
            state.lastRequest = request
            state.redirects = []
            state.sentHeaders.merge(request.headerFields)
            state.sentBlocks.append(request.headerFields)
        }
    }

    /// The attempt passed admission and goes to the transport: it counts.
    func admitted() { state.withLock { $0.attempts += 1 } }

    func redirected(_ redirect: Redirect, to request: TransportRequest) {
        state.withLock { state in
            state.redirects.append(redirect)
            state.lastRequest = request
        }
    }

    func noteNoRetry(_ reason: String) { state.withLock { $0.note = " (not retried: \(reason))" } }
}

extension Executor {
    /// Whether this call may be sent more than once.
    var isIdempotent: Bool { idempotentOverride ?? method.isIdempotent }

    /// The retry loop around the interceptor chain. A call with no policy, chain or authenticator
    /// does not come here: it goes straight to its hops.
    func attempts(
        _ prepared: PreparedRequest, policy: RetryPolicy, context: TransportContext,
        start: ContinuousClock.Instant, record: AttemptRecord, log: RequestLog?
    ) async throws(NetLayerError) -> TransportResponse {
        let chain =
            interceptors.isEmpty
            ? resource.options.interceptors : resource.options.interceptors + interceptors
        var interceptorContext = InterceptorContext(
            pathTemplate: path, attempt: 1, isIdempotent: isIdempotent, transport: context,
            deadline: context.timeouts.total.map { start.advanced(by: $0) })
        while true {
            var outcome: Result<TransportResponse, NetLayerError>
            do {
                let attemptContext = interceptorContext
                let attempt: @Sendable () async throws -> TransportResponse = {
                    try await InterceptorChain.run(
                        chain[...], request: prepared.request, context: attemptContext,
                        last: { request in
                            try await authenticated(
                                request, prepared: prepared, context: context, start: start, record: record,
                                log: log)
                        })
                }
                // Interceptors, the authenticator and a refresh are bounded by the total deadline
                // too; the transport bounds its own hops.
                let deadline = attemptContext.deadline
                outcome = .success(
                    try await DeadlineRace.run(until: deadline, total: context.timeouts.total, attempt))
            } catch {
                outcome = .failure(Self.known(error))
            }
            if policy.isNone { return try outcome.get() }
            // A call that collects the whole body reads it here, so a body cut short is a failed
            // attempt the policy may retry, not an error after the retries are over.
            if !context.streamsResponse || collectLimit != nil, case .success(let response) = outcome,
                !response.body.isInMemory
            {
                outcome = await Self.read(
                    response, upTo: collectLimit ?? .max, prepared: prepared, record: record, executor: self)
            }
            guard
                let delay = retryDelay(
                    after: outcome, attempt: interceptorContext.attempt, policy: policy,
                    deadline: interceptorContext.deadline, record: record)
            else {
                if case .success(let response) = outcome,
                    !policy.statusCodes.contains(response.head.statusCode)
                {
                    resource.retryTokens.refill()
                }
                return try outcome.get()
            }
            if case .success(let response) = outcome { response.body.cancel() }
            log?.retry(
                attempt: interceptorContext.attempt + 1, of: policy.maximumAttempts, after: outcome,
                delay: delay)
            do { try await Task.sleep(for: delay) } catch { throw .cancelled }
            interceptorContext.attempt += 1
            // Progress describes the attempt whose body the call returns, not the rejected one.
            context.progress?.restart()
        }
    }

    /// The response with its body read into memory, or the read's error as a ``NetLayerError``.
    private static func read(
        _ response: TransportResponse, upTo limit: Int, prepared: PreparedRequest, record: AttemptRecord,
        executor: Executor
    ) async -> Result<TransportResponse, NetLayerError> {
        do {
            let data = try await response.body.collect(upTo: limit)
            return .success(TransportResponse(head: response.head, body: ResponseBody(data)))
        } catch {
            var sent = prepared
            sent.headers.merge(record.sentHeaders)
            sent.sentHeaderBlocks = record.sentBlocks
            return .failure(executor.mapTransportError(error, request: record.lastRequest, prepared: sent))
        }
    }

    /// Any error of the chain as a ``NetLayerError``.
    static func known(_ error: any Error) -> NetLayerError {
        if let known = error as? NetLayerError { return known }
        if error is CancellationError { return .cancelled }
        if let urlError = error as? URLError, urlError.code == .cancelled { return .cancelled }
        return .interceptorFailed(error)
    }

    /// How long to wait before the next attempt, or `nil` when the outcome is final.
    private func retryDelay(
        after outcome: Result<TransportResponse, NetLayerError>, attempt: Int, policy: RetryPolicy,
        deadline: ContinuousClock.Instant?, record: AttemptRecord
    ) -> Duration? {
        let head: ResponseHead?
        let error: NetLayerError?
        switch outcome {
        case .success(let response):
            head = response.head
            error = nil
        case .failure(let failure):
            if failure.code == .cancelled || failure.code == .authenticationFailed { return nil }
            head = nil
            error = failure
        }
        if Task.isCancelled { return nil }
        let sent = record.lastRequest
        guard policy.qualifies(RetryAttempt(attempt: attempt, request: sent, response: head, error: error))
        else { return nil }
        guard attempt < policy.maximumAttempts else {
            record.noteNoRetry("\(policy.maximumAttempts) attempts made, the policy's maximum")
            return nil
        }
        guard isIdempotent else {
            record.noteNoRetry(
                "\(method) is not idempotent; mark the call with .idempotent() if repeating it is safe")
            return nil
        }
        if let problem = sent.body?.replayProblem {
            record.noteNoRetry("the body cannot be sent again: \(problem)")
            return nil
        }
        var delay = policy.delay(after: attempt, random: Double.random(in: 0...1))
        if let head, let asked = RetryAfter.delay(head.headerFields["Retry-After"]) {
            guard asked <= policy.cap else {
                record.noteNoRetry(
                    "Retry-After asks for \(asked.formattedSeconds), more than the policy's maximumDelay of \(policy.cap.formattedSeconds)"
                )
                return nil
            }
            delay = asked
        }
        // Whatever the policy and the server ask (a predicate that always retries, `Retry-After: 0`).
        delay = max(delay, RetryPolicy.minimumDelay)
        if let deadline, ContinuousClock.now.advanced(by: delay) >= deadline {
            record.noteNoRetry("the total deadline would pass during the \(delay.formattedSeconds) wait")
            return nil
        }
        guard resource.retryTokens.spend() else {
            record.noteNoRetry("the resource's retry budget is spent")
            return nil
        }
        return delay
    }

    /// The authenticator's layer (when the resource has one) around the hops.
    private func authenticated(
        _ request: TransportRequest, prepared: PreparedRequest, context: TransportContext,
        start: ContinuousClock.Instant, record: AttemptRecord, log: RequestLog?
    ) async throws -> TransportResponse {
        guard let authentication = resource.options.authentication else {
            return try await hops(
                request, prepared: prepared, context: context, start: start, record: record, log: log)
        }
        return try await authentication.run(request) { request in
            try await hops(
                request, prepared: prepared, context: context, start: start, record: record, log: log)
        }
    }

    /// One attempt: admission and the transport for every redirect hop, until a response that is
    /// not followed.
    /// - Parameter answered: The first hop's response when it was already sent (and admitted).
    func hops(
        _ first: TransportRequest, prepared: PreparedRequest, context: TransportContext,
        start: ContinuousClock.Instant,
        record: AttemptRecord, log: RequestLog?, answered: TransportResponse? = nil
    ) async throws(NetLayerError) -> TransportResponse {
        guard first.method.isValid else { throw .invalidMethod(first.method) }
        record.started(first)
        var request = first
        var redirects: [Redirect] = []
        var answered = answered
        if answered != nil { record.admitted() }
        while true {
            let response: TransportResponse
            if let first = answered.take() {
                response = first
            } else {
                response = try await hop(
                    request, prepared: prepared, context: context, start: start,
                    counting: redirects.isEmpty ? record : nil)
            }
            let next: (TransportRequest, Redirect)?
            do {
                next =
                    redirectPolicy.maximum > 0
                    ? try RedirectRule.next(
                        after: request, response: response.head, policy: redirectPolicy,
                        secrets: resource.options.redaction)
                    : nil
            } catch {
                response.body.cancel()
                throw Self.known(error)
            }
            guard let (nextRequest, redirect) = next else { return response }
            response.body.cancel()
            if redirects.count >= redirectPolicy.maximum {
                throw NetLayerError.tooManyRedirects(redirects + [redirect], limit: redirectPolicy.maximum)
            }
            redirects.append(redirect)
            record.redirected(redirect, to: nextRequest)
            log?.redirect(redirect)
            request = nextRequest
        }
    }

    /// One request on the wire: waits for admission (every request the server sees counts), then
    /// sends with what is left of the total deadline. The concurrency slot is held until the body
    /// is done with. `record`, given for an attempt's first hop, counts the attempt once it is
    /// admitted, so an attempt that never left (cancelled or timed out in admission) does not count.
    @inline(__always)
    private func hop(
        _ request: TransportRequest, prepared: PreparedRequest, context: TransportContext,
        start: ContinuousClock.Instant, counting record: AttemptRecord?
    ) async throws(NetLayerError) -> TransportResponse {
        // An interceptor or an authenticator may have changed the prepared request: check it
        // before it takes a slot, let alone reaches the transport.
        if !nothingWrapsTheHops { try request.check() }
        let limiter = resource.limiter
        let slot =
            limiter.admitsAtOnce
            ? nil : try await limiter.admit(deadline: context.timeouts.total.map { start.advanced(by: $0) })
        record?.admitted()
        var hop = context
        hop.requestIsChecked = true
        if let total = context.timeouts.total {
            let left = total - (ContinuousClock.now - start)
            if left <= .zero {
                slot?.release()
                throw NetLayerError.timedOut("the total deadline of \(total.formattedSeconds) elapsed")
            }
            hop.timeouts.total = left
        }
        let response: TransportResponse
        do {
            response = try await resource.transport.send(request, context: hop)
        } catch {
            slot?.release()
            var sent = prepared
            sent.headers.merge(request.headerFields)
            throw mapTransportError(error, request: request, prepared: sent)
        }
        limiter.observe(response.head)
        if let slot { response.body.whenFinished { slot.release() } }
        return response
    }
}

extension HTTPMethod {
    /// GET, HEAD, PUT, DELETE, OPTIONS and TRACE (RFC 9110 §9.2.2).
    var isIdempotent: Bool {
        switch rawValue {
        case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": true
        default: false
        }
    }
}

extension RequestBody {
    /// Why this body cannot be sent again the same way (a file shrank or vanished), or `nil`.
    var replayProblem: String? {
        for segment in segments {
            guard case .file(let url, let range) = segment else { continue }
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?
                .int64Value
            guard let size else { return "\(url.lastPathComponent) cannot be read any more" }
            if size < range.upperBound {
                return
                    "\(url.lastPathComponent) is now \(size) bytes, shorter than the \(range.upperBound) sent"
            }
        }
        return nil
    }
}

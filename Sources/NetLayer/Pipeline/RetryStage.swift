import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The call's ``RetryPolicy`` around everything else: it sends an attempt through the rest of the
/// pipeline, and sends it again after a delay while the policy, the method, the body, the total
/// deadline and the resource's retry budget allow.
struct RetryStage: Stage {
    func run(_ request: TransportRequest, context: InterceptorContext, next: @escaping Pipeline.Next)
        async throws
        -> TransportResponse
    {
        guard let call = context.call else { return try await next(request, context) }
        let policy = call.retryPolicy
        var context = context
        while true {
            var outcome: Result<TransportResponse, NetLayerError>
            do {
                outcome = .success(try await next(request, context))
            } catch {
                outcome = .failure(NetLayerError.known(error))
            }
            // A call that collects the whole body reads it here, so a body cut short is a failed
            // attempt the policy may retry, not an error after the retries are over.
            if !context.transport.streamsResponse || call.collectLimit != nil,
                case .success(let response) = outcome, !response.body.isInMemory
            {
                outcome = await Self.read(response, upTo: call.collectLimit ?? .max, call: call)
            }
            guard let delay = Self.delay(after: outcome, attempt: context.attempt, call: call) else {
                if case .success(let response) = outcome,
                    !policy.statusCodes.contains(response.head.statusCode)
                {
                    call.resource.retryTokens.refill()
                }
                return try outcome.get()
            }
            if case .success(let response) = outcome { response.body.cancel() }
            call.log?.retry(
                attempt: context.attempt + 1, of: policy.maximumAttempts, after: outcome, delay: delay)
            let slept = ContinuousClock.now
            do { try await Task.sleep(for: delay) } catch { throw NetLayerError.cancelled }
            call.attempts.waited(.retryDelay, from: slept, until: .now)
            call.attempts.nextAttempt(outcome.retryReason)
            context.attempt += 1
            // Progress describes the attempt whose body the call returns, not the rejected one.
            context.transport.progress?.restart()
        }
    }

    /// The response with its body read into memory, or the read's error as a ``NetLayerError``.
    private static func read(_ response: TransportResponse, upTo limit: Int, call: CallRecord) async
        -> Result<TransportResponse, NetLayerError>
    {
        do {
            let data = try await response.body.collect(upTo: limit)
            return .success(TransportResponse(head: response.head, body: ResponseBody(data)))
        } catch {
            return .failure(
                CallErrors.map(
                    error, request: call.attempts.lastRequest, redactor: call.redactor(for: call.sentPrepared)
                ))
        }
    }

    /// How long to wait before the next attempt, or `nil` when the outcome is final.
    private static func delay(
        after outcome: Result<TransportResponse, NetLayerError>, attempt: Int, call: CallRecord
    ) -> Duration? {
        let policy = call.retryPolicy
        let record = call.attempts
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
        guard call.isIdempotent else {
            record.noteNoRetry(
                "\(call.prepared.method) is not idempotent; mark the call with .idempotent() if repeating it is safe"
            )
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
        if let total = call.prepared.timeouts.total,
            ContinuousClock.now.advanced(by: delay) >= call.start.advanced(by: total)
        {
            record.noteNoRetry("the total deadline would pass during the \(delay.formattedSeconds) wait")
            return nil
        }
        guard call.resource.retryTokens.spend() else {
            record.noteNoRetry("the resource's retry budget is spent")
            return nil
        }
        return delay
    }
}

extension Result<TransportResponse, NetLayerError> {
    /// Why a retry after this outcome is sent: its status or its error.
    var retryReason: AttemptReason {
        switch self {
        case .success(let response):
            AttemptReason(kind: .retry, statusCode: response.head.statusCode, errorCode: nil)
        case .failure(let failure): AttemptReason(kind: .retry, statusCode: nil, errorCode: failure.code)
        }
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
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            guard let attributes, let size = (attributes[.size] as? NSNumber)?.int64Value else {
                return "\(url.lastPathComponent) cannot be read any more"
            }
            // A FIFO or a device put in its place has no length to compare (a FIFO's size is 0).
            guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
                return "\(url.lastPathComponent) is no longer a regular file"
            }
            if size < range.upperBound {
                return
                    "\(url.lastPathComponent) is now \(size) bytes, shorter than the \(range.upperBound) sent"
            }
        }
        return nil
    }
}

import Foundation

/// Follows redirects by RFC 9110's rules (``RedirectRule``): each hop goes through the stages
/// inside (admission and the transport), until a response that is not followed.
struct RedirectStage: Stage {
    func run(_ request: TransportRequest, context: InterceptorContext, next: @escaping Pipeline.Next)
        async throws
        -> TransportResponse
    {
        guard let call = context.call else { return try await next(request, context) }
        let policy = call.redirectPolicy
        var request = request
        var hop = context
        var redirects: [Redirect] = []
        while true {
            let response = try await next(request, hop)
            let followed: (TransportRequest, Redirect)?
            do {
                followed = try RedirectRule.next(
                    after: request, response: response.head, policy: policy,
                    secrets: call.resource.options.redaction)
            } catch {
                response.body.cancel()
                throw NetLayerError.known(error)
            }
            guard let (nextRequest, redirect) = followed else { return response }
            response.body.cancel()
            if redirects.count >= policy.maximum {
                throw NetLayerError.tooManyRedirects(redirects + [redirect], limit: policy.maximum)
            }
            redirects.append(redirect)
            call.attempts.redirected(redirect, to: nextRequest)
            call.log?.redirect(redirect)
            request = nextRequest
            hop.isFollowUpHop = true
        }
    }
}

/// The innermost stage, always there: waits for admission (every request the server sees
/// counts), then sends with what is left of the total deadline. The concurrency slot is held
/// until the body is done with.
enum TransportStage {
    static func send(_ request: TransportRequest, context: InterceptorContext) async throws(NetLayerError)
        -> TransportResponse
    {
        guard let call = context.call else {
            throw NetLayerError(.transport, "a pipeline stage ran outside a call")
        }
        let record = call.attempts
        if !context.isFollowUpHop { record.started(request) }
        // An interceptor or an authenticator may have changed the request: check it before it
        // takes a slot, let alone reaches the transport.
        var request = request
        if !request.isChecked {
            try request.check()
            request.isChecked = true
        }
        let limiter = call.resource.limiter
        var slot: ConcurrencySlots.Slot?
        if !limiter.admitsAtOnce {
            let admission = try await limiter.admit(deadline: context.deadline, record: record)
            slot = admission.slot
            // Printed apart from the exchange, whose time then starts when the request is sent.
            if !admission.waits.isEmpty { call.log?.waited(admission.waits, limiter: limiter) }
        }
        var transport = context.transport
        if let total = context.transport.timeouts.total {
            let left = total - (ContinuousClock.now - call.start)
            if left <= .zero {
                slot?.release()
                // The attempt passed admission: it counts, though it never left.
                if !context.isFollowUpHop { record.countAttempt() }
                throw NetLayerError.timedOut("the total deadline of \(total.formattedSeconds) elapsed")
            }
            transport.timeouts.total = left
        }
        // The attempt passed admission: it counts (an attempt that never left does not), and its
        // observer may add trace context to it.
        let attempt = record.attemptStarting(&request, context: context) {
            call.redactor(for: call.sentPrepared)
        }
        let response: TransportResponse
        do {
            response = try await call.resource.transport.send(request, context: transport)
        } catch {
            slot?.release()
            var sent = call.prepared
            sent.headers.merge(request.headerFields)
            let failure = CallErrors.map(error, request: request, redactor: call.redactor(for: sent))
            record.attemptEnded(attempt, .failed(failure.code), received: 0)
            throw failure
        }
        limiter.observe(response.head)
        // The attempt ends when its body does, however that happens.
        record.received(attempt, response) { call.redactor(for: call.sentPrepared) }
        if let slot { response.body.whenFinished { slot.release() } }
        return response
    }
}

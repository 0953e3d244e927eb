import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A prepared request held by reference. Calls and exchanges carry it for error messages and
/// debug output only; copying a reference instead of a dozen fields saves retains and releases on
/// every call (measured in place: the copies cost several µs per call).
///
/// It also knows the call's secrets for whatever prints a value the call handed out (see
/// ``CallSecrets``): the redactor is built only then.
final class SharedPreparedRequest: Sendable {
    let value: PreparedRequest
    let pathParts: [String: any ParamConvertible]
    /// Read for its redaction when something is printed.
    let resource: Resource
    init(_ value: PreparedRequest, of executor: Executor) {
        self.value = value
        pathParts = executor.pathParts
        resource = executor.resource
    }
}

/// A call whose final response head has arrived and passed validation; its body is unread.
struct OpenedCall: Sendable {
    var head: ResponseHead
    var body: ResponseBody
    var request: TransportRequest
    var sharedPrepared: SharedPreparedRequest
    var prepared: PreparedRequest { sharedPrepared.value }
    var redirects: [Redirect]
    var start: ContinuousClock.Instant
    var log: RequestLog?
    var progress: ProgressReporter?
    var attempts = 1
}

/// A call whose body has been read whole.
struct Exchange: Sendable {
    var data: Data
    var head: ResponseHead
    var request: TransportRequest
    var duration: Duration
    var redirects: [Redirect]
    var sharedPrepared: SharedPreparedRequest
    var prepared: PreparedRequest { sharedPrepared.value }
    var attempts = 1
}

extension Executor {
    /// The most bytes of an unacceptable response kept for the error when the call streams
    /// (a collected call keeps the whole body it read anyway).
    static let errorBodyLimit = 4 << 20

    func redactor(for prepared: PreparedRequest) -> Redactor {
        Redactor(prepared, pathParts: pathParts, redaction: resource.options.redaction)
    }

    /// Sends the call through the retry policy, the interceptors, the authenticator, admission and
    /// the redirect loop, and validates the final head.
    /// - Parameters:
    ///   - streams: The caller reads the body as it arrives.
    ///   - adjust: Changes the prepared request before it is sent (a download's `Range`).
    ///   - validation: Default: the call's, the target's or the resource's.
    /// - Throws: ``NetLayerError``; an unacceptable status carries the body.
    func open(
        debug: Bool, streams: Bool, validation: Validation? = nil,
        adjust: ((inout TransportRequest) -> Void)? = nil
    ) async throws(NetLayerError) -> OpenedCall {
        let prepared = try prepare()
        guard adjust == nil, !debug, progressHandler == nil, sendsDirectly else {
            return try await openThroughChain(
                prepared, debug: debug, streams: streams, validation: validation, adjust: adjust)
        }
        // Nothing stands between the call and its transport (the common case): one hop, with no
        // attempt record, unless the response is a redirect to follow.
        let start = ContinuousClock.now
        let response = try await sendDirectly(prepared, streams: streams)
        if isFollowedRedirect(response.head) {
            return try await openThroughChain(
                prepared, debug: false, streams: streams, validation: validation, adjust: nil,
                answered: (response, start))
        }
        let call = directCall(response, prepared: prepared, start: start)
        try await validate(call, validation: validation, streams: streams, attempts: 1, note: nil)
        return call
    }

    /// A direct call's one response, opened: no redirects, no log, no progress.
    private func directCall(
        _ response: TransportResponse, prepared: PreparedRequest, start: ContinuousClock.Instant
    ) -> OpenedCall {
        OpenedCall(
            head: response.head, body: response.body, request: prepared.request,
            sharedPrepared: SharedPreparedRequest(prepared, of: self), redirects: [], start: start, log: nil,
            progress: nil)
    }

    /// The one hop of a call that ``sendsDirectly``: the transport's response, after the limiter
    /// saw its head.
    /// - Throws: What the chain's hop throws for its one attempt (the sent headers are the
    ///   prepared ones).
    @inline(__always)
    private func sendDirectly(_ prepared: PreparedRequest, streams: Bool) async throws(NetLayerError)
        -> TransportResponse
    {
        let response: TransportResponse
        var context = TransportContext(timeouts: prepared.timeouts, streamsResponse: streams)
        // Checked in preparation, and nothing stands between it and the transport.
        context.requestIsChecked = true
        do {
            response = try await resource.transport.send(prepared.request, context: context)
        } catch {
            throw firstAttemptFailure(error, prepared: prepared)
        }
        resource.limiter.observe(response.head)
        return response
    }

    /// An error of a direct call's one attempt, as the chain's hop gives it.
    private func firstAttemptFailure(_ error: any Error, prepared: PreparedRequest) -> NetLayerError {
        var failure = mapTransportError(error, request: prepared.request, prepared: prepared)
        failure.attempts = 1
        return failure
    }

    /// Whether the redirect loop follows a response with this head.
    private func isFollowedRedirect(_ head: ResponseHead) -> Bool {
        redirectPolicy.maximum > 0 && RedirectRule.isFollowed(head.statusCode)
    }

    /// ``exchange(debug:)`` of a call that ``sendsDirectly`` and collects a body the transport
    /// read whole: no ``OpenedCall`` in between, unless the response is a redirect to follow, is
    /// rejected, or streams.
    private func exchangeDirectly() async throws(NetLayerError) -> Exchange {
        let prepared = try prepare()
        let start = ContinuousClock.now
        let response = try await sendDirectly(prepared, streams: false)
        if isFollowedRedirect(response.head) {
            return try await collect(
                openThroughChain(
                    prepared, debug: false, streams: false, validation: nil, adjust: nil,
                    answered: (response, start)))
        }
        let accepted = (validation ?? resource.options.validation).verdict(response.head) == .accepted
        guard accepted, response.body.isInMemory else {
            // Rare: judged and read as `open` and `collect` do.
            let call = directCall(response, prepared: prepared, start: start)
            try await validate(call, validation: nil, streams: false, attempts: 1, note: nil)
            return try await collect(call)
        }
        let data: Data
        do {
            data = try response.body.takeBuffered() ?? Data()
        } catch {
            throw firstAttemptFailure(error, prepared: prepared)
        }
        return Exchange(
            data: data, head: response.head, request: prepared.request, duration: .now - start,
            redirects: [], sharedPrepared: SharedPreparedRequest(prepared, of: self))
    }

    /// Nothing stands between this call and its transport: no retry policy, interceptors,
    /// authenticator, debug output, limits or pause, and nothing wrong with the limiter.
    private var sendsDirectly: Bool {
        let options = resource.options
        guard !options.debug, nothingWrapsTheHops else { return false }
        let noRetries =
            if let retryPolicy { retryPolicy.isNone && retryPolicy.problem == nil } else {
                options.retryPolicy.isNone && options.retryPolicy.problem == nil
            }
        return noRetries && resource.limiter.problem == nil && resource.limiter.admitsAtOnce
    }

    /// No interceptor (the call's, the target's or the resource's) and no authenticator.
    var nothingWrapsTheHops: Bool {
        interceptors.isEmpty && resource.options.interceptors.isEmpty
            && resource.options.authentication == nil
    }

    /// The general path of ``open(debug:streams:validation:adjust:)``: the retry policy, the
    /// interceptors and the authenticator around admission and the redirect loop. `answered` is a
    /// first hop the direct path already sent and that answered with a redirect.
    private func openThroughChain(
        _ prepared: consuming PreparedRequest, debug: Bool, streams: Bool, validation: Validation?,
        adjust: ((inout TransportRequest) -> Void)?,
        answered: (response: TransportResponse, start: ContinuousClock.Instant)? = nil
    ) async throws(NetLayerError) -> OpenedCall {
        var prepared = prepared
        let policy = retryPolicy ?? resource.options.retryPolicy
        if let problem = policy.problem ?? resource.limiter.problem { throw problem }
        adjust?(&prepared.request)
        let record = AttemptRecord(prepared.request)
        let log = (debug || resource.options.debug) ? RequestLog(prepared, record: record, of: self) : nil
        log?.request(prepared)
        let progress = progressHandler.map { ProgressReporter($0) }
        let context = TransportContext(
            timeouts: prepared.timeouts, progress: progress, streamsResponse: streams)
        let start = answered?.start ?? ContinuousClock.now
        let response: TransportResponse
        do {
            // Nothing configured around the hops: straight to them, one async frame fewer.
            response =
                if policy.isNone, nothingWrapsTheHops {
                    try await hops(
                        prepared.request, prepared: prepared, context: context, start: start, record: record,
                        log: log, answered: answered?.response)
                } else {
                    try await attempts(
                        prepared, policy: policy, context: context, start: start, record: record, log: log)
                }
        } catch {
            prepared.headers.merge(record.sentHeaders)
            prepared.sentHeaderBlocks = record.sentBlocks
            var failure = failure(
                error, request: record.lastRequest, prepared: prepared, redirects: record.redirects,
                start: start, log: log)
            failure.attempts = record.attempts
            if let note = record.note, !failure.message.hasSuffix(note) { failure.message += note }
            // Masked again with every credential the attempts sent (an error raised in a hop knew
            // that hop's only).
            throw failure.redacted(by: redactor(for: prepared))
        }
        let sent = record.snapshot
        prepared.headers.merge(sent.sentHeaders)
        prepared.sentHeaderBlocks = sent.sentBlocks
        let call = OpenedCall(
            head: response.head, body: response.body, request: sent.lastRequest,
            sharedPrepared: SharedPreparedRequest(prepared, of: self),
            redirects: sent.redirects, start: start, log: log, progress: progress, attempts: sent.attempts
        )
        try await validate(
            call, validation: validation, streams: streams, attempts: sent.attempts, note: sent.note)
        return call
    }

    /// Judges an opened call's head. An accepted response (nearly every one) costs no async call;
    /// a rejected one throws an error that is complete: redacted, printed, with attempts and notes.
    @inline(__always)
    private func validate(
        _ call: OpenedCall, validation: Validation?, streams: Bool, attempts: Int, note: String?
    ) async throws(NetLayerError) {
        let verdict = (validation ?? self.validation ?? resource.options.validation).verdict(call.head)
        if verdict != .accepted {
            try await reject(call, verdict: verdict, streams: streams, attempts: attempts, note: note)
        }
    }

    /// Throws the error for a response `verdict` rejected, with the body read (bounded when
    /// streaming).
    private func reject(
        _ call: OpenedCall, verdict: Validation.Verdict, streams: Bool, attempts: Int, note: String?
    ) async throws(NetLayerError) {
        let body = await errorBody(of: call, limit: streams ? Self.errorBodyLimit : Int.max)
        let duration = ContinuousClock.now - call.start
        call.log?.response(call.head, data: body, duration: duration)
        let redactor = call.sharedPrepared.redactor
        var failure =
            if case .contentType(let expected) = verdict {
                NetLayerError.unacceptableContentType(
                    call.head, expected: expected, body: body, method: call.request.method, redactor: redactor
                )
            } else {
                NetLayerError.unacceptableStatus(
                    call.head, body: body, method: call.request.method, redactor: redactor)
            }
        failure.redirects = call.redirects
        failure.attempts = attempts
        if let note { failure.message += note }
        throw failure.redacted(by: redactor)
    }

    /// Reads up to `limit` bytes of a rejected response's body for its error; a transfer error
    /// ends it early (the status is the news).
    func errorBody(of call: OpenedCall, limit: Int) async -> Data {
        var body = Data()
        do {
            for try await chunk in call.body {
                body.append(chunk.prefix(limit - body.count))
                if body.count >= limit {
                    call.body.cancel()
                    break
                }
            }
        } catch {
            // The status is the news; a body cut short still goes with it.
        }
        return body
    }

    /// Reads the whole body of an opened call.
    @inline(__always)
    /// Reads an opened call's whole body, at most `limit` bytes.
    /// - Throws: ``NetLayerError/Code/responseTooLarge`` past `limit`, or the read's error.
    func collect(_ call: OpenedCall, upTo limit: Int = .max) async throws(NetLayerError) -> Exchange {
        let data: Data
        do {
            // A body already in memory (every call the transport read whole) needs no async call.
            if let buffered = try call.body.takeBuffered() {
                if buffered.count > limit {
                    throw NetLayerError(.responseTooLarge, "the response body is longer than \(limit) bytes")
                }
                data = buffered
            } else {
                data = try await call.body.collect(upTo: limit)
            }
        } catch {
            throw failure(error, in: call)
        }
        let duration = ContinuousClock.now - call.start
        call.progress?.finish(uploaded: call.request.body?.length, downloaded: Int64(data.count))
        call.log?.response(call.head, data: data, duration: duration)
        return Exchange(
            data: data, head: call.head, request: call.request, duration: duration, redirects: call.redirects,
            sharedPrepared: call.sharedPrepared, attempts: call.attempts)
    }

    /// Sends and reads the whole body.
    @inline(__always)
    func exchange(debug: Bool) async throws(NetLayerError) -> Exchange {
        defer { progressEnded?() }
        if let limit = resource.options.maximumResponseSize {
            // Read as it arrives, so the transfer stops at the limit instead of after the whole body.
            var limited = self
            limited.collectLimit = max(0, limit)
            do {
                return try await limited.collect(
                    try await limited.open(debug: debug, streams: true), upTo: max(0, limit))
            } catch {
                throw error.code == .responseTooLarge ? error.explainingLimit(max(0, limit)) : error
            }
        }
        if !debug, progressHandler == nil, sendsDirectly { return try await exchangeDirectly() }
        return try await collect(try await open(debug: debug, streams: false))
    }

    /// An error while reading an opened call's body, as a redacted ``NetLayerError`` that counts
    /// the call's attempts.
    func failure(_ error: any Error, in call: OpenedCall) -> NetLayerError {
        var failure = failure(
            error, request: call.request, prepared: call.prepared, redirects: call.redirects,
            start: call.start, log: call.log)
        failure.attempts = call.attempts
        return failure
    }

    /// Maps any error of a call to a redacted ``NetLayerError`` and prints the failure line.
    func failure(
        _ error: any Error, request: TransportRequest, prepared: PreparedRequest, redirects: [Redirect],
        start: ContinuousClock.Instant, log: RequestLog?
    ) -> NetLayerError {
        if let known = error as? NetLayerError, known.redactor != nil {
            // Validation printed the response already; anything else gets its failure line.
            if known.code != .unacceptableStatus, known.code != .unacceptableContentType {
                log?.failure(prepared, error: known, duration: .now - start)
            }
            return known
        }
        var failure = mapTransportError(error, request: request, prepared: prepared)
        if failure.redirects.isEmpty {
            failure.redirects = failure.redactor.map { redirects.printed(with: CallSecrets($0)) } ?? redirects
        }
        log?.failure(prepared, error: failure, duration: .now - start)
        return failure
    }

    /// Errors raised without the request at hand, which get ` (METHOD url)` appended here.
    private static let codesNamingTheRequest: Set<NetLayerError.Code> = [
        .timedOut, .tooManyRedirects, .redirectRefused, .cancelled, .responseTooLarge, .bodyConsumed,
    ]

    func mapTransportError(_ error: any Error, request: TransportRequest, prepared: PreparedRequest)
        -> NetLayerError
    {
        let method = request.method
        let redactor = redactor(for: prepared)
        let location = " (\(method) \(redactor.url(request.url)))"
        let failure: NetLayerError
        if var known = error as? NetLayerError {
            if Self.codesNamingTheRequest.contains(known.code) { known.message += location }
            failure = known
        } else if error is CancellationError {
            failure = NetLayerError.cancelled.appending(location)
        } else if let urlError = error as? URLError {
            switch urlError.code {
            case .cancelled: failure = NetLayerError.cancelled.appending(location)
            case .timedOut:
                var timedOut = NetLayerError.timedOut(
                    "the session's own timeout elapsed (\(urlError.localizedDescription))\(location)")
                timedOut.urlError = urlError
                failure = timedOut
            default: failure = .transport(urlError, method: method, url: request.url, redactor: redactor)
            }
        } else {
            failure = .transport(other: error, method: method, url: request.url, redactor: redactor)
        }
        return failure.redacted(by: redactor)
    }
}

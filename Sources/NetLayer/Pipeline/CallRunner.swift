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
    init(_ value: PreparedRequest, pathParts: [String: any ParamConvertible], resource: Resource) {
        self.value = value
        self.pathParts = pathParts
        self.resource = resource
    }
}

/// A call whose final response head has arrived and passed validation; its body is unread. What
/// the pipeline hands a consumer (collect, stream, events, download).
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
    /// The call's record: its timeline, and the observer's events.
    var record: AttemptRecord
    /// Whether the consumer ends the call (else a ``CallOwner`` does: an event stream, a download).
    var endsCall = true

    /// The call's redactor for `prepared` (its path parts, the resource's redaction).
    func redactor(for prepared: PreparedRequest) -> Redactor {
        Redactor(
            prepared, pathParts: sharedPrepared.pathParts,
            redaction: sharedPrepared.resource.options.redaction)
    }

    /// An error while reading the body, as a redacted ``NetLayerError`` that counts the call's
    /// attempts; the failure line is printed.
    func failure(_ error: any Error) -> NetLayerError {
        var failure = CallErrors.failure(
            error, request: request, redactor: redactor(for: prepared), redirects: redirects,
            log: log, prepared: prepared)
        failure.attempts = attempts
        return ending(failure)
    }

    /// `failure` with the call's metrics; the call ends with it unless its owner ends it.
    func ending(_ failure: NetLayerError) -> NetLayerError {
        var failure = failure
        if endsCall { record.endCall(failure.code) }
        failure.metrics = record.metrics
        return failure
    }

    /// The call ended well (its body read to the end, or stopped by the consumer), unless its
    /// owner ends it. - Returns: The call's duration (this opening's, when the owner ends it).
    @discardableResult
    func succeeded() -> Duration { endsCall ? record.endCall(nil) : ContinuousClock.now - start }

    /// Reads up to `limit` bytes of a rejected response's body for its error; a transfer error
    /// ends it early (the status is the news).
    func errorBody(limit: Int) async -> Data {
        var data = Data()
        do {
            for try await chunk in body {
                data.append(chunk.prefix(limit - data.count))
                if data.count >= limit {
                    body.cancel()
                    break
                }
            }
        } catch {
            // The status is the news; a body cut short still goes with it.
        }
        return data
    }

    /// The most bytes of an unacceptable response kept for the error when the call streams
    /// (a collected call keeps the whole body it read anyway).
    static let errorBodyLimit = 4 << 20
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
    /// The call's record (its metrics are final: the call ended with its body).
    var record: AttemptRecord
}

/// Holds the record of a call that opens more than once — an event stream that reconnects, a
/// download that restarts — so each opening is an attempt of one call, and ends the call when
/// the consumer is done. Made only by those consumers.
final class CallOwner: Sendable {
    private let held = LockedValue<AttemptRecord?>(nil)

    /// The call's record, once it opened.
    var record: AttemptRecord? {
        get { held.withLock { $0 } }
        set { held.withLock { $0 = newValue } }
    }

    /// The next opening is sent for `reason`.
    func reopens(_ reason: AttemptReason) { record?.nextAttempt(reason) }

    /// Ends the call (nothing when it never opened). - Returns: Its final metrics.
    @discardableResult
    func end(_ error: NetLayerError.Code?) -> CallMetrics? {
        guard let record else { return nil }
        record.endCall(error)
        return record.metrics
    }

    /// `failure` with the call's final metrics; the call ends with it.
    func ending(_ failure: NetLayerError) -> NetLayerError {
        var failure = failure
        if let metrics = end(failure.code) { failure.metrics = metrics }
        return failure
    }
}

/// Runs a prepared call through its pipeline and judges the final head: the one way a call is
/// sent, whatever reads its body afterwards.
enum CallRunner {
    /// Sends `prepared` through the call's pipeline and validates the final head.
    /// - Parameters:
    ///   - spec: The call (its resource, path template and path parts).
    ///   - options: Its policies.
    ///   - debug: Print the exchange (the resource's setting applies too).
    ///   - streams: The caller reads the body as it arrives.
    ///   - validation: Default: the call's, the target's or the resource's.
    ///   - collectLimit: A collected call's response limit (the body is then read while retrying).
    ///   - resumesDownload: The call asks for the rest of a partial file: its download progress
    ///     waits for the consumer to say what it counts (``ProgressReporter/holdDownload()``).
    ///   - owner: Set for a call that may open again (an event stream, a download): its record is
    ///     kept there, a failure here does not end the call, and the owner ends it.
    /// - Throws: ``NetLayerError``; an unacceptable status carries the body.
    static func open(
        _ spec: CallSpec, options: CallOptions, prepared: PreparedRequest, debug: Bool, streams: Bool,
        validation: Validation? = nil, collectLimit: Int? = nil, resumesDownload: Bool = false,
        owner: CallOwner? = nil
    ) async throws(NetLayerError) -> OpenedCall {
        let resource = spec.resource
        let policy = options.retryPolicy ?? resource.options.retryPolicy
        if let problem = policy.problem ?? resource.limiter.problem { throw problem }
        let pipeline = Pipeline.of(resource, options: options, policy: policy)
        let start = ContinuousClock.now
        let record: AttemptRecord
        if let existing = owner?.record {
            existing.reopen(prepared.request)
            record = existing
        } else {
            let observer = options.observer.map(\.observer) ?? resource.options.observer
            let observed = observer.flatMap { observer in
                let pathParts = spec.pathParts
                let redaction = resource.options.redaction
                return ObservedCall.start(
                    observer, request: prepared.request, pathTemplate: spec.path, start: start
                ) {
                    // Redacted as its first attempt will be when nothing adds headers on the way.
                    var sent = prepared
                    sent.headers.merge(prepared.request.headerFields)
                    sent.sentHeaderBlocks = [prepared.request.headerFields]
                    return Redactor(sent, pathParts: pathParts, redaction: redaction)
                }
            }
            record = AttemptRecord(prepared.request, start: start, observed: observed)
            owner?.record = record
        }
        let shared = SharedPreparedRequest(prepared, pathParts: spec.pathParts, resource: resource)
        let log =
            (debug || resource.options.debug)
            ? RequestLog(shared, record: record, sink: resource.options.log, start: start) : nil
        log?.request(prepared)
        let progress = options.progressHandler.map { ProgressReporter($0) }
        if resumesDownload { progress?.holdDownload() }
        let call = CallRecord(
            resource: resource, prepared: prepared, pathParts: spec.pathParts, retryPolicy: policy,
            redirectPolicy: options.redirectPolicy,
            isIdempotent: options.idempotentOverride ?? spec.method.isIdempotent, start: start, log: log,
            collectLimit: collectLimit, attempts: record)
        var context = InterceptorContext(
            pathTemplate: spec.path, attempt: 1, isIdempotent: call.isIdempotent,
            transport: TransportContext(
                timeouts: prepared.timeouts, progress: progress, streamsResponse: streams),
            deadline: prepared.timeouts.total.map { start.advanced(by: $0) })
        context.call = call
        context.collects = !streams || collectLimit != nil
        context.cachePolicy = options.cachePolicy ?? .standard
        let response: TransportResponse
        do {
            response = try await pipeline.run(prepared.request, context: context)
        } catch {
            let sent = call.sentPrepared
            var failure = CallErrors.failure(
                error, request: record.lastRequest, redactor: call.redactor(for: sent),
                redirects: record.redirects, log: log, prepared: sent)
            failure.attempts = record.attempts
            if let note = record.note, !failure.message.hasSuffix(note) { failure.message += note }
            if owner == nil { record.endCall(failure.code) }
            failure.metrics = record.metrics
            // Masked again with every credential the attempts sent (an error raised in a stage
            // knew that stage's only).
            throw failure.redacted(by: call.redactor(for: sent))
        }
        // From here the consumer holds the response (a rejected one is set aside below).
        let sent = record.handOver()
        var printed = prepared
        if pipeline.changesHeaders || sent.sentBlocks.count > 1 {
            printed.headers.merge(sent.sentHeaders)
            printed.sentHeaderBlocks = sent.sentBlocks
        }
        let opened = OpenedCall(
            head: response.head, body: response.body, request: sent.lastRequest,
            sharedPrepared: printed.sentHeaderBlocks.isEmpty
                ? shared : SharedPreparedRequest(printed, pathParts: spec.pathParts, resource: resource),
            redirects: sent.redirects, start: start, log: log, progress: progress, attempts: sent.attempts,
            record: record, endsCall: owner == nil)
        let verdict = (validation ?? options.validation ?? resource.options.validation).verdict(opened.head)
        if verdict != .accepted {
            try await reject(opened, verdict: verdict, streams: streams, note: sent.note)
        }
        return opened
    }

    /// Throws the error for a response `verdict` rejected, with the body read (bounded when
    /// streaming).
    private static func reject(
        _ call: OpenedCall, verdict: Validation.Verdict, streams: Bool, note: String?
    ) async throws(NetLayerError) {
        call.record.setAside()
        let body = await call.errorBody(limit: streams ? OpenedCall.errorBodyLimit : Int.max)
        call.log?.response(call.head, data: body)
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
        failure.attempts = call.attempts
        if let note { failure.message += note }
        throw call.ending(failure.redacted(by: redactor))
    }

    /// Reads an opened call's whole body, at most `limit` bytes.
    /// - Throws: ``NetLayerError/Code/responseTooLarge`` past `limit`, or the read's error.
    static func collect(_ call: OpenedCall, upTo limit: Int = .max) async throws(NetLayerError) -> Exchange {
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
            throw call.failure(error)
        }
        let duration = call.succeeded()
        call.progress?.finish(uploaded: call.request.body?.length, downloaded: Int64(data.count))
        call.log?.response(call.head, data: data)
        return Exchange(
            data: data, head: call.head, request: call.request, duration: duration, redirects: call.redirects,
            sharedPrepared: call.sharedPrepared, attempts: call.attempts, record: call.record)
    }
}

/// How any error of a call becomes the ``NetLayerError`` the caller sees.
enum CallErrors {
    /// Maps any error of a call to a redacted ``NetLayerError`` and prints the failure line.
    static func failure(
        _ error: any Error, request: TransportRequest, redactor: Redactor, redirects: [Redirect],
        log: RequestLog?, prepared: PreparedRequest
    ) -> NetLayerError {
        if let known = error as? NetLayerError, known.redactor != nil {
            // Validation printed the response already; anything else gets its failure line.
            if known.code != .unacceptableStatus, known.code != .unacceptableContentType {
                log?.failure(prepared, error: known)
            }
            return known
        }
        var failure = map(error, request: request, redactor: redactor)
        if failure.redirects.isEmpty {
            failure.redirects = failure.redactor.map { redirects.printed(with: CallSecrets($0)) } ?? redirects
        }
        log?.failure(prepared, error: failure)
        return failure
    }

    /// Errors raised without the request at hand, which get ` (METHOD url)` appended here.
    private static let codesNamingTheRequest: Set<NetLayerError.Code> = [
        .timedOut, .tooManyRedirects, .redirectRefused, .cancelled, .responseTooLarge, .bodyConsumed,
    ]

    /// A transport's (or a stage's) error as a redacted ``NetLayerError`` naming the request.
    static func map(_ error: any Error, request: TransportRequest, redactor: Redactor) -> NetLayerError {
        let method = request.method
        let location = " (\(method) \(redactor.url(request.url)))"
        let failure: NetLayerError
        if var known = error as? NetLayerError {
            if codesNamingTheRequest.contains(known.code) { known.message += location }
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

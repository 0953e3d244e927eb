import Foundation

/// Reads one event source: opens the response, parses its body, and reconnects when asked to.
///
/// Unchecked Sendable: `next()` runs for the stream's one consumer, one call at a time, and owns
/// everything but `connection` (the body and whether the reader stopped), which `stop()` (any
/// thread) also touches: a ``LockedValue``.
final class EventReader: @unchecked Sendable {
    private let executor: Executor
    private let reconnection: EventStreamReconnection?
    private let debug: Bool
    private var parser: EventStreamParser
    private var pending: [ServerSentEvent] = []
    private var pendingIndex = 0
    private var finished = false
    /// Connection attempts since the last event.
    private var attempts = 0
    /// The wait a 429 or 503 asked for with `Retry-After`, for the next attempt only.
    private var retryAfter: Duration?
    /// When the call's own total deadline ends, if it set one.
    private let deadline: ContinuousClock.Instant?
    /// The latest request as prepared (for redacting decoding errors).
    private var prepared: PreparedRequest?
    /// When the current connection opened, and the events it brought (for the reconnection floor).
    private var connectedAt: ContinuousClock.Instant?
    private var eventsOnConnection = 0
    /// Connections in a row that ended within a second with at most one event.
    private var sparseConnections = 0

    /// The current connection's body, and whether the consumer stopped.
    private let connection = LockedValue((body: BodyReader?.none, stopped: false))

    /// The statuses after which a reconnection is tried (RFC 9110 transient failures).
    static let retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// The only media type an event stream may have.
    static let mediaType = "text/event-stream"

    init(executor: Executor, reconnection: EventStreamReconnection?, maximumEventSize: Int, debug: Bool) {
        var executor = executor
        // An event stream is meant to stay open: only a deadline given to this call applies.
        executor.resourceTimeout = executor.callResourceTimeout
        self.executor = executor
        self.reconnection = reconnection
        self.debug = debug
        parser = EventStreamParser(maximumEventSize: maximumEventSize)
        deadline = executor.callResourceTimeout.map { .now + min($0, Timeouts.maximum) }
    }

    deinit { stop() }

    /// Opens the first connection (reconnecting first if that fails and reconnection is on).
    /// - Throws: ``NetLayerError/Code/invalidValue`` first for a timeout of zero or less, as any
    ///   call does, before the deadline it would set is consulted.
    func start() async throws(NetLayerError) {
        _ = try Timeouts.checked(idle: executor.timeout, total: executor.callResourceTimeout)
        try await connect(after: nil, delay: false)
    }

    /// The consumer stopped: close the connection; nothing reconnects.
    func stop() {
        let current = connection.withLock { connection in
            connection.stopped = true
            return connection.body
        }
        current?.stop()
    }

    private var isStopped: Bool { connection.withLock { $0.stopped } }

    func next() async throws(NetLayerError) -> ServerSentEvent? {
        while true {
            if pendingIndex < pending.count {
                let event = pending[pendingIndex]
                pendingIndex += 1
                if pendingIndex == pending.count {
                    pending.removeAll(keepingCapacity: true)
                    pendingIndex = 0
                }
                attempts = 0
                eventsOnConnection += 1
                return event
            }
            if finished || isStopped { return nil }
            guard let body = connection.withLock({ $0.body }) else {
                finished = true
                return nil
            }
            let chunk: Data?
            do {
                chunk = try await body.next()
            } catch {
                parser.finish()
                try await connect(after: error, delay: true)
                continue
            }
            guard let chunk else {
                parser.finish()
                try await connect(after: nil, delay: true)
                continue
            }
            do {
                try parser.consume(chunk) { pending.append($0) }
            } catch {
                // The stream is over for good: a later `next()` ends it instead of reconnecting.
                stop()
                finished = true
                throw error as? NetLayerError ?? NetLayerError(.responseTooLarge, "\(error)")
            }
        }
    }

    /// Opens a connection; after the first, waits and reconnects as ``reconnection`` allows.
    /// - Parameters:
    ///   - failure: Why the previous connection ended (`nil`: it ended cleanly, or this is the first).
    ///   - delay: Whether to wait before connecting (every attempt but the first).
    /// Sets ``finished`` instead when the stream is over: a 204, a clean end with no reconnection,
    /// or the attempts used up after clean ends.
    private func connect(after failure: NetLayerError?, delay: Bool) async throws(NetLayerError) {
        connection.withLock { $0.body = nil }
        if let connectedAt {
            // A server that ends every connection at once (`retry: 0`, one event each) is a storm:
            // each such connection doubles the wait's floor.
            let sparse =
                eventsOnConnection <= 1
                && ContinuousClock.now - connectedAt < EventStreamReconnection.sparseConnectionTime
            sparseConnections = sparse ? sparseConnections + 1 : 0
            self.connectedAt = nil
        }
        var failure = failure
        var delay = delay
        while true {
            if let failure, !isRetryable(failure) { throw failure }
            if delay {
                guard let reconnection, attempts < reconnection.maximumAttempts, !isStopped else {
                    if let failure { throw failure }
                    finished = true
                    return
                }
                attempts += 1
                let wait = reconnection.wait(
                    retryAfter ?? parser.reconnectionTime, sparseConnections: sparseConnections)
                retryAfter = nil
                if let deadline, ContinuousClock.now + wait >= deadline {
                    throw Self.deadlineElapsed(executor)
                }
                do { try await Task.sleep(for: wait) } catch { throw NetLayerError.cancelled }
            }
            delay = true
            do {
                guard let call = try await open() else {
                    finished = true
                    return
                }
                parser.startNewStream()
                prepared = call.prepared
                connectedAt = .now
                eventsOnConnection = 0
                let reader = BodyReader(call: call, executor: executor)
                let wasStopped = connection.withLock { connection in
                    if !connection.stopped { connection.body = reader }
                    return connection.stopped
                }
                if wasStopped { reader.stop() }
                return
            } catch {
                failure = error
                retryAfter = RetryAfter.delay(error.header("Retry-After"))
            }
        }
    }

    /// Whether the stream may reconnect after `error`.
    private func isRetryable(_ error: NetLayerError) -> Bool {
        guard reconnection != nil, !isStopped else { return false }
        switch error.code {
        case .transport: return true
        case .timedOut: return deadline.map { ContinuousClock.now < $0 } ?? true
        case .unacceptableStatus: return error.statusCode.map(Self.retryableStatuses.contains) ?? false
        default: return false
        }
    }

    /// Sends the request (with `Last-Event-ID` once an id is known) and checks the head.
    /// - Returns: The call, or `nil` for a 204 (the server says: do not reconnect).
    private func open() async throws(NetLayerError) -> OpenedCall? {
        if let deadline {
            let left = deadline - .now
            if left <= .zero { throw Self.deadlineElapsed(executor) }
        }
        var attempt = executor
        if let deadline { attempt.resourceTimeout = max(.milliseconds(1), deadline - .now) }
        let lastEventID = parser.lastEventID
        if !lastEventID.isEmpty { _ = try HeaderFields.validatedValue(lastEventID, name: "Last-Event-ID") }
        let setsAccept = executor.setsOwnHeader("Accept")
        let setsCacheControl = executor.setsOwnHeader("Cache-Control")
        let accepted = executor.validation ?? executor.resource.options.validation
        let call = try await attempt.open(
            debug: debug, streams: true,
            validation: accepted.alsoAccepting(204),
            adjust: { request in
                if !setsAccept { request.headerFields.set("Accept", Self.mediaType) }
                if !setsCacheControl { request.headerFields.set("Cache-Control", "no-cache") }
                if !lastEventID.isEmpty { request.headerFields.set("Last-Event-ID", lastEventID) }
            })
        call.log?.streamed(call.head, duration: .now - call.start)
        if call.head.statusCode == 204 {
            call.body.cancel()
            return nil
        }
        let type = call.head.headerFields["Content-Type"] ?? ""
        let essence = type.split(separator: ";", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard essence == Self.mediaType else {
            let body = await executor.errorBody(of: call, limit: Executor.errorBodyLimit)
            let redactor = executor.redactor(for: call.prepared)
            var failure = NetLayerError.unacceptableContentType(
                call.head, expected: Self.mediaType, body: body, method: call.request.method,
                redactor: redactor)
            failure.redirects = call.redirects
            throw failure.redacted(by: redactor)
        }
        return call
    }

    private static func deadlineElapsed(_ executor: Executor) -> NetLayerError {
        let total = executor.callResourceTimeout ?? .zero
        return .timedOut(
            "the total deadline of \(total.formattedSeconds) elapsed (\(executor.method) event stream)")
    }

    /// Decodes an event's data as `model`; a failure names the event.
    func decode<Model: Decodable>(_ model: Model.Type, from event: ServerSentEvent, with decoder: JSONDecoder)
        throws(NetLayerError) -> Model
    {
        let data = Data(event.data.utf8)
        do {
            return try decoder.decode(Model.self, from: data)
        } catch {
            stop()
            let redactor =
                prepared.map { executor.redactor(for: $0) }
                ?? Redactor(redaction: executor.resource.options.redaction)
            var failure = NetLayerError.decodingFailed(
                error, type: Model.self, body: data, redactor: redactor)
            let name = "event \"\(event.event)\"" + (event.id.map { " (id \($0))" } ?? "")
            failure.message = "\(name): " + failure.message
            throw failure.redacted(by: redactor)
        }
    }
}

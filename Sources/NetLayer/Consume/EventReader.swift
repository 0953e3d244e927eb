import Foundation

/// Reads one event source: opens the response, parses its body, and reconnects when asked to.
///
/// Unchecked Sendable: `next()` runs for the stream's one consumer, one call at a time, and owns
/// everything but `current` (the body and whether the reader stopped), which `stop()` (any
/// thread) also touches: a ``LockedValue``.
final class EventReader: @unchecked Sendable {
    /// How to send the stream's call again; the consumer never sees the pipeline.
    struct Connection: Sendable {
        /// The call's method, for messages.
        let method: HTTPMethod
        /// The idle timeout and the deadline given to this call itself (not the resource's: an
        /// event stream is meant to stay open).
        let timeouts: Timeouts
        /// The call's, the target's or the resource's validation.
        let validation: Validation
        /// The resource's redaction, for a decoding error before any connection.
        let redaction: Redaction
        /// Whether the target or the call set `Accept` / `Cache-Control` itself.
        let setsAccept: Bool
        let setsCacheControl: Bool
        /// Called when a connection's body ends, however it ends (``Executor/progressUpdates()``).
        let ended: (@Sendable () -> Void)?
        /// Keeps the call's record over its connections (each is an attempt of one call), and ends
        /// the call when the stream ends, fails or is stopped.
        let owner: CallOwner
        /// Sends the call with this total deadline, validation and request adjustment.
        let send:
            @Sendable (Duration?, Validation, @escaping @Sendable (inout TransportRequest) -> Void)
                async throws(NetLayerError) -> OpenedCall
    }
    private let connection: Connection
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
    /// The latest connection's call (for redacting decoding errors).
    private var lastCall: OpenedCall?
    /// When the current connection opened, and the events it brought (for the reconnection floor).
    private var connectedAt: ContinuousClock.Instant?
    private var eventsOnConnection = 0
    /// Connections in a row that ended within a second with at most one event.
    private var sparseConnections = 0

    /// The current connection's body, and whether the consumer stopped.
    private let current = LockedValue((body: BodyReader?.none, stopped: false))

    /// The only media type an event stream may have.
    static let mediaType = "text/event-stream"

    init(
        connection: Connection, reconnection: EventStreamReconnection?, maximumEventSize: Int, debug: Bool
    ) {
        self.connection = connection
        self.reconnection = reconnection
        self.debug = debug
        parser = EventStreamParser(maximumEventSize: maximumEventSize)
        deadline = connection.timeouts.total.map { .now + min($0, Timeouts.maximum) }
    }

    deinit { stop() }

    /// Opens the first connection (reconnecting first if that fails and reconnection is on).
    /// - Throws: ``NetLayerError/Code/invalidValue`` first for a timeout of zero or less, as any
    ///   call does, before the deadline it would set is consulted.
    func start() async throws(NetLayerError) {
        _ = try Timeouts.checked(idle: connection.timeouts.idle, total: connection.timeouts.total)
        do {
            try await connect(after: nil, delay: false)
        } catch {
            throw connection.owner.ending(error)
        }
    }

    /// The consumer stopped: close the connection; nothing reconnects, and the call ends.
    func stop() {
        let body = current.withLock { current in
            current.stopped = true
            return current.body
        }
        body?.stop()
        connection.owner.end(nil)
    }

    private var isStopped: Bool { current.withLock { $0.stopped } }

    /// The next event; `nil` once the stream ended (the call ends then).
    /// - Throws: The stream's error, with the call's metrics (the call ends with it).
    func next() async throws(NetLayerError) -> ServerSentEvent? {
        do {
            guard let event = try await nextEvent() else {
                connection.owner.end(nil)
                return nil
            }
            return event
        } catch {
            throw connection.owner.ending(error)
        }
    }

    private func nextEvent() async throws(NetLayerError) -> ServerSentEvent? {
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
            guard let body = current.withLock({ $0.body }) else {
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
                // The call ends with the error first, then the connection closes.
                let failure = connection.owner.ending(
                    error as? NetLayerError ?? NetLayerError(.responseTooLarge, "\(error)"))
                stop()
                finished = true
                throw failure
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
        current.withLock { $0.body = nil }
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
                    throw deadlineElapsed()
                }
                do { try await Task.sleep(for: wait) } catch { throw NetLayerError.cancelled }
                connection.owner.reopens(
                    AttemptReason(
                        kind: .reconnection, statusCode: failure?.statusCode, errorCode: failure?.code))
            }
            delay = true
            do {
                guard let call = try await open() else {
                    finished = true
                    return
                }
                parser.startNewStream()
                lastCall = call
                connectedAt = .now
                eventsOnConnection = 0
                let reader = BodyReader(call: call, ended: connection.ended)
                let wasStopped = current.withLock { current in
                    if !current.stopped { current.body = reader }
                    return current.stopped
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
        // The statuses a retry policy retries by default: the transient failures of RFC 9110.
        case .unacceptableStatus:
            return error.statusCode.map(RetryPolicy.retryableStatusCodes.contains) ?? false
        default: return false
        }
    }

    /// Sends the request (with `Last-Event-ID` once an id is known) and checks the head.
    /// - Returns: The call, or `nil` for a 204 (the server says: do not reconnect).
    private func open() async throws(NetLayerError) -> OpenedCall? {
        if let deadline {
            let left = deadline - .now
            if left <= .zero { throw deadlineElapsed() }
        }
        let left = deadline.map { max(.milliseconds(1), $0 - .now) }
        let lastEventID = parser.lastEventID
        if !lastEventID.isEmpty { _ = try HeaderFields.validatedValue(lastEventID, name: "Last-Event-ID") }
        let setsAccept = connection.setsAccept
        let setsCacheControl = connection.setsCacheControl
        let call = try await connection.send(
            left, connection.validation.alsoAccepting(204),
            { request in
                if !setsAccept { request.headerFields.set("Accept", Self.mediaType) }
                if !setsCacheControl { request.headerFields.set("Cache-Control", "no-cache") }
                if !lastEventID.isEmpty { request.headerFields.set("Last-Event-ID", lastEventID) }
            })
        call.log?.streamed(call.head)
        if call.head.statusCode == 204 {
            // No content: read to its (immediate) end, so the attempt completed.
            _ = await call.errorBody(limit: 0)
            return nil
        }
        guard MediaType.essence(call.head.headerFields["Content-Type"] ?? "") == Self.mediaType else {
            call.record.setAside()
            let body = await call.errorBody(limit: OpenedCall.errorBodyLimit)
            let redactor = call.redactor(for: call.prepared)
            var failure = NetLayerError.unacceptableContentType(
                call.head, expected: Self.mediaType, body: body, method: call.request.method,
                redactor: redactor)
            failure.redirects = call.redirects
            throw failure.redacted(by: redactor)
        }
        return call
    }

    private func deadlineElapsed() -> NetLayerError {
        let total = connection.timeouts.total ?? .zero
        return .timedOut(
            "the total deadline of \(total.formattedSeconds) elapsed (\(connection.method) event stream)")
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
                lastCall.map { $0.redactor(for: $0.prepared) } ?? Redactor(redaction: connection.redaction)
            var failure = NetLayerError.decodingFailed(
                error, type: Model.self, body: data, redactor: redactor)
            let name = "event \"\(event.event)\"" + (event.id.map { " (id \($0))" } ?? "")
            failure.message = "\(name): " + failure.message
            // Decoding is not part of the call, which ended well when the consumer stopped it.
            failure.metrics = connection.owner.record?.metrics
            throw failure.redacted(by: redactor)
        }
    }
}

import Foundation

extension Executor {
    /// Sends the call and returns its Server-Sent Events as they arrive, parsed exactly as the
    /// WHATWG HTML standard says (see ``EventStreamParser``).
    ///
    /// Any method and body work (an LLM API streams the answer to a `POST`). `Accept:
    /// text/event-stream` and `Cache-Control: no-cache` are sent unless the target or the call set
    /// those headers (a resource-wide `Accept: application/json` is replaced). The status is
    /// validated before the first event; a 204 gives an empty stream. The idle timeout applies
    /// between bytes; the total deadline applies only when this call sets `resourceTimeout`
    /// itself (not the resource's default), and then spans every reconnection.
    ///
    /// Breaking out of the loop (or cancelling the task) closes the connection at once, and no
    /// reconnection follows. An event received before the first iteration is kept. After the
    /// stream threw, it stays ended: asking for more gives `nil` and opens no new connection.
    ///
    /// A reconnection resends the last event ID as `Last-Event-ID`. An `id:` with a NUL is ignored
    /// (as the standard says); one with another control character cannot be a header value
    /// (DESIGN §17), so such a stream ends at its reconnection with `.invalidHeader` instead of
    /// reconnecting without the ID.
    /// - Parameters:
    ///   - reconnection: Reconnect when the stream ends or drops (with `Last-Event-ID`, after the
    ///     server's `retry:` time). Default `nil`: the stream ends when the response does.
    ///   - maximumEventSize: The longest event data or line accepted, in bytes. Default 16 MiB.
    ///   - debug: Print each request and response head. Default `false`.
    /// - Throws: ``NetLayerError`` (or the mapped error of an unacceptable response, when an
    ///   ``ErrorMapping`` applies, also after a reconnection): `.unacceptableStatus` (with the body), or
    ///   `.unacceptableContentType` when the response is not `text/event-stream`; while iterating,
    ///   `.responseTooLarge` past `maximumEventSize` and the transfer's errors.
    public func events(
        reconnection: EventStreamReconnection? = nil, maximumEventSize: Int = 16 << 20, debug: Bool = false
    ) async throws -> ResponseStream<ServerSentEvent> {
        let reader = EventReader(
            connection: eventConnection(debug: debug), reconnection: reconnection,
            maximumEventSize: maximumEventSize, debug: debug)
        try await mappingErrors { try await reader.start() }
        return ResponseStream(next: mappingErrors(of: { try await reader.next() }), stop: { reader.stop() })
    }

    /// Sends the call and decodes each event's `data` as JSON with the resource's decoder, as
    /// ``events(reconnection:maximumEventSize:debug:)`` delivers them.
    ///
    /// ```swift
    /// for try await chunk in try await chat.makeExecutor(method: .post, body: .json(request))
    ///     .events(decoding: ChatChunk.self, endMarker: "[DONE]")
    /// {
    ///     print(chunk.choices.first?.delta.content ?? "", terminator: "")
    /// }
    /// ```
    /// - Parameters:
    ///   - model: The type of each event's data.
    ///   - endMarker: Data that ends the stream cleanly when an event carries exactly it (OpenAI's
    ///     `"[DONE]"`); the connection is closed and no reconnection follows. Default `nil`.
    ///   - reconnection: As for ``events(reconnection:maximumEventSize:debug:)``. Default `nil`.
    ///   - maximumEventSize: The longest event data or line accepted, in bytes. Default 16 MiB.
    ///   - debug: Print each request and response head. Default `false`.
    /// - Throws: As ``events(reconnection:maximumEventSize:debug:)``, and `.decodingFailed` naming
    ///   the event (type and id) whose data did not decode; the stream ends there.
    public func events<Model: Decodable & Sendable>(
        decoding model: Model.Type, endMarker: String? = nil, reconnection: EventStreamReconnection? = nil,
        maximumEventSize: Int = 16 << 20, debug: Bool = false
    ) async throws -> ResponseStream<Model> {
        let reader = EventReader(
            connection: eventConnection(debug: debug), reconnection: reconnection,
            maximumEventSize: maximumEventSize, debug: debug)
        try await mappingErrors { try await reader.start() }
        let decoder = resource.options.decoder
        return ResponseStream(
            next: mappingErrors(of: {
                guard let event = try await reader.next() else { return nil }
                if let endMarker, event.data == endMarker {
                    reader.stop()
                    return nil
                }
                return try reader.decode(model, from: event, with: decoder)
            }), stop: { reader.stop() })
    }

    /// How the event reader sends this call again: only a deadline given to this call applies (an
    /// event stream is meant to stay open), and each connection gets what is left of it.
    private func eventConnection(debug: Bool) -> EventReader.Connection {
        var own = self
        own.spec.inheritsDeadline = false
        let stream = own
        let owner = CallOwner()
        return EventReader.Connection(
            method: method, timeouts: Timeouts(idle: spec.timeout, total: spec.deadline),
            validation: options.validation ?? resource.options.validation,
            redaction: resource.options.redaction, setsAccept: setsOwnHeader("Accept"),
            setsCacheControl: setsOwnHeader("Cache-Control"), ended: options.progressEnded, owner: owner,
            send: { left, validation, adjust throws(NetLayerError) in
                var attempt = stream
                if let left { attempt.spec.deadline = left }
                return try await attempt.open(
                    debug: debug, streams: true, validation: validation, adjust: adjust, owner: owner)
            })
    }

    /// Whether the target or this call set header `name` (a resource default does not count).
    func setsOwnHeader(_ name: String) -> Bool {
        if let target = try? spec.defaults.targetHeaders.get(), target[name] != nil { return true }
        return spec.headers.keys.contains { $0.caseInsensitiveEquals(name) }
    }
}

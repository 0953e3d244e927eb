import Foundation
import NetLayer

/// Serves one accepted TCP connection on its own thread until the peer closes, the request or
/// response ends the connection, or the server stops.
struct ServerConnection {
    let core: ServerCore
    let fd: Int32
    let id: Int

    private static let continueLine = Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    func run() {
        let fd = fd
        let reader = ByteReader { LoopbackSocket.receive(fd, into: $0) }
        let writer = ResponseWriter(
            send: { LoopbackSocket.sendAll(fd, $0) }, sleep: { sleepWatchingPeer($0) })
        let graceful = serve(reader: reader, writer: writer)
        if graceful { LoopbackSocket.drainAfterHalfClose(fd) }
        // Deregister before closing, so stop() never shuts down a reused fd number.
        core.state.withLock { $0.connections[id] = nil }
        LoopbackSocket.close(fd)
    }

    /// The request loop. Returns whether to close gracefully (half-close and drain first).
    private func serve(reader: ByteReader, writer: ResponseWriter) -> Bool {
        var sequence = 0
        while true {
            let head: RequestHead
            do {
                head = try HTTPRequestParser.readHead(from: reader)
            } catch {
                return reject(error, writer: writer)
            }
            let receivedAt = ContinuousClock.now
            let streamLimit = core.bodyStreaming?.limit(head.path)
            let maxBodyBytes = streamLimit ?? Int64(core.maxBodyBytes)
            if case .length(let length) = head.framing, Int64(length) > maxBodyBytes {
                return reject(.bodyTooLarge, writer: writer)  // before any 100 Continue
            }
            if head.expectsContinue, !LoopbackSocket.sendAll(fd, Self.continueLine) { return false }

            let body: (body: Data, trailers: HeaderFields)
            var streamedAnswer: (@Sendable (RecordedRequest) -> LoopbackResponse)?
            do throws(ParseError) {
                if let streamLimit, let streaming = core.bodyStreaming {
                    let streamed = stream(
                        head, limit: streamLimit, into: streaming.start(head, id), reader: reader)
                    streamedAnswer = streamed.answer
                    body = (Data(), try streamed.trailers.get())
                } else {
                    body = try HTTPRequestParser.readBody(
                        for: head, from: reader, maxBytes: core.maxBodyBytes)
                }
            } catch {
                return reject(error, writer: writer)
            }

            sequence += 1
            let request = RecordedRequest(
                method: head.method, url: URL(string: "http://127.0.0.1:\(core.port)\(head.target)"),
                target: head.target, version: head.version, headerFields: head.headerFields,
                body: body.body, trailers: body.trailers, receivedAt: receivedAt, connectionID: id,
                sequenceOnConnection: sequence)
            let handler = core.state.withLock { shared in
                shared.requests.append(request)
                return shared.routes[request.path]
            }
            let response = (handler ?? streamedAnswer ?? core.fallback)(request)
            let outcome = writer.write(
                response, method: head.method, version: head.version, requestKeepAlive: head.keepAlive
            )
            if response.dropConnection { return false }
            if outcome == .close { return true }
        }
    }

    /// Streams a request body into `consumer`; the answer for it, and the trailers or why the body
    /// is incomplete.
    private func stream(
        _ head: RequestHead, limit: Int64, into consumer: any StreamedRequestBody, reader: ByteReader
    ) -> (answer: @Sendable (RecordedRequest) -> LoopbackResponse, trailers: Result<HeaderFields, ParseError>)
    {
        let trailers = Result { () throws(ParseError) in
            try HTTPRequestParser.streamBody(for: head, from: reader, maxBytes: limit) {
                consumer.consume($0)
            }
        }
        let complete = (try? trailers.get()) != nil
        return (consumer.end(complete: complete), trailers)
    }

    /// Sleeps in short slices; gives up early (false) when the server stops or the peer hangs up,
    /// so an abandoned delayed or dripped response does not keep its thread alive.
    private func sleepWatchingPeer(_ duration: Duration) -> Bool {
        let deadline = ContinuousClock.now + duration
        while true {
            let left = deadline - ContinuousClock.now
            if left <= .zero { return true }
            if !core.sleep(min(left, .milliseconds(50))) { return false }
            if LoopbackSocket.peerHasClosed(fd) { return false }
        }
    }

    /// Answers an unreadable request (400/413/431) or ends quietly when the peer went away.
    private func reject(_ error: ParseError, writer: ResponseWriter) -> Bool {
        let response: LoopbackResponse
        switch error {
        case .closed, .truncated:
            return false
        case .malformed(let reason):
            response = .text("bad request: \(reason)", status: 400)
        case .headTooLarge:
            response = .text("request head too large", status: 431)
        case .bodyTooLarge:
            response = .text("request body too large", status: 413)
        }
        core.state.withLock { $0.rejectedRequests += 1 }
        var closing = response
        closing.closeConnection = true
        _ = writer.write(closing, method: "GET", version: "HTTP/1.1", requestKeepAlive: false)
        return true
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Serves one accepted TCP connection on its own thread until the peer closes, the request or
/// response ends the connection, or the server stops.
struct TestConnection {
    let core: TestServerCore
    let fd: Int32
    let id: Int

    private static let continueLine = Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    func run() {
        let fd = fd
        let reader = TestByteReader { TestSocket.receive(fd, into: $0) }
        let writer = TestResponseWriter(
            send: { TestSocket.sendAll(fd, $0) }, sleep: { sleepWatchingPeer($0) })
        let graceful = serve(reader: reader, writer: writer)
        if graceful { TestSocket.drainAfterHalfClose(fd) }
        // Deregister before closing, so stop() never shuts down a reused fd number.
        core.state.withLock { $0.connections[id] = nil }
        _ = close(fd)
    }

    /// The request loop. Returns whether to close gracefully (half-close and drain first).
    private func serve(reader: TestByteReader, writer: TestResponseWriter) -> Bool {
        var sequence = 0
        while true {
            let head: TestRequestHead
            do {
                head = try TestHTTPRequestParser.readHead(from: reader)
            } catch {
                return reject(error, writer: writer)
            }
            let receivedAt = ContinuousClock.now
            let isSink = TestTransferRoutes.isSink(head.path)
            let maxBodyBytes = isSink ? TestTransferRoutes.maxLength : Int64(core.maxBodyBytes)
            if case .length(let length) = head.framing, Int64(length) > maxBodyBytes {
                return reject(.bodyTooLarge, writer: writer)  // before any 100 Continue
            }
            if head.expectsContinue, !TestSocket.sendAll(fd, Self.continueLine) { return false }

            let body: (body: Data, trailers: [TestHeader])
            var sinkRecord: TestSinkRecord?
            do throws(TestParseError) {
                if isSink {
                    let sunk = sink(head, reader: reader)
                    core.addSinkRecord(sunk.record)
                    sinkRecord = sunk.record
                    body = (Data(), try sunk.trailers.get())
                } else {
                    body = try TestHTTPRequestParser.readBody(
                        for: head, from: reader, maxBytes: core.maxBodyBytes)
                }
            } catch {
                return reject(error, writer: writer)
            }

            sequence += 1
            let request = RecordedRequest(
                method: head.method, target: head.target, path: head.path, rawQuery: head.rawQuery,
                version: head.version, headers: head.headers, body: body.body, trailers: body.trailers,
                receivedAt: receivedAt, connectionID: id, sequenceOnConnection: sequence
            )
            let handler = core.state.withLock { shared in
                shared.requests.append(request)
                return shared.routes[request.path]
            }
            let response =
                handler?(request)
                ?? sinkRecord.map { TestTransferRoutes.sinkResponse($0, request: request) }
                ?? TestTransferRoutes.response(for: request, core: core)
                ?? TestRoutes.response(for: request, flakyAttempt: { core.nextFlakyAttempt($0) })
            let outcome = writer.write(
                response, method: head.method, version: head.version, requestKeepAlive: head.keepAlive
            )
            if response.dropConnection { return false }
            if outcome == .close { return true }
        }
    }

    /// Streams a `/sink` request body into a record; the trailers, or why the body is incomplete.
    private func sink(_ head: TestRequestHead, reader: TestByteReader) -> (
        record: TestSinkRecord, trailers: Result<[TestHeader], TestParseError>
    ) {
        var accumulator = TestSinkAccumulator()
        let trailers = Result { () throws(TestParseError) in
            try TestHTTPRequestParser.streamBody(
                for: head, from: reader, maxBytes: TestTransferRoutes.maxLength
            ) { accumulator.add($0) }
        }
        let complete = (try? trailers.get()) != nil
        let record = TestSinkRecord(
            path: head.path, rawQuery: head.rawQuery, method: head.method, headers: head.headers,
            length: accumulator.checksum.count, checksum: accumulator.checksum.value,
            head: accumulator.head, tail: accumulator.tail, complete: complete, connectionID: id)
        return (record, trailers)
    }

    /// Sleeps in short slices; gives up early (false) when the server stops or the peer hangs up,
    /// so an abandoned delayed or dripped response does not keep its thread alive.
    private func sleepWatchingPeer(_ duration: Duration) -> Bool {
        let deadline = ContinuousClock.now + duration
        while true {
            let left = deadline - ContinuousClock.now
            if left <= .zero { return true }
            if !core.sleep(min(left, .milliseconds(50))) { return false }
            if TestSocket.peerHasClosed(fd) { return false }
        }
    }

    /// Answers an unreadable request (400/413/431) or ends quietly when the peer went away.
    private func reject(_ error: TestParseError, writer: TestResponseWriter) -> Bool {
        let response: TestResponse
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

import Foundation
import NetLayer

/// Turns a ``LoopbackResponse`` into bytes on the wire: delay, head, body (whole, dripped, streamed or chunked),
/// HEAD and no-body statuses, and whether the connection stays open afterwards.
struct ResponseWriter {
    /// Writes bytes; false when the peer is gone.
    let send: (Data) -> Bool
    /// Sleeps; false when the server is stopping (the writer then gives up).
    let sleep: (Duration) -> Bool

    enum Outcome: Equatable {
        case keepOpen
        case close
    }

    /// Writes `response` to a request with `method`/`version`; `requestKeepAlive` is what the
    /// request's `Connection` header and version allow.
    func write(_ response: LoopbackResponse, method: String, version: String, requestKeepAlive: Bool)
        -> Outcome
    {
        if response.delay > .zero, !sleep(response.delay) { return .close }
        if response.dropConnection { return .close }
        if let pieces = response.rawWire {
            for piece in pieces {
                if piece.pause > .zero, !sleep(piece.pause) { return .close }
                if !piece.bytes.isEmpty, !send(piece.bytes) { return .close }
            }
            return .close
        }

        let plan = Self.plan(response, method: method, version: version, requestKeepAlive: requestKeepAlive)
        let outcome: Outcome = plan.keepOpen ? .keepOpen : .close
        if let streamed = response.streamedBody {
            return writeStreamed(streamed, plan: plan, outcome: outcome)
        }
        guard plan.sendsBody else { return send(plan.head) ? outcome : .close }

        guard response.drip != nil || plan.chunked else {
            var whole = plan.head
            whole.append(response.body)
            return send(whole) ? outcome : .close
        }

        guard send(plan.head) else { return .close }
        let pieces = response.drip?.pieces(of: response.body) ?? [response.body]
        if let drip = response.drip, drip.initialPause > .zero, !sleep(drip.initialPause) { return .close }
        for (index, piece) in pieces.enumerated() {
            if index > 0, let drip = response.drip, drip.interval > .zero, !sleep(drip.interval) {
                return .close
            }
            if piece.isEmpty { continue }  // an empty chunk would end a chunked body early
            guard send(plan.chunked ? Self.chunk(piece) : piece) else { return .close }
        }
        if plan.chunked, !send(Data("0\r\n\r\n".utf8)) { return .close }
        return outcome
    }

    /// Sends the head, then `body` piece by piece (pausing and cutting as it says), reporting progress.
    private func writeStreamed(_ body: LoopbackResponse.StreamedBody, plan: Plan, outcome: Outcome) -> Outcome
    {
        let report = body.progress ?? { _, _ in }
        guard plan.sendsBody else {
            let sent = send(plan.head)
            report(0, sent ? .finished : .cut)
            return sent ? outcome : .close
        }
        guard send(plan.head) else {
            report(0, .cut)
            return .close
        }
        let limit = min(body.length, max(0, body.interruptAfter ?? body.length))
        let pieceSize = Int64(max(1, body.pieceSize))
        var written: Int64 = 0
        while written < limit {
            if written > 0, body.pause > .zero, !sleep(body.pause) { break }
            let end = min(limit, written + pieceSize)
            let piece = body.bytes(written..<end)
            guard !piece.isEmpty, send(plan.chunked ? Self.chunk(piece) : piece) else { break }
            // A short piece (a file that shrank) ends the body here: the connection is closed, so the
            // client sees a short body instead of waiting for bytes that never come.
            let short = Int64(piece.count) < end - written
            written = short ? written + Int64(piece.count) : end
            report(written, .writing)
            if short { break }
        }
        guard written == body.length, !plan.chunked || send(Data("0\r\n\r\n".utf8)) else {
            report(written, .cut)
            return .close
        }
        report(written, .finished)
        return outcome
    }

    struct Plan {
        var head: Data
        var sendsBody: Bool
        var chunked: Bool
        var keepOpen: Bool
    }

    /// Decides the head bytes and framing (pure; unit-testable).
    static func plan(_ response: LoopbackResponse, method: String, version: String, requestKeepAlive: Bool)
        -> Plan
    {
        var headers = response.headerFields.map { (name: $0.name, value: $0.value) }
        let bodyLength = response.streamedBody?.length ?? Int64(response.body.count)
        let forbidsBody = response.statusForbidsBody
        let contentLength = HTTPRequestParser.tokens(response.headerFields, "Content-Length")
        let codings = HTTPRequestParser.tokens(response.headerFields, "Transfer-Encoding")
        var chunked = false
        var framingMismatch = false
        if !contentLength.isEmpty || !codings.isEmpty {
            // The handler framed the body itself (perhaps wrongly, on purpose): send as is, then close
            // unless the framing is consistent.
            chunked = codings.last == "chunked"
            framingMismatch = !chunked && contentLength != [String(bodyLength)]
        } else if !forbidsBody {
            if response.chunked {
                headers.append(("Transfer-Encoding", "chunked"))
                chunked = true
            } else {
                headers.append(("Content-Length", String(bodyLength)))
            }
        }

        let connection = HTTPRequestParser.tokens(response.headerFields, "Connection")
        let keepOpen =
            requestKeepAlive && !response.closeConnection && !connection.contains("close") && !framingMismatch
        if connection.isEmpty {
            if !keepOpen {
                headers.append(("Connection", "close"))
            } else if version == "HTTP/1.0" {
                headers.append(("Connection", "keep-alive"))
            }
        }

        let reason = response.reason ?? LoopbackResponse.standardReason(for: response.status)
        var text = "HTTP/1.1 \(response.status) \(reason)\r\n"
        for header in headers {
            text += "\(header.name): \(header.value)\r\n"
        }
        text += "\r\n"
        let sendsBody = !forbidsBody && method != "HEAD"
        return Plan(
            head: Data(text.utf8), sendsBody: sendsBody, chunked: chunked && sendsBody, keepOpen: keepOpen)
    }

    /// One chunk of a chunked body: hex size, CRLF, bytes, CRLF.
    static func chunk(_ piece: Data) -> Data {
        var framed = Data(String(piece.count, radix: 16).utf8)
        framed.append(contentsOf: [13, 10])
        framed.append(piece)
        framed.append(contentsOf: [13, 10])
        return framed
    }
}

import Foundation
import NetLayer

extension TransportConformance {
    /// Malformed and unusual response heads and framing: what must be accepted, and what must be
    /// an error (never a crash, never a hang).
    static let malformedScenarios: [Entry] = [
        Entry(
            "malformed.status-without-reason",
            "A status line without a reason phrase (`HTTP/1.1 200`) is accepted: status 200 and the body."
        ) { probe in
            probe.serveRaw("/status", "HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok")
            let (head, body) = try await probe.fetch(
                probe.request("/status"), expecting: "the response of a status line without reason phrase")
            try probe.expect(head.statusCode == 200, "status 200", got: "status \(head.statusCode)")
            try probe.expect(body == Data("ok".utf8), "the body \"ok\"", got: Probe.quoted(body))
        },
        Entry(
            "malformed.status-version-case",
            "A status line spelled `Http/1.1 200 OK` (the version is case-sensitive) is an error."
        ) { probe in
            probe.serveRaw("/status", "Http/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            _ = try await probe.fetchFails(probe.request("/status"), expecting: "an error for `Http/1.1`")
        },
        Entry(
            "malformed.status-garbage",
            "A response that is not HTTP (`HELLO WORLD`) is an error."
        ) { probe in
            probe.serveRaw("/status", "HELLO WORLD\r\nthis is not http\r\n\r\n")
            _ = try await probe.fetchFails(
                probe.request("/status"), expecting: "an error for a garbage status line")
        },
        Entry(
            "malformed.header-without-colon",
            "A header line without a colon gives an error or is ignored; the other fields and the body are not lost."
        ) { probe in
            probe.serveRaw(
                "/header", "HTTP/1.1 200 OK\r\nX-Before: 1\r\nNoColonHere\r\nContent-Length: 2\r\n\r\nok")
            let response: TransportResponse
            do {
                response = try await probe.transport.send(
                    probe.request("/header"), context: TransportContext())
            } catch {
                return  // refusing the response is allowed
            }
            let body: Data
            do { body = try await response.body.collect() } catch { return }
            try probe.expect(
                body == Data("ok".utf8) && response.head.headerFields["X-Before"] == "1",
                "an error, or the body \"ok\" with X-Before: 1",
                got:
                    "X-Before \(response.head.headerFields.values(for: "X-Before")), body \(Probe.quoted(body))"
            )
        },
        Entry(
            "malformed.obs-fold",
            "A field folded over two lines (obs-fold) gives an error, or its value with the fold replaced by spaces (RFC 9112 §5.2)."
        ) { probe in
            probe.serveRaw(
                "/fold", "HTTP/1.1 200 OK\r\nX-Folded: first\r\n second\r\nContent-Length: 2\r\n\r\nok")
            let response: TransportResponse
            do {
                response = try await probe.transport.send(probe.request("/fold"), context: TransportContext())
            } catch {
                return  // refusing the response is allowed
            }
            let body: Data
            do { body = try await response.body.collect() } catch { return }
            let values = response.head.headerFields.values(for: "X-Folded")
            let words = values.joined(separator: " ").split(whereSeparator: { $0 == " " || $0 == "\t" })
            try probe.expect(
                body == Data("ok".utf8) && words == ["first", "second"]
                    && !values.contains { $0.contains("\r") || $0.contains("\n") },
                "an error, or X-Folded: first second (no CR or LF) and the body \"ok\"",
                got: "X-Folded \(values), body \(Probe.quoted(body))")
        },
        Entry(
            "malformed.body-shorter-than-length",
            "A body that ends (the connection closes) before its Content-Length is an error, not a short success."
        ) { probe in
            probe.serveRaw("/short", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
            _ = try await probe.fetchFails(
                probe.request("/short"), expecting: "an error for 3 of 10 announced bytes")
        },
        Entry(
            "malformed.conflicting-content-length",
            "Two Content-Length fields that disagree are an error (RFC 9112 §6.3)."
        ) { probe in
            probe.serveRaw(
                "/lengths", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nabcdefg")
            _ = try await probe.fetchFails(
                probe.request("/lengths"), expecting: "an error for Content-Length 5 and 7")
        },
    ]
}

extension Probe {
    /// Answers `path` with exactly `wire` (then the connection closes, or after `holdOpen` when
    /// given: a client that waits for more bytes than the head announces then hangs that long).
    func serveRaw(_ path: String, _ wire: String, holdOpen: Duration? = nil) {
        var pieces = [LoopbackResponse.RawPiece(wire)]
        if let holdOpen { pieces.append(LoopbackResponse.RawPiece(Data(), after: holdOpen)) }
        server.route(path) { [pieces] _ in .raw(pieces) }
    }
}

import Foundation
import NetLayer

extension TransportConformance {
    /// Response bodies: when there is none despite a length, trailers, compression, and bodies
    /// that arrive slowly.
    static let bodyScenarios: [Entry] = [
        Entry(
            "body.204-with-content-length",
            "A 204 carrying Content-Length: 5 has no body: the call ends at once with an empty body, without waiting for bytes."
        ) { probe in
            probe.serveRaw(
                "/no-content", "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", holdOpen: .seconds(10))
            try await probe.expectNoBody(probe.request("/no-content"), status: 204)
        },
        Entry(
            "body.304-with-content-length",
            "A 304 carrying Content-Length: 5 has no body: the call ends at once with an empty body, without waiting for bytes."
        ) { probe in
            probe.serveRaw(
                "/not-modified", "HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\nContent-Length: 5\r\n\r\n",
                holdOpen: .seconds(10))
            var fields = HeaderFields()
            try fields.setValue("\"v1\"", for: "If-None-Match")
            try await probe.expectNoBody(probe.request("/not-modified", headers: fields), status: 304)
        },
        Entry(
            "body.head-with-content-length",
            "A HEAD answered with Content-Length: 1000 has no body: the call ends at once, the Content-Length field kept."
        ) { probe in
            probe.server.route("/head") { _ in .text(String(repeating: "x", count: 1000)) }
            let head = try await probe.expectNoBody(probe.request(.head, "/head"), status: 200)
            try probe.expect(
                head.headerFields["Content-Length"] == "1000", "Content-Length: 1000 in the head",
                got: "Content-Length \(head.headerFields.values(for: "Content-Length"))")
        },
        Entry(
            "body.chunked-trailers",
            "A chunked body whose last chunk carries trailer fields is delivered whole (the trailers may be ignored)."
        ) { probe in
            probe.serveRaw(
                "/trailers",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\n\r\n"
                    + "2\r\nok\r\n3\r\n!!!\r\n0\r\nX-Checksum: 5\r\n\r\n")
            let (head, body) = try await probe.within(.seconds(5), "the chunked response to be read") {
                try await probe.fetch(probe.request("/trailers"), expecting: "the chunked body with trailers")
            }
            try probe.expect(head.statusCode == 200, "status 200", got: "status \(head.statusCode)")
            try probe.expect(body == Data("ok!!!".utf8), "the body \"ok!!!\"", got: Probe.quoted(body))
        },
        Entry(
            "body.gzip-decoded",
            "A body sent with Content-Encoding: gzip reaches the caller decoded."
        ) { probe in
            try await probe.expectDecoded(CompressedFixtures.gzip, coding: "gzip")
        },
        Entry(
            "body.deflate-decoded",
            "A body sent with Content-Encoding: deflate (zlib format, RFC 9110 §8.4.1.2) reaches the caller decoded."
        ) { probe in
            try await probe.expectDecoded(CompressedFixtures.deflate, coding: "deflate")
        },
        Entry(
            "body.drip-fed",
            "A body sent a few bytes at a time (Content-Length, then chunked) arrives whole and in order, collected or streamed."
        ) { probe in
            let text = String(repeating: "0123456789abcdef", count: 6)
            let drip = LoopbackResponse.Drip(pieceSize: 8, interval: .milliseconds(40))
            probe.server.route("/drip") { _ in LoopbackResponse.text(text).dripped(drip) }
            probe.server.route("/drip-chunked") { _ in
                var response = LoopbackResponse.text(text).dripped(drip)
                response.chunked = true
                return response
            }
            for path in ["/drip", "/drip-chunked"] {
                let (_, collected) = try await probe.fetch(probe.request(path), expecting: "the dripped body")
                try probe.expect(
                    collected == Data(text.utf8), "\(path): the \(text.utf8.count) bytes sent",
                    got: Probe.quoted(collected))
                let streamed = try await probe.streamWhole(probe.request(path))
                try probe.expect(
                    streamed == Data(text.utf8), "\(path) streamed: the \(text.utf8.count) bytes sent",
                    got: Probe.quoted(streamed))
            }
        },
    ]
}

extension Probe {
    /// Sends `request`, which must end within 4 seconds with `status` and an empty body.
    @discardableResult
    func expectNoBody(_ request: TransportRequest, status: Int) async throws -> ResponseHead {
        let (head, body) = try await within(.seconds(4), "the call to end without reading a body") {
            try await fetch(request, expecting: "status \(status) with no body")
        }
        try expect(head.statusCode == status, "status \(status)", got: "status \(head.statusCode)")
        try expect(body.isEmpty, "an empty body", got: "\(body.count) bytes \(Self.quoted(body))")
        return head
    }

    /// Serves `compressed` with `Content-Encoding: coding` and expects the plain text back.
    func expectDecoded(_ compressed: [UInt8], coding: String) async throws {
        server.route("/compressed") { _ in
            LoopbackResponse(
                headers: [("Content-Type", "text/plain"), ("Content-Encoding", coding)],
                body: Data(compressed))
        }
        var fields = HeaderFields()
        try fields.setValue(coding, for: "Accept-Encoding")
        let (head, body) = try await fetch(
            request("/compressed", headers: fields), expecting: "the \(coding) body")
        try expect(head.statusCode == 200, "status 200", got: "status \(head.statusCode)")
        try expect(
            body == Data(CompressedFixtures.plainText.utf8),
            "the \(CompressedFixtures.plainText.utf8.count) decoded bytes",
            got: "\(body.count) bytes \(Self.quoted(body))")
    }

    /// Sends `request` as a streamed call and reads the body chunk by chunk.
    func streamWhole(_ request: TransportRequest) async throws -> Data {
        do {
            let response = try await transport.send(request, context: TransportContext(streamsResponse: true))
            var data = Data()
            for try await chunk in response.body { data.append(chunk) }
            return data
        } catch {
            throw failure(expected: "the streamed body", actual: Self.describe(error))
        }
    }
}

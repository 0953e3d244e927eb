import Foundation
import NetLayer

extension TransportConformance {
    /// Header fields both ways: repeated names are neither dropped nor collapsed, an empty value
    /// is a field.
    static let fieldScenarios: [Entry] = [
        Entry(
            "fields.repeated-request",
            "A request with two fields of one name reaches the server with both values, in order (as two fields or one joined with a comma)."
        ) { probe in
            let fields = HeaderFields(received: [
                (name: "X-Conformance-Multi", value: "first"), (name: "X-Conformance-Multi", value: "second"),
            ])
            let received = try await probe.sendRecorded(probe.request("/multi", headers: fields))
            let values = received.headerValues("X-Conformance-Multi")
            let items = values.flatMap { $0.split(separator: ",") }.map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            try probe.expect(
                items == ["first", "second"], "X-Conformance-Multi with the values first and second",
                got: "X-Conformance-Multi \(values)")
        },
        Entry(
            "fields.repeated-response",
            "A response with two Set-Cookie and two Link fields keeps each value as a field of its own, in order."
        ) { probe in
            let cookies = ["a=1; Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT", "b=2; Path=/"]
            let links = ["</page/2>; rel=\"next\"", "</page/9>; rel=\"last\""]
            probe.server.route("/multi") { _ in
                LoopbackResponse(
                    headers: [
                        ("Set-Cookie", cookies[0]), ("Link", links[0]), ("Set-Cookie", cookies[1]),
                        ("Link", links[1]),
                    ], body: Data("ok".utf8))
            }
            let (head, _) = try await probe.fetch(probe.request("/multi"), expecting: "the response")
            let gotCookies = head.headerFields.values(for: "Set-Cookie")
            let gotLinks = head.headerFields.values(for: "Link")
            try probe.expect(
                gotCookies == cookies, "two Set-Cookie fields \(cookies)", got: "Set-Cookie \(gotCookies)")
            try probe.expect(gotLinks == links, "two Link fields \(links)", got: "Link \(gotLinks)")
        },
        Entry(
            "fields.empty-value-request",
            "A request field with an empty value reaches the server as that field with an empty value."
        ) { probe in
            let fields = HeaderFields(received: [(name: "X-Conformance-Empty", value: "")])
            let received = try await probe.sendRecorded(probe.request("/empty", headers: fields))
            let values = received.headerValues("X-Conformance-Empty")
            try probe.expect(
                values == [""], "one X-Conformance-Empty field with an empty value",
                got: "X-Conformance-Empty \(values)")
        },
        Entry(
            "fields.empty-value-response",
            "A response field with an empty value reaches the caller as that field with an empty value."
        ) { probe in
            probe.serveRaw("/empty", "HTTP/1.1 200 OK\r\nX-Conformance-Empty:\r\nContent-Length: 2\r\n\r\nok")
            let (head, body) = try await probe.fetch(probe.request("/empty"), expecting: "the response")
            let values = head.headerFields.values(for: "X-Conformance-Empty")
            try probe.expect(
                values == [""], "one X-Conformance-Empty field with an empty value",
                got: "X-Conformance-Empty \(values)")
            try probe.expect(body == Data("ok".utf8), "the body \"ok\"", got: Probe.quoted(body))
        },
    ]
}

extension Probe {
    /// Sends `request` (answered "ok"), and returns what the server received.
    func sendRecorded(_ request: TransportRequest) async throws -> RecordedRequest {
        let path = request.url.path
        server.route(path) { _ in .text("ok") }
        let (head, _) = try await fetch(request, expecting: "the request to be answered")
        try expect(head.statusCode == 200, "status 200", got: "status \(head.statusCode)")
        guard let received = server.requests(path: path).first else {
            throw failure(expected: "the server to receive the request", actual: "no request arrived")
        }
        return received
    }
}

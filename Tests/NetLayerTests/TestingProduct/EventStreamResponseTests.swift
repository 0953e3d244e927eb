import Foundation
import NetLayer
import Testing

@testable import NetLayerTesting

/// The events NetLayer's `events()` reads from `resource` at `path`, to the end of the stream.
private func readEvents(_ resource: Resource, _ path: String) async throws -> [ServerSentEvent] {
    var events: [ServerSentEvent] = []
    for try await event in try await EchoTarget(resource: resource, path: path).makeExecutor().events() {
        events.append(event)
    }
    return events
}

private func stubbed(_ stub: StubTransport) -> Resource {
    Resource(protocol: .https, domain: "api.example.com", version: "v1", transport: stub)
}

/// `eventStream(_:)` writes the WHATWG text/event-stream format, and NetLayer reads back what was
/// meant.
@Suite("NetLayerTesting: event-stream responses")
struct EventStreamResponseTests {
    static let events = [
        ServerSentEvent(id: "1", data: "hello"),
        ServerSentEvent(
            id: "2", event: "update", data: "line one\r\nline two\rthree\n", retry: .milliseconds(1500)),
        ServerSentEvent(data: ""),
        ServerSentEvent(event: "message", data: " leading space"),
    ]

    @Test func writesEachFieldOnItsOwnLine() throws {
        let response = try StubResponse.eventStream(Self.events)
        #expect(response.status == 200)
        #expect(response.headerFields["Content-Type"] == "text/event-stream")
        #expect(response.headerFields["Cache-Control"] == "no-cache")
        let expected =
            "id: 1\ndata: hello\n\n"
            + "id: 2\nevent: update\ndata: line one\ndata: line two\ndata: three\ndata:\nretry: 1500\n\n"
            + "data:\n\n"
            + "data:  leading space\n\n"
        #expect(String(decoding: response.body, as: UTF8.self) == expected)
        #expect(try StubResponse.eventStream([], status: 204).body.isEmpty)
    }

    @Test func netLayerReadsBackTheEventsThroughAStub() async throws {
        let stub = StubTransport()
        stub.on(.get, "/v1/feed", try .eventStream(Self.events))
        let received = try await readEvents(stubbed(stub), "/feed")
        #expect(
            received == [
                ServerSentEvent(id: "1", data: "hello"),
                ServerSentEvent(
                    id: "2", event: "update", data: "line one\nline two\nthree\n", retry: .milliseconds(1500)),
                // A reader keeps the last id for events that set none.
                ServerSentEvent(id: "2", data: ""),
                ServerSentEvent(id: "2", data: " leading space"),
            ])
    }

    @Test func randomEventsRoundTrip() async throws {
        var random = SystemRandomNumberGenerator()
        let pieces = [
            "a", "é", "✓", " ", "  ", ":", "data: x", "\t", "\n", "\r\n", "\r", "id: 9", "\u{0}", "🙂",
        ]
        func text(_ count: Int, allowing allowed: [String]) -> String {
            (0..<count).map { _ in allowed.randomElement(using: &random) ?? "" }.joined()
        }
        let singleLine = pieces.filter { !$0.contains("\n") && !$0.contains("\r") }
        var sent: [ServerSentEvent] = []
        var expected: [ServerSentEvent] = []
        var lastID: String?
        for _ in 0..<200 {
            let id: String? =
                Bool.random(using: &random)
                ? text(Int.random(in: 0...3, using: &random), allowing: singleLine.filter { $0 != "\u{0}" })
                : nil
            let type =
                Bool.random(using: &random)
                ? "message" : "t" + text(Int.random(in: 0...3, using: &random), allowing: singleLine)
            let data = text(Int.random(in: 0...6, using: &random), allowing: pieces)
            let retry: Duration? =
                Bool.random(using: &random) ? .milliseconds(Int.random(in: 0...9_999, using: &random)) : nil
            sent.append(ServerSentEvent(id: id, event: type, data: data, retry: retry))
            if let id { lastID = id.isEmpty ? nil : id }
            let lines = data.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(
                of: "\r", with: "\n")
            expected.append(ServerSentEvent(id: lastID, event: type, data: lines, retry: retry))
        }
        let stub = StubTransport()
        stub.on(.get, "/v1/random", try .eventStream(sent))
        let received = try await readEvents(stubbed(stub), "/random")
        #expect(received.count == expected.count)
        for (index, pair) in zip(received, expected).enumerated() where pair.0 != pair.1 {
            Issue.record("event \(index): sent \(sent[index]), received \(pair.0), expected \(pair.1)")
            break
        }
    }

    @Test func valuesTheFormatCannotCarryThrowTypedErrors() {
        #expect(throws: EventStreamEncodingError(index: 1, reason: "the id holds a line break")) {
            try StubResponse.eventStream([
                ServerSentEvent(data: "ok"), ServerSentEvent(id: "a\nb", data: "x"),
            ])
        }
        #expect(throws: EventStreamEncodingError(index: 0, reason: "the id holds a line break")) {
            try StubResponse.eventStream([ServerSentEvent(id: "a\rb", data: "x")])
        }
        #expect(
            throws: EventStreamEncodingError(index: 0, reason: "the id holds a NUL, which readers ignore")
        ) {
            try StubResponse.eventStream([ServerSentEvent(id: "a\u{0}", data: "x")])
        }
        #expect(throws: EventStreamEncodingError(index: 0, reason: "the event type holds a line break")) {
            try StubResponse.eventStream([ServerSentEvent(event: "a\r\nb", data: "x")])
        }
        let negative = #expect(throws: EventStreamEncodingError.self) {
            try StubResponse.eventStream([ServerSentEvent(data: "x", retry: .milliseconds(-1))])
        }
        #expect(negative?.description == "event 0: retry -0.001 seconds is negative")
    }

    @Test func retryIsWrittenInWholeMillisecondsAndClamped() throws {
        func retryLine(_ retry: Duration) throws -> String? {
            let body = try StubResponse.eventStream([ServerSentEvent(data: "x", retry: retry)]).body
            return String(decoding: body, as: UTF8.self).split(separator: "\n").first {
                $0.hasPrefix("retry:")
            }
            .map(String.init)
        }
        #expect(try retryLine(.nanoseconds(1_999_999)) == "retry: 1")
        #expect(try retryLine(.zero) == "retry: 0")
        #expect(try retryLine(.seconds(90)) == "retry: 90000")
        #expect(try retryLine(.seconds(Int64.max)) == "retry: \(Int64.max)")
    }
}

extension WireTests {
    /// The same responses over a real socket.
    @Suite("NetLayerTesting: event-stream responses on the wire")
    struct EventStreamResponseWireTests {
        @Test func aLoopbackEventStreamArrivesPieceByPiece() async throws {
            let server = try LoopbackServer.start()
            defer { server.stop() }
            let events = [
                ServerSentEvent(id: "7", data: "{\"n\":1}"), ServerSentEvent(event: "done", data: "bye"),
            ]
            let response = try LoopbackResponse.eventStream(events)
            let first = "id: 7\ndata: {\"n\":1}\n\n".utf8.count
            server.route("/v1/feed") { _ in
                response.dripped(.init(pieceLengths: [first], interval: .milliseconds(20)))
            }
            let api = Resource(protocol: .http, domain: server.hostAndPort, version: "v1")
            let received = try await readEvents(api, "/feed")
            #expect(
                received == [
                    ServerSentEvent(id: "7", data: "{\"n\":1}"),
                    ServerSentEvent(id: "7", event: "done", data: "bye"),
                ])
            let request = try #require(server.requests(path: "/v1/feed").first)
            #expect(request.header("Accept") == "text/event-stream")
        }
    }
}

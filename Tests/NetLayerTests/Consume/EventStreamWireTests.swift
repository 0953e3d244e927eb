import Foundation
import Testing

@testable import NetLayer
@testable import NetLayerTesting

extension WireTests {
    /// Issue 8: Server-Sent Events against the in-process server.
    @Suite("Server-Sent Events: on the wire")
    struct EventStreamWireTests {
        static let server = TestServerPool.make()

        /// A finished `text/event-stream` response.
        static func events(_ text: String, status: Int = 200) -> TestResponse {
            TestResponse(
                status: status, headers: [("Content-Type", "text/event-stream; charset=utf-8")],
                body: Data(text.utf8))
        }

        /// A stream that never ends by itself: `prefix`, then `unit` again and again, a piece every
        /// `pause`; `state` hears how far the writer got.
        static func endless(
            prefix: String, unit: String, pause: Duration = .milliseconds(20),
            state: TestLocked<TestStreamedBody.State?>? = nil
        ) -> TestResponse {
            let head = Array(prefix.utf8)
            let repeated = Array(unit.utf8)
            var body = TestStreamedBody(length: 1 << 40) { range in
                var bytes = Data(capacity: range.count)
                for offset in range {
                    bytes.append(
                        offset < head.count
                            ? head[Int(offset)]
                            : repeated[Int((offset - Int64(head.count)) % Int64(repeated.count))])
                }
                return bytes
            }
            body.pieceSize = max(1, repeated.count)
            body.pause = pause
            body.progress = { _, current in state?.withLock { $0 = current } }
            var response = TestResponse(status: 200, headers: [("Content-Type", "text/event-stream")])
            response.streamedBody = body
            return response
        }

        @Test func aPostStreamsEventsWithTheEventStreamHeaders() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                Self.events(
                    "data: {\"token\":\"Hel\"}\n\ndata: {\"token\":\"lo\"}\n\nevent: done\ndata: [DONE]\n\n")
            }
            let api = TestAPI(server: server, headers: ["Accept": "application/json"])
            var events: [ServerSentEvent] = []
            for try await event in try await api.target(path)
                .makeExecutor(method: .post, body: .json(["prompt": "hi"])).events()
            {
                events.append(event)
            }
            #expect(
                events == [
                    ServerSentEvent(data: "{\"token\":\"Hel\"}"), ServerSentEvent(data: "{\"token\":\"lo\"}"),
                    ServerSentEvent(event: "done", data: "[DONE]"),
                ])
            let request = try #require(server.requests(path: path).first)
            #expect(request.method == "POST")
            #expect(request.bodyText == "{\"prompt\":\"hi\"}")
            // The resource-wide JSON Accept is replaced; the event stream's headers go out.
            #expect(request.headerValues("Accept") == ["text/event-stream"])
            #expect(request.header("Cache-Control") == "no-cache")
            #expect(request.header("Last-Event-ID") == nil)
        }

        @Test func anAcceptOrCacheControlSetByTheTargetOrTheCallIsKept() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in Self.events("data: x\n\n") }
            let api = TestAPI(server: server)
            _ = try await api.target(path, headers: ["accept": "text/event-stream, application/json"])
                .makeExecutor(headers: ["Cache-Control": "max-age=0"]).events()
            let request = try #require(await server.waitForRequests(count: 1, path: path).first)
            #expect(request.headerValues("Accept") == ["text/event-stream, application/json"])
            #expect(request.headerValues("Cache-Control") == ["max-age=0"])
        }

        @Test func anUnacceptableStatusThrowsWithTheBodyBeforeAnyEvent() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .json("{\"error\":\"quota\"}", status: 429) }
            let error = await #expect(throws: NetLayerError.self) {
                _ = try await TestAPI(server: server).target(path).makeExecutor().events()
            }
            #expect(error?.code == .unacceptableStatus && error?.statusCode == 429)
            #expect(error?.body == Data("{\"error\":\"quota\"}".utf8))
        }

        @Test func aResponseThatIsNotAnEventStreamThrowsWithTheBody() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .json("{\"answer\":42}") }
            let error = await #expect(throws: NetLayerError.self) {
                _ = try await TestAPI(server: server).target(path).makeExecutor().events()
            }
            #expect(error?.code == .unacceptableContentType && error?.statusCode == 200)
            #expect(error?.body == Data("{\"answer\":42}".utf8))
            #expect(error?.message.contains("application/json") == true)
            #expect(error?.message.contains("text/event-stream") == true)
        }

        @Test func a204GivesAnEmptyStream() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in TestResponse(status: 204) }
            var count = 0
            for try await _ in try await TestAPI(server: server).target(path).makeExecutor()
                .events(reconnection: .init(defaultDelay: .milliseconds(10)))
            {
                count += 1
            }
            #expect(count == 0)
            #expect(server.requests(path: path).count == 1)
        }

        @Test func eventsDrippedOneByteAtATimeArriveWhole() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let text = "\u{FEFF}id: 7\r\nevent: note\r\ndata: é€𝄞\r\ndata: two\r\r: comment\ndata: last\n\n"
            server.route(path) { _ in
                Self.events(text).dripped(TestDrip(pieceSize: 1, interval: .milliseconds(1)))
            }
            var events: [ServerSentEvent] = []
            for try await event in try await TestAPI(server: server).target(path).makeExecutor().events() {
                events.append(event)
            }
            #expect(
                events == [
                    ServerSentEvent(id: "7", event: "note", data: "é€𝄞\ntwo"),
                    ServerSentEvent(id: "7", data: "last"),
                ])
        }

        @Test func breakingOutOfTheLoopClosesTheConnectionAndNeverReconnects() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let state = TestLocked<TestStreamedBody.State?>(nil)
            server.route(path) { _ in
                Self.endless(prefix: "retry: 50\n\n", unit: "data: tick\n\n", state: state)
            }
            var seen = 0
            for try await event in try await TestAPI(server: server).target(path).makeExecutor()
                .events(reconnection: .init(defaultDelay: .milliseconds(50)))
            {
                #expect(event.data == "tick")
                seen += 1
                if seen == 3 { break }
            }
            let start = ContinuousClock.now
            #expect(state.wait(timeout: .seconds(3)) { $0 == .cut })
            #expect(ContinuousClock.now - start < .seconds(2))
            // Well past the retry time: still the one request.
            try await Task.sleep(for: .milliseconds(300))
            #expect(server.requests(path: path).count == 1)
        }

        @Test func noEventIsLostBeforeTheFirstIteration() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let text = (1...50).map { "data: \($0)\n\n" }.joined()
            server.route(path) { _ in Self.events(text) }
            let stream = try await TestAPI(server: server).target(path).makeExecutor().events()
            try await Task.sleep(for: .milliseconds(300))
            var data: [String] = []
            for try await event in stream { data.append(event.data) }
            #expect(data == (1...50).map(String.init))
        }

        @Test func reconnectionSendsLastEventIDAfterTheServersRetryTime() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let hits = HitCounter()
            server.route(path) { _ in
                let hit = hits.next()
                switch hit {
                case 1:
                    return Self.events(
                        "retry: 400\nid: a-1\ndata: one\n\nid: a-2\ndata: two\n\nid: lost\ndata: cut")
                case 2: return Self.events("data: three\n\n")
                default: return TestResponse(status: 204)
                }
            }
            var events: [ServerSentEvent] = []
            for try await event in try await TestAPI(server: server).target(path).makeExecutor()
                .events(reconnection: .init(defaultDelay: .seconds(5)))
            {
                events.append(event)
            }
            #expect(events.map(\.data) == ["one", "two", "three"])
            #expect(events.map(\.id) == ["a-1", "a-2", "a-2"])
            #expect(events.first?.retry == .milliseconds(400))
            let requests = server.requests(path: path)
            #expect(requests.count == 3)
            #expect(requests.map { $0.header("Last-Event-ID") } == [nil, "a-2", "a-2"])
            // The server's retry (400 ms) is honoured within 10%, not the 5 s default.
            if requests.count == 3 {
                for (before, after) in zip(requests, requests.dropFirst()) {
                    let gap = after.receivedAt - before.receivedAt
                    #expect(
                        gap >= .milliseconds(400) && gap < .milliseconds(440) + .milliseconds(150), "\(gap)")
                }
            }
        }

        @Test func aDroppedConnectionReconnectsAndDiscardsTheHalfEvent() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let hits = HitCounter()
            server.route(path) { _ in
                let hit = hits.next()
                if hit == 1 {
                    var response = Self.endless(
                        prefix: "retry: 10\nid: 1\ndata: first\n\nid: 2\ndata: half", unit: "x")
                    response.streamedBody?.interruptAfter = Int64(
                        "retry: 10\nid: 1\ndata: first\n\nid: 2\ndata: half".utf8.count)
                    return response
                }
                return hit == 2 ? Self.events("data: second\n\n") : TestResponse(status: 204)
            }
            var events: [ServerSentEvent] = []
            for try await event in try await TestAPI(server: server).target(path).makeExecutor()
                .events(reconnection: .init())
            {
                events.append(event)
            }
            #expect(events.map(\.data) == ["first", "second"])
            // The id of the unfinished event was never committed.
            #expect(server.requests(path: path).dropFirst().first?.header("Last-Event-ID") == "1")
        }

        @Test func aRetryableStatusOnReconnectWaitsForRetryAfter() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let hits = HitCounter()
            server.route(path) { _ in
                let hit = hits.next()
                switch hit {
                case 1: return Self.events("retry: 10\ndata: one\n\n")
                case 2:
                    var busy = TestResponse.text("busy", status: 503)
                    busy.setHeader("Retry-After", "1")
                    return busy
                case 3: return Self.events("data: two\n\n")
                default: return TestResponse(status: 204)
                }
            }
            var events: [String] = []
            for try await event in try await TestAPI(server: server).target(path).makeExecutor()
                .events(reconnection: .init())
            {
                events.append(event.data)
            }
            #expect(events == ["one", "two"])
            let requests = server.requests(path: path)
            #expect(requests.count == 4)
            if requests.count >= 3 {
                #expect(requests[2].receivedAt - requests[1].receivedAt >= .seconds(1))
            }
        }

        @Test func aStatusThatIsNotRetryableEndsTheStreamWithItsError() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let hits = HitCounter()
            server.route(path) { _ in
                let hit = hits.next()
                return hit == 1 ? Self.events("retry: 10\ndata: one\n\n") : .text("gone", status: 410)
            }
            var events: [String] = []
            let error = await #expect(throws: NetLayerError.self) {
                for try await event in try await TestAPI(server: server).target(path).makeExecutor()
                    .events(reconnection: .init())
                {
                    events.append(event.data)
                }
            }
            #expect(events == ["one"])
            #expect(error?.code == .unacceptableStatus && error?.statusCode == 410)
            #expect(server.requests(path: path).count == 2)
        }

        @Test func reconnectionGivesUpAfterTheAttemptsAllowed() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in Self.events(": nothing to say\n\n") }
            var count = 0
            for try await _ in try await TestAPI(server: server).target(path).makeExecutor()
                .events(reconnection: .init(maximumAttempts: 3, defaultDelay: .milliseconds(10)))
            {
                count += 1
            }
            #expect(count == 0)
            #expect(server.requests(path: path).count == 4)
            // Connection failures end with the last error once the attempts are used up.
            let closedPort = try TestServer.start()
            let domain = closedPort.hostAndPort
            closedPort.stop()
            final class Gone: Resource, @unchecked Sendable {}
            let gone = Gone(protocol: .http, domain: domain)
            let error = await #expect(throws: NetLayerError.self) {
                _ = try await EchoTarget(resource: gone, path: "/events").makeExecutor()
                    .events(reconnection: .init(maximumAttempts: 2, defaultDelay: .milliseconds(10)))
            }
            #expect(error?.code == .transport)
        }

        @Test func cancellingWhileWaitingToReconnectStopsAtOnce() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in Self.events("retry: 5000\ndata: one\n\n") }
            let received = TestLocked(0)
            let task = Task {
                for try await _ in try await TestAPI(server: server).target(path).makeExecutor()
                    .events(reconnection: .init())
                {
                    received.withLock { $0 += 1 }
                }
            }
            #expect(received.wait(timeout: .seconds(3)) { $0 == 1 })
            try await Task.sleep(for: .milliseconds(100))
            let start = ContinuousClock.now
            task.cancel()
            let error = await #expect(throws: NetLayerError.self) { try await task.value }
            #expect(error?.code == .cancelled)
            #expect(ContinuousClock.now - start < .seconds(1))
            #expect(server.requests(path: path).count == 1)
        }

        @Test func theIdleTimeoutAppliesButTheResourcesTotalDeadlineDoesNot() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                Self.events("data: a\n\ndata: b\n\ndata: c\n\n").dripped(
                    TestDrip(pieceSize: 9, interval: .milliseconds(300)))
            }
            let api = TestAPI(
                server: server, options: ResourceOptions(resourceTimeout: .milliseconds(400)))
            var data: [String] = []
            for try await event in try await api.target(path).makeExecutor().events() {
                data.append(event.data)
            }
            #expect(data == ["a", "b", "c"])
            // Set on the call itself, the deadline applies.
            let deadline = await #expect(throws: NetLayerError.self) {
                for try await _ in try await api.target(path).makeExecutor(
                    resourceTimeout: .milliseconds(400)
                )
                .events() {}
            }
            #expect(deadline?.code == .timedOut)
            // Bytes slower than the idle timeout.
            let idle = await #expect(throws: NetLayerError.self) {
                for try await _ in try await api.target(path).makeExecutor(timeout: .milliseconds(150))
                    .events()
                {}
            }
            #expect(idle?.code == .timedOut)
        }

        struct Chunk: Decodable, Sendable, Equatable {
            let token: String
        }

        @Test func decodedEventsEndAtTheMarkerAndAFailureNamesTheEvent() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let state = TestLocked<TestStreamedBody.State?>(nil)
            server.route(path) { _ in
                Self.endless(
                    prefix: "data: {\"token\":\"a\"}\n\ndata: {\"token\":\"b\"}\n\ndata: [DONE]\n\n",
                    unit: ": keep-alive\n\n", state: state)
            }
            var tokens: [String] = []
            for try await chunk in try await TestAPI(server: server).target(path).makeExecutor(method: .post)
                .events(decoding: Chunk.self, endMarker: "[DONE]")
            {
                tokens.append(chunk.token)
            }
            #expect(tokens == ["a", "b"])
            #expect(state.wait(timeout: .seconds(3)) { $0 == .cut })

            let bad = uniquePath()
            server.route(bad) { _ in
                Self.events("data: {\"token\":\"a\"}\n\nevent: delta\nid: 9\ndata: {\"tok\":1}\n\n")
            }
            var decoded: [String] = []
            let error = await #expect(throws: NetLayerError.self) {
                for try await chunk in try await TestAPI(server: server).target(bad).makeExecutor()
                    .events(decoding: Chunk.self)
                {
                    decoded.append(chunk.token)
                }
            }
            #expect(decoded == ["a"])
            #expect(error?.code == .decodingFailed)
            #expect(error?.message.hasPrefix("event \"delta\" (id 9)") == true)
            #expect(error?.codingPath == "token")
        }

        @Test func aStreamThatFailedStaysEndedAndDoesNotReconnect() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                Self.events("id: 1\ndata: " + String(repeating: "x", count: 200) + "\n\n")
            }
            let events = try await TestAPI(server: server).target(path).makeExecutor()
                .events(reconnection: .init(defaultDelay: .milliseconds(10)), maximumEventSize: 64)
            var iterator = events.makeAsyncIterator()
            let error = await #expect(throws: NetLayerError.self) { _ = try await iterator.next() }
            #expect(error?.code == .responseTooLarge)
            // Asked again, the same iterator reports the end: no second connection is opened.
            let after = try await iterator.next()
            #expect(after == nil)
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.requests(path: path).count == 1)
        }

        @Test func anIDWithAControlCharacterEndsTheStreamAtItsReconnection() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in Self.events("id: a\u{01}b\ndata: x\n\n") }
            var received: [String] = []
            let error = await #expect(throws: NetLayerError.self) {
                for try await event in try await TestAPI(server: server).target(path).makeExecutor()
                    .events(reconnection: .init(defaultDelay: .milliseconds(10)))
                {
                    received.append(event.data)
                }
            }
            #expect(received == ["x"])
            #expect(error?.code == .invalidHeader)
            // The ID never reaches a header block: nothing was sent after the first request.
            #expect(server.requests(path: path).count == 1)
        }

        @Test func anOversizedEventFailsInsteadOfGrowingWithoutBound() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                Self.endless(prefix: "data: ", unit: String(repeating: "x", count: 4096), pause: .zero)
            }
            let error = await #expect(throws: NetLayerError.self) {
                for try await _ in try await TestAPI(server: server).target(path).makeExecutor()
                    .events(maximumEventSize: 64 << 10)
                {}
            }
            #expect(error?.code == .responseTooLarge)
        }
    }
}

extension WireTests.EventStreamWireTests {
    @Test(.tags(.hardening)) func anEventSizeLimitOfIntMaxParsesEvents() async throws {
        var parser = EventStreamParser(maximumEventSize: .max)
        var data: [String] = []
        try parser.consume(Data("data: x\ndata: y\n\n".utf8)) { data.append($0.data) }
        #expect(data == ["x\ny"])

        let server = try Self.server.get()
        let path = uniquePath()
        server.route(path) { _ in
            TestResponse(
                status: 200, headers: [("Content-Type", "text/event-stream")],
                body: Data("data: z\n\n".utf8))
        }
        var received: [String] = []
        for try await event in try await TestAPI(server: server).target(path).makeExecutor()
            .events(maximumEventSize: .max)
        {
            received.append(event.data)
        }
        #expect(received == ["z"])
    }

    @Test(.tags(.hardening)) func theEventSizeLimitStillHoldsAtItsEdge() throws {
        var parser = EventStreamParser(maximumEventSize: 10)
        var data: [String] = []
        // "abcd" + LF + "efgh" is 9 bytes: accepted; a third line takes it past 10.
        try parser.consume(Data("data: abcd\ndata: efgh\n\n".utf8)) { data.append($0.data) }
        #expect(data == ["abcd\nefgh"])
        let error = #expect(throws: NetLayerError.self) {
            try parser.consume(Data("data: abcd\ndata: efgh\ndata: ij\n\n".utf8)) { _ in }
        }
        #expect(error?.code == .responseTooLarge)
    }

    @Test(.tags(.hardening), arguments: [Duration.zero, .seconds(-1)])
    func anEventStreamWithATotalDeadlineOfZeroOrLessIsInvalid(_ limit: Duration) async throws {
        let server = try Self.server.get()
        let path = uniquePath()
        let error = await #expect(throws: NetLayerError.self) {
            _ = try await TestAPI(server: server).target(path).makeExecutor(resourceTimeout: limit)
                .events()
        }
        #expect(error?.code == .invalidValue)
        #expect(server.requests(path: path).isEmpty)
    }
}

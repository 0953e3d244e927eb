import BookstoreServer
import Foundation
import NetLayer

/// Server-Sent Events and NDJSON (Docs/Streaming.md): a chat answer streamed token by token, a
/// live feed that survives a dropped connection, and what goes wrong when a stream is not what the
/// call expects.
extension Story {
    /// The assistant's answer printed as it arrives; it names the book created earlier.
    func streamChat(mentioning book: Book) async throws {
        begin("Ask the assistant: POST /chat answers with Server-Sent Events, printed token by token")
        let prompt = "Something like The Left Hand of Darkness, please"
        let before = await server.chatTranscripts().count
        var answer = ""
        var arrivals: [ContinuousClock.Instant] = []
        print("   ", terminator: "")
        for try await chunk in try await api.chat().ask(prompt) {
            print(chunk.text, terminator: "")
            fflush(nil)  // show each token now, not at the end of the line
            answer += chunk.text
            arrivals.append(.now)
        }
        print()
        let transcript = try await chatTranscripts(after: before)[0]
        try expect(
            answer.hasPrefix("If you liked The Left Hand of Darkness, try ") && answer.contains(book.title)
                && answer.contains("The Dispossessed (1974)"),
            "chat: the answer was \"\(answer)\"")
        try expect(
            transcript.completed && arrivals.count == transcript.tokens + 1,
            "chat: \(arrivals.count) chunks decoded, the server sent \(transcript.tokens) tokens and a final chunk"
        )
        // The server waits 30 ms between tokens: had the answer been buffered, they would arrive at once.
        let spread = (arrivals.last ?? .now) - (arrivals.first ?? .now)
        try expect(
            spread >= .milliseconds(15 * transcript.tokens),
            "chat: the chunks arrived within \(spread.inSeconds), not one by one")
        Console.ok(
            "\(transcript.tokens) tokens and a final chunk, one by one over \(spread.inSeconds); [DONE] ended the stream"
        )

        begin("The same answer's raw bytes (stream()) read with EventStreamParser, fed 5 bytes at a time")
        let raw = try await api.chat().rawAnswer(prompt)
        let bytes = raw.reduce(into: Data()) { $0.append($1) }
        let pieces = stride(from: 0, to: bytes.count, by: 5).map {
            bytes.subdata(in: $0..<min($0 + 5, bytes.count))
        }
        let events = try api.chat().parse(pieces)
        let decoder = api.options.decoder
        let parsed = try events.dropLast().map {
            try decoder.decode(ChatChunk.self, from: Data($0.data.utf8)).text
        }
        try expect(
            events.last?.data == "[DONE]" && parsed.joined() == answer,
            "parser: \(events.count) events, last \(events.last?.data ?? "-"), text \"\(parsed.joined())\"")
        Console.ok(
            "\(events.count) events from \(bytes.count) bytes in \(pieces.count) pieces: the same answer, then [DONE]"
        )
        record(
            "streamed a chat answer token by token (\(transcript.tokens) tokens) and parsed its raw bytes again"
        )
    }

    /// Leaving the loop closes the connection; the server notices at its next write.
    func stopChatEarly() async throws {
        begin("Stop reading after 3 tokens: breaking out of the loop closes the connection")
        let prompt = "Something like Foundation?"
        let before = await server.chatTranscripts().count
        var tokens: [String] = []
        for try await chunk in try await api.chat().ask(prompt) {
            tokens.append(chunk.text)
            if tokens.count == 3 { break }  // closes the connection: the server stops generating
        }
        let transcript = try await chatTranscripts(after: before)[0]
        try expect(
            tokens.count == 3 && !transcript.completed && transcript.tokensSent < transcript.tokens,
            "stop: read \(tokens.count) tokens; the server sent \(transcript.tokensSent) of \(transcript.tokens), completed: \(transcript.completed)"
        )
        Console.ok(
            "read \"\(tokens.joined())\"; the server stopped after \(transcript.tokensSent) of \(transcript.tokens) tokens"
        )
        record("broke out of a chat stream after 3 tokens; the server stopped generating")
    }

    /// What a stream throws when the call, the server or the data are not what it expects.
    func streamErrors() async throws {
        begin(
            "Stream errors: a refused request, a feed that is not an event stream, bad data, an event too large"
        )
        do {
            for try await chunk in try await api.chat().ask(" ") {
                print(chunk.text, terminator: "")
            }
            throw StoryFailure(message: "a chat without a prompt was answered")
        } catch let error as NetLayerError where error.code == .unacceptableStatus {
            // Thrown by `try await ….ask(…)` itself, before any event; the body is the server's JSON error.
            try expect(error.statusCode == 422, "a chat without a prompt: \(error)")
            Console.ok(
                "\(error.statusCode ?? 0) before any event, with the body: \(error.apiError?.message ?? "-")")
        }

        let ndjson = try await expectFailure(.unacceptableContentType, "events() from the NDJSON feed") {
            try await api.feed().makeExecutor().events()
        }
        Console.ok("events() from /feed: unacceptableContentType (\(ndjson.header("Content-Type") ?? "-"))")

        // Without the end marker, the `[DONE]` event is decoded as a chunk too, and fails.
        let request = ChatRequest(messages: [ChatMessage(role: "user", content: "Hello")])
        let call = api.chat().makeExecutor(method: .post, body: .json(request))
        let undecodable = try await expectFailure(.decodingFailed, "a chat without its end marker") {
            for try await _ in try await call.events(decoding: ChatChunk.self) {}
        }
        try expect(
            undecodable.message.hasPrefix("event \"message\"") && undecodable.body == Data("[DONE]".utf8),
            "decodingFailed: \(undecodable.message)")
        Console.ok("without endMarker: decodingFailed, naming the event: \(undecodable.message.prefix(60))…")

        let tooLarge = try await expectFailure(.responseTooLarge, "events larger than 64 bytes") {
            for try await _ in try await call.events(decoding: ChatChunk.self, maximumEventSize: 64) {}
        }
        Console.ok("maximumEventSize: 64: responseTooLarge (\(tooLarge.message))")
        record(
            "stream errors: 422 with its body, unacceptableContentType, decodingFailed naming the event, responseTooLarge"
        )
    }

    /// The live feed drops its first connection; NetLayer reconnects with `Last-Event-ID`.
    func followLiveFeed() async throws {
        begin(
            "Follow the live feed (GET /live) with reconnection: a dropped connection, retry:, Last-Event-ID, 204"
        )
        let before = await server.liveConnections().count
        let live = api.live()
        var received: [(id: String?, update: ShelfUpdate)] = []
        var retry: Duration?
        for try await event in try await live.events() {
            retry = retry ?? event.retry
            guard let update = try live.update(from: event) else { continue }
            received.append((event.id, update))
            Console.info("#\(event.id ?? "-") \(event.event): \(update.copies) × \(update.title)")
        }
        let connections = try await liveConnections(after: before, expected: 3)
        for (number, connection) in connections.enumerated() {
            let sent = connection.sent.map(String.init).joined(separator: ", ")
            Console.info(
                "connection \(number + 1): Last-Event-ID \(connection.lastEventID ?? "none") → \(connection.status)"
                    + (sent.isEmpty ? "" : ", events \(sent)")
                    + (connection.dropped ? ", dropped inside event 5" : ""))
        }
        let ids = received.map { $0.id ?? "-" }
        try expect(
            ids == (1...8).map(String.init), "live: received the events \(ids), expected 1 to 8 once each")
        try expect(
            connections.map(\.lastEventID) == [nil, "4", "8"] && connections.map(\.status) == [200, 200, 204]
                && connections.map(\.dropped) == [true, false, false],
            "live: the server saw \(connections.map { "\($0.lastEventID ?? "none") → \($0.status)" })")
        let wait = connections[1].arrived - connections[0].ended
        try expect(
            retry == .milliseconds(250) && wait >= .milliseconds(250),
            "live: retry \(retry.map { "\($0)" } ?? "none"), reconnected after \(wait.inSeconds)")
        Console.ok(
            "8 events, each once and in order; reconnected \(wait.inSeconds) after the drop (retry: 250 ms) with Last-Event-ID: 4; the 204 ended the stream"
        )
        record(
            "followed a live feed across a dropped connection: 8 events once each, resumed with Last-Event-ID"
        )
    }

    /// NDJSON decoded by NetLayer line by line.
    func readFeedDecoded() async throws {
        begin(
            "The NDJSON feed again, each line decoded by NetLayer as it arrives: lines(decoding: Book.self)")
        var titles: [String] = []
        for try await book in try await api.feed().bookStream() {
            titles.append(book.title)
        }
        let all = try await api.books().list(perPage: 50)
        try expect(titles == all.items.map(\.title), "lines(decoding:): \(titles)")
        Console.ok("\(titles.count) books, the same as the list")
        record("decoded \(titles.count) NDJSON lines with lines(decoding:)")
    }

    // MARK: Helpers

    /// The `expected` chat answers the server recorded after the first `count`, once they ended.
    func chatTranscripts(after count: Int, expected: Int = 1) async throws -> [ChatTranscript] {
        for _ in 0..<100 {
            let transcripts = await server.chatTranscripts()
            if transcripts.count >= count + expected { return Array(transcripts[count...]) }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw StoryFailure(message: "the server did not finish \(expected) chat answers within 2 s")
    }

    /// The `expected` live-feed connections the server recorded after the first `count`.
    func liveConnections(after count: Int, expected: Int) async throws -> [LiveConnection] {
        for _ in 0..<100 {
            let connections = await server.liveConnections()
            if connections.count >= count + expected { return Array(connections[count...]) }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw StoryFailure(message: "the server did not finish \(expected) live-feed connections within 2 s")
    }
}

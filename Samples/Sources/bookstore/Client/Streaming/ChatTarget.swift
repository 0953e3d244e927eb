import Foundation
import NetLayer

/// `/chat`: the shop's assistant, which streams its answer the way LLM APIs do (OpenAI's chat
/// completions format): a `POST` with a JSON body, answered with Server-Sent Events whose data are
/// JSON chunks, and a last event whose data is `[DONE]`.
final class ChatTarget: Target, @unchecked Sendable {
    /// Asks the assistant. The chunks come as the server generates them; the stream ends cleanly at
    /// the `[DONE]` event, which is not decoded.
    func ask(_ prompt: String) async throws -> ResponseStream<ChatChunk> {
        let request = ChatRequest(messages: [ChatMessage(role: "user", content: prompt)])
        // A model may think a while before its first token: the idle timeout applies between bytes.
        return try await makeExecutor(method: .post, body: .json(request), timeout: .seconds(60))
            .events(decoding: ChatChunk.self, endMarker: "[DONE]")
    }

    /// The same answer's raw bytes, chunk by chunk, as another client or a recording would hand
    /// them over; ``parse(_:)`` reads them.
    func rawAnswer(_ prompt: String) async throws -> [Data] {
        let request = ChatRequest(messages: [ChatMessage(role: "user", content: prompt)])
        var chunks: [Data] = []
        for try await chunk in try await makeExecutor(
            method: .post, headers: ["Accept": "text/event-stream"], body: .json(request)
        ).stream() {
            chunks.append(chunk)
        }
        return chunks
    }

    /// Events from bytes that arrived some other way (a WebSocket, a file, another HTTP client),
    /// with the parser `events()` uses.
    func parse(_ chunks: [Data]) throws -> [ServerSentEvent] {
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        for chunk in chunks {
            try parser.consume(chunk) { event in events.append(event) }
        }
        parser.finish()  // an event without its closing blank line is dropped, as browsers do
        return events
    }
}

/// The body of `POST /chat`.
struct ChatRequest: Encodable, Sendable {
    var model = "bookstore-mini"
    var messages: [ChatMessage]
    var stream = true
}

/// One message of a chat.
struct ChatMessage: Codable, Sendable {
    var role: String
    var content: String
}

/// One streamed piece of an answer: `{"choices":[{"delta":{"content":" try"}}]}`. The last one has
/// no content and a `finish_reason`.
struct ChatChunk: Decodable, Sendable {
    struct Choice: Decodable, Sendable {
        struct Delta: Decodable, Sendable {
            var content: String?
        }

        var delta: Delta
        var finishReason: String?
    }

    var choices: [Choice]

    /// The text this chunk adds to the answer (empty for none).
    var text: String { choices.first?.delta.content ?? "" }
}

import Foundation
import Hummingbird

/// One `POST /v1/chat` answer, as the server saw it end.
public struct ChatTranscript: Sendable {
    /// The tokens written to the connection.
    public var tokensSent: Int
    /// The tokens the whole answer has.
    public var tokens: Int
    /// Whether the answer and `[DONE]` were written; `false` when the client went away first.
    public var completed: Bool
}

/// One connection to `GET /v1/live`, as the server saw it end.
public struct LiveConnection: Sendable {
    /// The `Last-Event-ID` the client sent; `nil` for a new subscriber.
    public var lastEventID: String?
    /// 200, or 204 once the client has every event.
    public var status: Int
    /// The ids of the events written whole on this connection.
    public var sent: [Int]
    /// Whether the server dropped the connection on purpose, half-way through an event.
    public var dropped: Bool
    /// When the request arrived.
    public var arrived: ContinuousClock.Instant
    /// When the response ended.
    public var ended: ContinuousClock.Instant
}

/// Streaming responses, as `text/event-stream`:
/// - `POST /v1/chat`: the shop's assistant. The body is a chat request shaped like OpenAI's
///   (`{"model": …, "messages": [{"role": "user", "content": …}], "stream": true}`); the answer
///   comes a token at a time, each an event whose data is a `chat.completion.chunk`, then
///   `data: [DONE]`. 422 without a user message.
/// - `GET /v1/live`: the shop floor, eight `sale` and `restock` events with ids and `retry: 250`.
///   A new subscriber's connection is dropped half-way through event 5; a reconnection resumes
///   after its `Last-Event-ID`, and one that already has every event gets 204 (stop reconnecting).
struct StreamRoutes {
    let store: BookStore
    let state: StreamState

    /// Between two tokens: enough to watch the answer being typed.
    static let tokenDelay = Duration.milliseconds(30)
    /// Between two live events.
    static let eventDelay = Duration.milliseconds(40)
    /// The live feed's reconnection time, sent as `retry:` (milliseconds).
    static let retryMilliseconds = 250
    /// The event a new subscriber's connection is dropped in.
    static let dropInEvent = 5

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.post("chat", use: chat)
        group.get("live", use: live)
    }

    @Sendable func chat(_ request: Request, context: BasicRequestContext) async throws -> Response {
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("application/json") else {
            throw APIError.unsupportedMediaType("send the chat request as application/json")
        }
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let payload: ChatRequestPayload
        do {
            payload = try WireJSON.decoder.decode(ChatRequestPayload.self, from: Data(body.readableBytesView))
        } catch {
            throw APIError.badRequest("the body is not a chat request")
        }
        let prompt = payload.messages?.last { $0.role == "user" }?.content ?? ""
        guard !prompt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIError.unprocessable("messages needs a user message with content")
        }
        let tokens = Self.tokens(Self.answer(to: prompt, from: await store.snapshot().books))
        let model = payload.model ?? "bookstore-mini"
        let state = self.state
        let id = "chatcmpl-\(await state.nextChatNumber())"
        let events = ResponseBody { writer in
            var sent = 0
            do {
                for token in tokens {
                    let chunk = ChatChunkPayload(
                        id: id, model: model,
                        choices: [.init(delta: .init(content: token), finishReason: nil)])
                    try await writer.write(Self.event(data: try WireJSON.encoder.encode(chunk)))
                    sent += 1
                    try await Task.sleep(for: Self.tokenDelay)
                }
                let last = ChatChunkPayload(
                    id: id, model: model, choices: [.init(delta: .init(content: nil), finishReason: "stop")])
                try await writer.write(Self.event(data: try WireJSON.encoder.encode(last)))
                try await writer.write(ByteBuffer(string: "data: [DONE]\n\n"))
                try await writer.finish(nil)
                await state.record(ChatTranscript(tokensSent: sent, tokens: tokens.count, completed: true))
            } catch {
                await state.record(ChatTranscript(tokensSent: sent, tokens: tokens.count, completed: false))
                throw error
            }
        }
        return Response(status: .ok, headers: Self.eventStreamHeaders, body: events)
    }

    @Sendable func live(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let arrived = ContinuousClock.now
        let lastEventID = request.headers.first { $0.name.canonicalName == "last-event-id" }?.value
        let after = lastEventID.flatMap { Int($0) } ?? 0
        let updates = Self.liveUpdates(await store.snapshot().books)
        let state = self.state
        guard after < updates.count else {
            await state.record(
                LiveConnection(
                    lastEventID: lastEventID, status: 204, sent: [], dropped: false, arrived: arrived,
                    ended: .now))
            return Response(status: .noContent)
        }
        // Only a new subscriber's connection drops, so a client that resumes always gets the rest.
        let dropsIn = lastEventID == nil ? Self.dropInEvent : nil
        let events = ResponseBody { writer in
            var sent: [Int] = []
            func record(dropped: Bool) async {
                await state.record(
                    LiveConnection(
                        lastEventID: lastEventID, status: 200, sent: sent, dropped: dropped, arrived: arrived,
                        ended: .now))
            }
            do {
                try await writer.write(
                    ByteBuffer(string: ": live from the shop floor, after event \(after)\n\n"))
                for (offset, update) in updates.enumerated().dropFirst(after) {
                    let id = offset + 1
                    var event = "id: \(id)\nevent: \(update.kind)\n"
                    if id == after + 1 { event += "retry: \(Self.retryMilliseconds)\n" }
                    if id == dropsIn {
                        // Half an event, then the connection goes: the client must not see event 5 yet.
                        try await writer.write(ByteBuffer(string: event))
                        await record(dropped: true)
                        throw LiveFeedDropped()
                    }
                    var buffer = ByteBuffer(string: event + "data: ")
                    buffer.writeBytes(try WireJSON.encoder.encode(update))
                    buffer.writeString("\n\n")
                    try await writer.write(buffer)
                    sent.append(id)
                    try await Task.sleep(for: Self.eventDelay)
                }
                try await writer.finish(nil)
                await record(dropped: false)
            } catch let error as LiveFeedDropped {
                throw error
            } catch {
                await record(dropped: false)
                throw error
            }
        }
        return Response(status: .ok, headers: Self.eventStreamHeaders, body: events)
    }

    static let eventStreamHeaders: HTTPFields = [
        .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache",
    ]

    /// `data: <json>` and the blank line that dispatches the event.
    static func event(data: Data) -> ByteBuffer {
        var buffer = ByteBuffer(string: "data: ")
        buffer.writeBytes(data)
        buffer.writeString("\n\n")
        return buffer
    }

    /// The assistant's (canned) answer: books by the author of a title the prompt names, or the
    /// three oldest books.
    static func answer(to prompt: String, from books: [BookRecord]) -> String {
        let lowered = prompt.lowercased()
        if let liked = books.first(where: { lowered.contains($0.title.lowercased()) }) {
            let others = books.filter { $0.author == liked.author && $0.id != liked.id }
            if !others.isEmpty {
                return "If you liked \(liked.title), try \(list(others)), also by \(liked.author)."
            }
        }
        let oldest = books.sorted { ($0.year ?? .max) < ($1.year ?? .max) }.prefix(3)
        return "Our oldest classics are \(list(Array(oldest)))."
    }

    /// `A (1974), B (1968) and C (1969)`.
    private static func list(_ books: [BookRecord]) -> String {
        let names = books.map { book in book.title + (book.year.map { " (\($0))" } ?? "") }
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and " + last
    }

    /// Word-sized tokens, each but the first with its leading space, as LLM tokenizers cut text.
    static func tokens(_ text: String) -> [String] {
        text.split(separator: " ").enumerated().map { index, word in (index == 0 ? "" : " ") + word }
    }

    /// Eight updates that take turns: a sale, then a restock, over the first books.
    static func liveUpdates(_ books: [BookRecord]) -> [LiveUpdatePayload] {
        guard !books.isEmpty else { return [] }
        return (0..<8).map { index in
            let book = books[(index / 2) % books.count]
            return index % 2 == 0
                ? LiveUpdatePayload(kind: "sale", bookId: book.id, title: book.title, copies: 1 + index % 3)
                : LiveUpdatePayload(kind: "restock", bookId: book.id, title: book.title, copies: 5)
        }
    }
}

/// The drop a new live subscriber gets: thrown from the body writer, so Hummingbird closes the
/// connection without ending the chunked body.
struct LiveFeedDropped: Error {}

/// What the streaming routes did, for the sample to check.
actor StreamState {
    private(set) var chats: [ChatTranscript] = []
    private(set) var liveConnections: [LiveConnection] = []
    private var chatNumber = 0

    func nextChatNumber() -> Int {
        chatNumber += 1
        return chatNumber
    }

    func record(_ transcript: ChatTranscript) {
        chats.append(transcript)
    }

    func record(_ connection: LiveConnection) {
        liveConnections.append(connection)
    }
}

/// The body of `POST /v1/chat`; everything optional so a bad request is a 422, not a 400.
struct ChatRequestPayload: Decodable, Sendable {
    struct Message: Decodable, Sendable {
        var role: String?
        var content: String?
    }

    var model: String?
    var messages: [Message]?
}

/// One streamed chunk of a chat answer, shaped like OpenAI's `chat.completion.chunk`.
struct ChatChunkPayload: Encodable, Sendable {
    struct Choice: Encodable, Sendable {
        struct Delta: Encodable, Sendable {
            var content: String?
        }

        var index = 0
        var delta: Delta
        var finishReason: String?

        init(delta: Delta, finishReason: String?) {
            self.delta = delta
            self.finishReason = finishReason
        }
    }

    var id: String
    var object = "chat.completion.chunk"
    var model: String
    var choices: [Choice]

    init(id: String, model: String, choices: [Choice]) {
        self.id = id
        self.model = model
        self.choices = choices
    }
}

/// The data of one live event (its type is the event's `event:` field too).
struct LiveUpdatePayload: Encodable, Sendable {
    var kind: String
    var bookId: Int
    var title: String
    var copies: Int
}

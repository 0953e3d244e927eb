import Foundation
import NetLayer

/// `/live`: the shop floor as it happens, as Server-Sent Events: `sale` and `restock` events with
/// ids. The server sends `retry:` and resumes after the `Last-Event-ID` a reconnection carries; it
/// answers 204 once the client has every event.
final class LiveFeedTarget: Target, @unchecked Sendable {
    /// The feed's events until the server ends it. After a dropped connection NetLayer waits the
    /// server's `retry:` time and reconnects with `Last-Event-ID`, up to 3 times in a row without
    /// an event; a 204 ends the stream.
    func events() async throws -> ResponseStream<ServerSentEvent> {
        let reconnection = EventStreamReconnection(maximumAttempts: 3, defaultDelay: .seconds(1))
        return try await makeExecutor().events(reconnection: reconnection)
    }

    /// The update an event carries, by its type; `nil` for a type this client does not know.
    func update(from event: ServerSentEvent) throws -> ShelfUpdate? {
        let decoder = resource.options.decoder
        switch event.event {
        case "sale", "restock":
            return try decoder.decode(ShelfUpdate.self, from: Data(event.data.utf8))
        default:
            return nil  // a newer server's event type: skip it
        }
    }
}

/// A book sold or restocked: the data of a live event.
struct ShelfUpdate: Decodable, Sendable, Equatable {
    /// `sale` or `restock`, as the event's type.
    var kind: String
    var bookId: Int
    var title: String
    var copies: Int
}

import Foundation
import NetLayer

/// `/feed`: every book as NDJSON, one JSON object per line.
final class FeedTarget: Target, @unchecked Sendable {
    /// The books, each decoded as soon as its line arrived.
    func books() async throws -> [Book] {
        let decoder = resource.options.decoder
        var books: [Book] = []
        for try await line in try await makeExecutor(headers: ["Accept": "application/x-ndjson"]).lines()
        where !line.isEmpty {
            books.append(try decoder.decode(Book.self, from: Data(line.utf8)))
        }
        return books
    }

    /// The books as their lines arrive, decoded by NetLayer with the resource's decoder: blank
    /// lines are skipped, and a line that does not decode fails with its line number.
    func bookStream() async throws -> ResponseStream<Book> {
        try await makeExecutor(headers: ["Accept": "application/x-ndjson"]).lines(decoding: Book.self)
    }
}

import Foundation
import NetLayer

// The client Docs/GettingStarted.md builds, step by step. Its Swift blocks are found here line for
// line (the story's docs step checks that; Story+Recipes.swift runs this code against the service).
//
// Everything is nested in `GettingStarted` so the guide can use plain names (`Book`,
// `BookstoreAPI`) without clashing with the rest of the sample.
enum GettingStarted {
    struct Book: Codable, Sendable {
        let id: Int
        let title: String
        let author: String
        let year: Int?
    }

    struct NewBook: Encodable, Sendable {
        let title: String
        let author: String
        let year: Int?
    }

    struct Page: Decodable, Sendable {
        let items: [Book]
        let page: Int
        let total: Int
        let totalPages: Int  // "total_pages" on the wire
    }

    /// What the service sends with every error: {"error": "not_found", "message": "no book with id 9"}
    struct APIError: Decodable, Sendable {
        let error: String
        let message: String
    }

    final class BookstoreAPI: Resource, @unchecked Sendable {
        init(host: String, token: String) {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            super.init(
                protocol: .http,  // .https (the default) for anything but a local service
                domain: host,  // "api.example.com", "127.0.0.1:8080", "example.com/api"
                version: "v1",  // optional; joined after the domain
                defaultHeaders: ["Authorization": "Bearer \(token)", "Accept": "application/json"],
                rateLimits: [.perSecond(5)],
                options: ResourceOptions {
                    $0.decoder = decoder
                    $0.timeout = .seconds(10)
                    $0.resourceTimeout = .seconds(30)
                }
            )
        }

        func books() -> BooksTarget { BooksTarget(resource: self, path: "/books") }
        func book() -> BookTarget { BookTarget(resource: self, path: "/books/:id") }
    }

    final class BooksTarget: Target, @unchecked Sendable {
        /// GET /v1/books?page=1&per_page=5&search=le%20guin (a nil search is left out)
        func list(page: Int = 1, search: String? = nil) async throws -> Page {
            try await makeExecutor(params: ["page": page, "per_page": 5, "search": search])
                .execute(model: Page.self)
        }

        /// POST /v1/books with the book as its JSON body
        func create(_ book: NewBook) async throws -> Book {
            try await makeExecutor(method: .post, body: .json(book)).execute(model: Book.self)
        }
    }

    final class BookTarget: Target, @unchecked Sendable {
        /// GET /v1/books/7
        func get(id: Int, debug: Bool = false) async throws -> Book {
            try await makeExecutor(pathParts: ["id": id]).execute(model: Book.self, debug: debug)
        }

        /// PATCH /v1/books/7 with {"year":1966}: the JSON Content-Type puts the params in a JSON body
        func setYear(_ year: Int, id: Int) async throws -> Book {
            try await makeExecutor(
                method: .patch, pathParts: ["id": id],
                headers: ["Content-Type": "application/json"],
                params: ["year": year]
            ).execute(model: Book.self)
        }

        /// DELETE /v1/books/7, answered 204 No Content
        func delete(id: Int) async throws {
            _ = try await makeExecutor(method: .delete, pathParts: ["id": id]).execute(model: Empty.self)
        }

        /// The book with the response around it: status, headers, duration, the request as sent
        func getResponse(id: Int) async throws -> Response<Book> {
            try await makeExecutor(pathParts: ["id": id]).response(model: Book.self)
        }

        /// The same GET for code that takes a completion handler
        @discardableResult
        func get(id: Int, completion: @escaping @Sendable (Result<Book, NetLayerError>) -> Void) -> CallHandle
        {
            makeExecutor(pathParts: ["id": id]).execute(model: Book.self, completion: completion)
        }

        /// A call with its own timeouts: 2 s without a byte, 5 s in all
        func getQuickly(id: Int) async throws -> Book {
            try await makeExecutor(pathParts: ["id": id], timeout: .seconds(2), resourceTimeout: .seconds(5))
                .execute(model: Book.self)
        }
    }

    /// Several limits at once: a call starts only when every one of them allows it.
    static let limits: [RateLimit] = [
        .perSecond(5),
        .perMinute(100),
        .perHour(1_000),
        RateLimit(requests: 20, per: .milliseconds(5_000)),
    ]

    /// A refusal the app shows as the service worded it.
    struct BookRejected: Error {
        let status: Int
        let reason: String
    }

    /// The calls of the guide, as an app would make them; the story runs each and checks the result.
    struct Walkthrough: Sendable {
        let api: BookstoreAPI

        func firstCalls() async throws -> (dune: Book, leGuin: Page) {
            let dune = try await api.book().get(id: 1)
            let leGuin = try await api.books().list(search: "le guin")
            print("\(dune.title) by \(dune.author); \(leGuin.total) books by Le Guin")
            return (dune, leGuin)
        }

        func writeCalls() async throws -> (created: Book, patched: Book) {
            let created = try await api.books().create(
                NewBook(title: "The Lathe of Heaven", author: "Ursula K. Le Guin", year: nil))
            let patched = try await api.book().setYear(1971, id: created.id)
            try await api.book().delete(id: created.id)
            return (created, patched)
        }

        /// The title of a book, or nil when the service has no such book.
        func title(of id: Int) async throws -> String? {
            do {
                return try await api.book().get(id: id).title
            } catch let error as NetLayerError {
                switch error.code {
                case .unacceptableStatus where error.statusCode == 404:
                    return nil
                case .unacceptableStatus:
                    print("the service refused: \(error.statusCode ?? 0) \(error.bodyPreview() ?? "")")
                    throw error
                case .timedOut, .transport:
                    print("the service could not be reached: \(error)")
                    throw error
                default:
                    throw error  // a mistake in the call itself: a path part, a header, …
                }
            }
        }

        func add(_ book: NewBook) async throws -> Book {
            do {
                return try await api.books().create(book)
            } catch let error as NetLayerError where error.code == .unacceptableStatus {
                let body = try error.decodeBody(as: APIError.self)
                throw BookRejected(status: error.statusCode ?? 0, reason: body.message)
            }
        }

        func inspect() async throws -> Response<Book> {
            let response = try await api.book().getResponse(id: 1)
            print(response.statusCode, response.headerFields["Content-Type"] ?? "-", response.duration)
            print(response.sentRequest.url, response.value.title)
            return response
        }

        /// For callers that are not async: `show` gets the title on the main actor.
        @discardableResult
        func loadTitle(id: Int, show: @escaping @MainActor @Sendable (String) -> Void) -> CallHandle {
            api.book().get(id: id) { result in
                // Called exactly once, on a thread of Swift's concurrent pool (not the main thread).
                let text: String
                switch result {
                case .success(let book): text = book.title
                case .failure(let error): text = "failed: \(error.code)"
                }
                Task { @MainActor in show(text) }
            }
        }

        func debugOneCall() async throws -> Book {
            try await api.book().get(id: 1, debug: true)
        }
    }
}

import Foundation
import NetLayer
import Testing

// The shape of DESIGN.md §1, written as a user would, pointed at the test server.

private struct Cover: Codable, Sendable {
    var bodyLength: Int
}

private final class BookstoreAPI: Resource, @unchecked Sendable {
    init(token: String, domain: String) {
        super.init(
            protocol: .http,
            domain: domain,
            version: "v1",
            defaultHeaders: ["Authorization": "Bearer \(token)", "Accept": "application/json"],
            defaultParams: ["locale": "en"],
            rateLimits: [RateLimit(requests: 5, per: .seconds(1))],
            options: ResourceOptions(log: .discard)
        )
    }

    func books() -> BooksTarget { BooksTarget(resource: self, path: "/books") }
    func book() -> BookTarget { BookTarget(resource: self, path: "/books/:id") }
}

private final class BooksTarget: Target, @unchecked Sendable {
    func list(page: Int, search: String? = nil) async throws -> [Book] {
        try await makeExecutor(method: .get, params: ["page": page, "search": search])
            .execute(model: [Book].self)
    }

    func create(_ book: NewBook) async throws -> Book {
        try await makeExecutor(method: .post, body: .json(book)).execute(model: Book.self)
    }

    func uploadCover(id: Int, file: URL) async throws -> Cover {
        try await makeExecutor(method: .post, params: ["id": id], files: ["cover": .file(file)])
            .execute(model: Cover.self, debug: true)
    }
}

private final class BookTarget: Target, @unchecked Sendable {
    func get(id: Int) async throws -> Book {
        try await makeExecutor(pathParts: ["id": id]).execute(model: Book.self)
    }
}

extension WireTests {
    @Suite("A service written as DESIGN §1 shows reaches the server as designed", .tags(.hardening))
    struct EndToEndWireTests {
        static let server = TestServerPool.make()

        @Test func bookstoreCallsReachTheServerAsDesigned() async throws {
            let server = try Self.server.get()
            server.route("/v1/books") { request in
                request.method == "GET"
                    ? .json(#"[{"id":1,"title":"Dune"}]"#) : .json(#"{"id":2,"title":"Emma"}"#, status: 201)
            }
            server.route("/v1/books/9") { _ in .json(#"{"id":9,"title":"Nine"}"#) }
            let api = BookstoreAPI(token: "t", domain: server.hostAndPort)

            #expect(try await api.books().list(page: 1) == [Book(id: 1, title: "Dune")])
            #expect(
                try await api.books().create(NewBook(title: "Emma", tags: [])) == Book(id: 2, title: "Emma"))
            #expect(try await api.book().get(id: 9) == Book(id: 9, title: "Nine"))

            let list = try #require(server.requests(path: "/v1/books").first)
            #expect(list.rawQuery == "locale=en&page=1")
            let create = try #require(server.requests(path: "/v1/books").last)
            #expect(create.rawQuery == "locale=en")
            #expect(create.bodyString == #"{"tags":[],"title":"Emma"}"#)
            #expect(create.header("Authorization") == "Bearer t")
        }
    }
}

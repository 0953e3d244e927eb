import Foundation
import NetLayer
import NetLayerTesting
import Testing

// The examples of Docs/Testing.md, compiled and run: `DocsExamplesTests` checks that every Swift
// block of the document appears here line for line. `Book` is the test target's
// `Codable & Equatable` model with an `id` and a `title`.

// MARK: - The code under test

final class CatalogAPI: Resource, @unchecked Sendable {
    init(
        protocol scheme: URLScheme = .https, domain: String = "api.example.com",
        transport: (any Transport)? = nil, timeout: Duration? = nil
    ) {
        super.init(
            protocol: scheme, domain: domain, version: "v1",
            defaultHeaders: ["Accept": "application/json"], transport: transport,
            options: ResourceOptions(timeout: timeout))
    }

    func books() -> CatalogBooks { CatalogBooks(resource: self, path: "/books") }
}

final class CatalogBooks: Target, @unchecked Sendable {
    func list(page: Int) async throws -> [Book] {
        try await makeExecutor(params: ["page": page]).execute(model: [Book].self)
    }

    func create(title: String) async throws -> Book {
        try await makeExecutor(method: .post, body: .json(["title": title])).execute(model: Book.self)
    }
}

// MARK: - The tests

@Suite("Docs/Testing.md examples")
struct DocsTestingExamples {
    @Test func listsBooks() async throws {
        let stub = StubTransport()
        stub.on(.get, "/v1/books", .json(#"[{"id":1,"title":"Dune"}]"#))
        let api = CatalogAPI(transport: stub)

        let books = try await api.books().list(page: 2)

        #expect(books == [Book(id: 1, title: "Dune")])
        let request = try #require(stub.requests.first)
        #expect(request.method == "GET")
        #expect(request.queryValue("page") == "2")
        #expect(request.header("accept") == "application/json")
    }

    @Test func createsABook() async throws {
        let stub = StubTransport(routes: [
            StubRoute(.post, "/v1/books", .json(#"{"id":7,"title":"Emma"}"#, status: 201))
        ])

        let book = try await CatalogAPI(transport: stub).books().create(title: "Emma")

        #expect(book.id == 7)
        let sent = try #require(stub.requests(path: "/v1/books").first)
        #expect(sent.header("Content-Type") == "application/json")
        #expect(sent.bodyText == #"{"title":"Emma"}"#)
    }

    @Test func answersFromAClosure() async throws {
        let stub = StubTransport { request in
            let page = Int(request.queryValue("page") ?? "1") ?? 1
            return page == 1 ? .json(#"[{"id":1,"title":"Dune"}]"#) : .json("[]")
        }
        let books = CatalogAPI(transport: stub).books()

        #expect(try await books.list(page: 1).count == 1)
        #expect(try await books.list(page: 2).isEmpty)
        #expect(stub.requests.count == 2)
    }

    @Test func surfacesServerErrors() async throws {
        let stub = StubTransport()
        stub.on(.get, "/v1/books", .json(#"{"error":"maintenance"}"#, status: 503))

        let error = await #expect(throws: NetLayerError.self) {
            try await CatalogAPI(transport: stub).books().list(page: 1)
        }

        #expect(error?.code == .unacceptableStatus)
        #expect(error?.statusCode == 503)
        #expect(error?.body == Data(#"{"error":"maintenance"}"#.utf8))
    }

    @Test func surfacesConnectionFailuresAndTimeouts() async throws {
        let stub = StubTransport()
        stub.on(.get, "/v1/books", query: ["page": "1"], .failure(.networkConnectionLost))
        stub.on(.get, "/v1/books", query: ["page": "2"], StubResponse.json("[]").delayed(by: .seconds(30)))
        let books = CatalogAPI(transport: stub, timeout: .milliseconds(100)).books()

        let lost = await #expect(throws: NetLayerError.self) { try await books.list(page: 1) }
        #expect(lost?.code == .transport)
        #expect(lost?.urlError?.code == .networkConnectionLost)

        let slow = await #expect(throws: NetLayerError.self) { try await books.list(page: 2) }
        #expect(slow?.code == .timedOut)
    }

    @Test func talksToARealSocket() async throws {
        let server = try LoopbackServer.start()
        defer { server.stop() }
        server.route("/v1/books") { request in
            request.queryValue("page") == "1" ? .json(#"[{"id":1,"title":"Dune"}]"#) : .json("[]")
        }
        let api = CatalogAPI(protocol: .http, domain: server.hostAndPort)

        let books = try await api.books().list(page: 1)

        #expect(books.count == 1)
        let received = try #require(server.requests(path: "/v1/books").first)
        #expect(received.header("Host") == server.hostAndPort)
        #expect(received.target == "/v1/books?page=1")
    }

    @Test func readsASlowResponse() async throws {
        let server = try LoopbackServer.start()
        defer { server.stop() }
        server.route("/v1/books") { _ in
            LoopbackResponse.json("[]").dripped(.init(pieceSize: 1, interval: .seconds(2)))
        }
        let api = CatalogAPI(protocol: .http, domain: server.hostAndPort, timeout: .milliseconds(250))

        let error = await #expect(throws: NetLayerError.self) { try await api.books().list(page: 1) }

        #expect(error?.code == .timedOut)
    }
}

import Foundation
import NetLayer
import NetLayerTesting
import Testing

/// The guide's recipes run, not only compile: what they send and what they read back.
@Suite("Docs/Guide.md recipes")
struct GuideExamplesTests {
    typealias Book = GuideExamples.Book

    /// A server answering the recipes' paths, and the guide's `BooksTarget` pointed at it.
    static func books() throws -> (LoopbackServer, GuideExamples.BooksTarget) {
        let server = try LoopbackServer.start()
        server.route("/books") { _ in .json(#"[{"id":1,"title":"Dune"},{"id":2,"title":"Emma"}]"#) }
        server.route("/books/page") { _ in
            .json(#"{"data":{"total":7,"items":[{"id":3,"title":"Ubik"}]}}"#)
        }
        let api = Resource(protocol: .http, domain: server.hostAndPort)
        return (server, GuideExamples.BooksTarget(resource: api, path: "/books"))
    }

    @Test func enumsSetsAndMixedLiteralsAreSentAsTheGuideSays() async throws {
        let (server, books) = try Self.books()
        defer { server.stop() }
        let found = try await GuideExamples.search(books, tags: ["sf", "classic"])
        #expect(found.map(\.title) == ["Dune", "Emma"])
        let query = try #require(server.requests(path: "/books").first?.rawQuery)
        #expect(
            query
                == "filter%5Btitle%5D=Dune&filter%5Byear%5D=1965&sort=newest&tags%5B%5D=classic&tags%5B%5D=sf"
        )
    }

    @Test func anInferredModelAKeyPathAndAJSONValueReadTheBody() async throws {
        let (server, books) = try Self.books()
        defer { server.stop() }
        let all: [Book] = try await books.makeExecutor().execute()
        #expect(all.count == 2)
        let items = try await books.makeExecutor(subpath: "page").execute(
            model: [Book].self, at: "data.items")
        #expect(items.map(\.title) == ["Ubik"])
        let json: JSONValue = try await books.makeExecutor(subpath: "page").execute()
        #expect(json["data"]?["total"]?.intValue == 7)
        try await GuideExamples.decoding(books)
    }

    /// Answers each request with the next status of a list, then 200.
    final class StatusScript: @unchecked Sendable {  // guarded by lock
        private let lock = NSLock()
        private var statuses: [Int]
        init(_ statuses: [Int]) { self.statuses = statuses }
        func next() -> Int { lock.withLock { statuses.isEmpty ? 200 : statuses.removeFirst() } }
    }

    @Test func theTunedOptionsRetryOnly502And503AndPrintEveryCall() async throws {
        let server = try LoopbackServer.start()
        defer { server.stop() }
        let gateway = StatusScript([502, 503])
        server.route("/gateway") { _ in .text("status", status: gateway.next()) }
        let broken = StatusScript([500])
        server.route("/broken") { _ in .text("status", status: broken.next()) }
        let lines = LockedLines()
        let api = Resource(
            protocol: .http, domain: server.hostAndPort, options: GuideExamples.tunedOptions(log: lines.sink))
        let response = try await GuideExamples.BooksTarget(resource: api, path: "/gateway").makeExecutor()
            .response()
        #expect(response.statusCode == 200 && response.attempts == 3)
        #expect(server.requests(path: "/gateway").count == 3)
        await #expect(throws: NetLayerError.self) {
            try await GuideExamples.BooksTarget(resource: api, path: "/broken").makeExecutor().execute()
        }
        #expect(server.requests(path: "/broken").count == 1)
        #expect(lines.all.contains { $0.contains("GET http://\(server.hostAndPort)/broken") })
    }

    /// Debug lines, collected.
    final class LockedLines: @unchecked Sendable {  // guarded by lock
        private let lock = NSLock()
        private var lines: [String] = []
        var all: [String] { lock.withLock { lines } }
        var sink: LogSink { LogSink { [self] line in lock.withLock { lines.append(line) } } }
    }

    @Test func theLenientValidationAcceptsARedirectStatusItself() async throws {
        let server = try LoopbackServer.start()
        defer { server.stop() }
        server.route("/moved") { _ in LoopbackResponse(status: 304, headers: [], body: Data()) }
        let api = Resource(protocol: .http, domain: server.hostAndPort, options: GuideExamples.validation())
        let response = try await GuideExamples.BooksTarget(resource: api, path: "/moved").makeExecutor()
            .response()
        #expect(response.statusCode == 304)
    }
}

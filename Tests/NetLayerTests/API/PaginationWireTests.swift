import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

extension WireTests {
    /// `pages(model:)` and `items(of:)`: a listing read by following `Link: rel="next"`, lazily,
    /// through the whole pipeline, on the resource's origin only.
    @Suite("Paging through Link rel=next")
    struct PaginationWireTests {
        static let server = TestServerPool.make()

        /// Answers `path?page=n` with `[2n-1,2n]` (status `status(n)`) and, when `next(n)` names
        /// one, a `Link` to it as `next` (and a `last` link, which paging ignores).
        static func routePages(
            _ server: TestServer, _ path: String, status: @escaping @Sendable (Int) -> Int = { _ in 200 },
            next: @escaping @Sendable (Int) -> String?
        ) {
            server.route(path) { request in
                let page = Int(request.queryValue("page") ?? "1") ?? 1
                var headers = [("Content-Type", "application/json")]
                if let link = next(page) {
                    headers.append(("Link", #"<\#(link)>; rel="next", </last>; rel="last""#))
                }
                return TestResponse(
                    status: status(page), headers: headers, body: Data("[\(page * 2 - 1),\(page * 2)]".utf8))
            }
        }

        /// Reads `sequence` until it ends or throws: the elements, and the error.
        static func drain<S: AsyncSequence>(_ sequence: S) async -> ([S.Element], (any Error)?) {
            var elements: [S.Element] = []
            do {
                for try await element in sequence { elements.append(element) }
                return (elements, nil)
            } catch {
                return (elements, error)
            }
        }

        @Test func threePagesAreReadByTheirNextLinksWithTheCallsHeaders() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let base = "http://\(server.hostAndPort)\(path)"
            Self.routePages(server, path) { page in page < 3 ? "\(base)?page=\(page + 1)&per_page=2" : nil }
            let executor = ServiceAPI(server: server).repos(path)
                .makeExecutor(headers: ["X-Call": "mine"], params: ["per_page": 2])
            var items: [Int] = []
            for try await item in executor.items(of: Int.self) { items.append(item) }
            #expect(items == [1, 2, 3, 4, 5, 6])
            let received = server.requests(path: path)
            // The link carries the query: the first call's params are not added again.
            #expect(
                received.map(\.rawQuery) == [
                    "locale=en&per_page=2", "page=2&per_page=2", "page=3&per_page=2",
                ])
            #expect(received.allSatisfy { $0.header("Authorization") == "Bearer gh-t0ken" })
            #expect(received.allSatisfy { $0.header("X-Call") == "mine" && $0.method == "GET" })
            server.reset()
            var pages: [(Int, [Int], URL?)] = []
            for try await page in executor.pages(model: [Int].self) {
                pages.append((page.number, page.value, page.nextURL))
            }
            #expect(pages.map(\.0) == [1, 2, 3])
            #expect(pages.map(\.1) == [[1, 2], [3, 4], [5, 6]])
            #expect(
                pages.map(\.2) == [
                    URL(string: "\(base)?page=2&per_page=2"), URL(string: "\(base)?page=3&per_page=2"), nil,
                ])
            #expect(server.requests(path: path).count == 3)
        }

        @Test func aRelativeNextLinkAndAnEnvelopeAreRead() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { request in
                let page = Int(request.queryValue("page") ?? "1") ?? 1
                var headers = [("Content-Type", "application/json")]
                if page < 2 { headers.append(("Link", #"<?page=2>; rel="next""#)) }
                let body =
                    #"{"total":3,"items":\#(page == 1 ? "[{\"id\":1,\"title\":\"Dune\"},{\"id\":2,\"title\":\"Emma\"}]" : "[{\"id\":3,\"title\":\"Ubik\"}]")}"#
                return TestResponse(status: 200, headers: headers, body: Data(body.utf8))
            }
            var titles: [String] = []
            for try await book in TestAPI(server: server).target(path).makeExecutor().items(
                of: Book.self, at: "items")
            {
                titles.append(book.title)
            }
            #expect(titles == ["Dune", "Emma", "Ubik"])
            #expect(server.requests(path: path).map(\.rawQuery) == [nil, "page=2"])
        }

        @Test(.tags(.hardening)) func aNextLinkToAnotherOriginIsRefusedAndNothingIsSentThere() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            // `localhost` is another origin than `127.0.0.1`, though the same server answers both.
            Self.routePages(server, path) { page in "http://localhost:\(server.port)\(path)?page=\(page + 1)"
            }
            let (items, error) = await Self.drain(
                ServiceAPI(server: server).repos(path).makeExecutor().items(of: Int.self))
            #expect(items == [1, 2])
            let failure = try #require(error as? NetLayerError)
            #expect(failure.code == .invalidURL && failure.part == "url", "\(failure)")
            #expect(failure.message.contains("not on this resource's origin"), "\(failure)")
            #expect(failure.message.hasSuffix("(the next link of page 1)"), "\(failure)")
            #expect(!failure.description.contains("gh-t0ken"))
            // The resource's credentials went nowhere else: only page 1 was sent at all.
            #expect(server.requests(path: path).count == 1)
        }

        @Test func thePageLimitEndsWithATypedErrorAfterItsLastPage() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let base = "http://\(server.hostAndPort)\(path)"
            Self.routePages(server, path) { page in "\(base)?page=\(page + 1)&token=s3cr3t" }
            let executor = ServiceAPI(server: server).repos(path).makeExecutor()
            let (pages, error) = await Self.drain(executor.pages(model: [Int].self, maximumPages: 3))
            #expect(pages.map(\.number) == [1, 2, 3])
            let failure = try #require(error as? NetLayerError)
            #expect(failure.code == .tooManyPages, "\(failure)")
            #expect(failure.message.contains("maximumPages is 3"), "\(failure)")
            // The link it names is printed redacted.
            #expect(failure.message.contains("token=<redacted>") && !failure.description.contains("s3cr3t"))
            #expect(server.requests(path: path).count == 3)
            // A limit below 1 is refused before anything is sent.
            server.reset()
            let (none, refused) = await Self.drain(executor.items(of: Int.self, maximumPages: 0))
            #expect(none.isEmpty && (refused as? NetLayerError)?.code == .invalidValue)
            #expect(server.requests(path: path).isEmpty)
        }

        @Test func aNextLinkBackToAPageAlreadyReadStopsWithALinkLoop() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let base = "http://\(server.hostAndPort)\(path)"
            // Page 2 links back to the first page's URL (with a fragment, which no request carries).
            Self.routePages(server, path) { page in page == 1 ? "\(base)?page=2" : "\(base)?locale=en#top" }
            let (items, error) = await Self.drain(
                ServiceAPI(server: server).repos(path).makeExecutor().items(of: Int.self))
            #expect(items == [1, 2, 3, 4])
            let failure = try #require(error as? NetLayerError)
            #expect(failure.code == .linkLoop, "\(failure)")
            #expect(
                failure.message.hasPrefix("page 2 links to \(base)?locale=en as its next page"), "\(failure)")
            #expect(server.requests(path: path).count == 2)
        }

        @Test func anErrorOnPage2IsThrownAfterPage1sItemsAsTheServicesError() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let base = "http://\(server.hostAndPort)\(path)"
            server.route(path) { request in
                guard request.queryValue("page") == "2" else {
                    return TestResponse(
                        status: 200, headers: [("Link", "<\(base)?page=2>; rel=\"next\"")],
                        body: Data("[1,2]".utf8))
                }
                return .json(#"{"message":"page expired"}"#, status: 422)
            }
            let (items, error) = await Self.drain(
                ServiceAPI(server: server).repos(path).makeExecutor().items(of: Int.self))
            #expect(items == [1, 2])
            // The resource's error mapping applies to every page.
            #expect(
                error as? ServiceError == ServiceError(message: "page expired", errors: nil),
                "\(String(describing: error))")
            #expect(server.requests(path: path).count == 2)
        }

        @Test func aPageIsRequestedOnlyWhenTheLoopAsksForIt() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let base = "http://\(server.hostAndPort)\(path)"
            Self.routePages(server, path) { page in "\(base)?page=\(page + 1)" }
            let items = TestAPI(server: server).target(path).makeExecutor().items(of: Int.self)
            try await Task.sleep(for: .milliseconds(50))
            #expect(server.requests(path: path).isEmpty)
            var first: Int?
            for try await item in items {
                first = item
                break
            }
            #expect(first == 1)
            try await Task.sleep(for: .milliseconds(200))
            #expect(server.requests(path: path).count == 1)
            // The second item is page 1's: still no second request.
            var iterator = items.makeAsyncIterator()
            _ = try await iterator.next()
            _ = try await iterator.next()
            #expect(server.requests(path: path).count == 2)
            _ = try await iterator.next()
            #expect(server.requests(path: path).count == 3)
        }

        @Test func everyPageGoesThroughRetriesAndTheAuthenticator() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let base = "http://\(server.hostAndPort)\(path)"
            let page2 = HitCounter()
            server.route(path) { request in
                let page = Int(request.queryValue("page") ?? "1") ?? 1
                let token = request.header("Authorization")
                // Page 2 fails once (a retry), page 3 takes only the refreshed token (a replay).
                if page == 2 && page2.next() == 1 { return .text("busy", status: 503) }
                if page == 3 && token != "Bearer fresh" { return .text("expired", status: 401) }
                var response = TestResponse.json("[\(page)]")
                if page < 3 { response.addHeader("Link", "<\(base)?page=\(page + 1)>; rel=\"next\"") }
                return response
            }
            let auth = Authentication.bearer(token: "stale") { _ in "fresh" }
            let api = ResilientAPI(
                server: server,
                options: ResourceOptions(retryPolicy: .fixed(delay: .milliseconds(1)), authentication: auth))
            var items: [Int] = []
            for try await item in api.target(path).makeExecutor().items(of: Int.self) { items.append(item) }
            #expect(items == [1, 2, 3])
            let received = server.requests(path: path)
            #expect(received.map { $0.queryValue("page") ?? "1" } == ["1", "2", "2", "3", "3"])
            #expect(
                received.map { $0.header("Authorization") ?? "-" } == [
                    "Bearer stale", "Bearer stale", "Bearer stale", "Bearer stale", "Bearer fresh",
                ])
            #expect(auth.refreshCount == 1)
        }

        @Test func cancellingTheLoopsTaskStopsThePaging() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let base = "http://\(server.hostAndPort)\(path)"
            let gate = TestGate()
            defer { gate.open() }
            server.route(path) { request in
                let page = Int(request.queryValue("page") ?? "1") ?? 1
                if page == 2 { gate.wait() }
                var response = TestResponse.json("[\(page)]")
                response.addHeader("Link", "<\(base)?page=\(page + 1)>; rel=\"next\"")
                return response
            }
            let items = TestAPI(server: server).target(path).makeExecutor().items(of: Int.self)
            let reader = Task {
                var read: [Int] = []
                do {
                    for try await item in items { read.append(item) }
                    return (read, nil as NetLayerError?)
                } catch {
                    return (read, error as? NetLayerError)
                }
            }
            #expect(await server.waitForRequests(count: 2, path: path).count == 2)
            reader.cancel()
            let (read, error) = await reader.value
            gate.open()
            #expect(read == [1])
            #expect(error?.code == .cancelled, "\(String(describing: error))")
            try await Task.sleep(for: .milliseconds(200))
            #expect(server.requests(path: path).count <= 2)
            #expect(!server.requests(path: path).contains { $0.queryValue("page") == "3" })
        }
    }
}

import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

/// The code of Docs/Caching.md, compiled here so the page cannot rot (``DocsExamplesTests``
/// checks that every ```swift block of the page appears in this file, line for line), and run
/// against the test server below.
enum CachingExamples {
    struct Book: Decodable, Sendable { var id: Int }

    final class Catalog: Resource, @unchecked Sendable {
        init(domain: String = "api.example.com", secure: Bool = true, cache: HTTPCache) {
            super.init(
                protocol: secure ? .https : .http, domain: domain,
                options: ResourceOptions { $0.cache = cache })
        }

        func books() -> BooksTarget { BooksTarget(resource: self, path: "/books") }
    }

    final class BooksTarget: Target, @unchecked Sendable {}

    static func makeCatalog() -> Catalog {
        let cache = HTTPCache(maximumBytes: 20 << 20)
        let catalog = Catalog(cache: cache)
        return catalog
    }

    static func listOffline(_ catalog: Catalog, showBanner: (String) -> Void) async throws -> [Book] {
        let response = try await catalog.books().makeExecutor().response(model: [Book].self)
        if response.cacheStatus?.description == "stale" {
            showBanner("Offline: showing the books saved earlier")
        }
        return response.value
    }

    static func refresh(_ catalog: Catalog) async throws -> [Book] {
        try await catalog.books().makeExecutor().cachePolicy(.revalidate).execute(model: [Book].self)
    }

    static func savedOnly(_ catalog: Catalog) async throws -> [Book] {
        try await catalog.books().makeExecutor().cachePolicy(.onlyIfCached).execute(model: [Book].self)
    }

    static func tenMinutesStale(_ catalog: Catalog) async throws -> [Book] {
        try await catalog.books().makeExecutor(headers: ["Cache-Control": "max-stale=600"])
            .execute(model: [Book].self)
    }

    final class LivePricesTarget: Target, @unchecked Sendable {
        override var cachePolicy: CachePolicy? { .bypass }
    }

    static func logOut(_ cache: HTTPCache) async {
        await cache.removeAll()
    }
}

extension WireTests {
    @Suite("Docs/Caching.md recipes")
    struct CachingExamplesTests {
        static let server = TestServerPool.make()

        @Test func theRecipesWorkAgainstAServer() async throws {
            let server = try Self.server.get()
            let hits = LockedValue(0)
            server.route("/books") { request in
                let count = hits.withLock { count in
                    count += 1
                    return count
                }
                if count > 2 { return .drop() }
                if request.header("If-None-Match") == "\"b1\"" {
                    return TestResponse(
                        status: 304, headers: [("ETag", "\"b1\""), ("Cache-Control", "max-age=0")])
                }
                return TestResponse(
                    status: 200,
                    headers: [
                        ("Content-Type", "application/json"), ("ETag", "\"b1\""),
                        ("Cache-Control", "max-age=0"),
                    ], body: Data(#"[{"id":1}]"#.utf8))
            }
            let cache = HTTPCache()
            let catalog = CachingExamples.Catalog(domain: server.hostAndPort, secure: false, cache: cache)
            var banners: [String] = []
            #expect(try await CachingExamples.listOffline(catalog) { banners.append($0) }.map(\.id) == [1])
            // Stale: revalidated with If-None-Match, answered 304, served from the cache.
            #expect(try await CachingExamples.refresh(catalog).map(\.id) == [1])
            #expect(server.requests(path: "/books").last?.header("If-None-Match") == "\"b1\"")
            // The server is gone: the saved books, with a banner.
            #expect(try await CachingExamples.listOffline(catalog) { banners.append($0) }.map(\.id) == [1])
            #expect(banners == ["Offline: showing the books saved earlier"])
            #expect(try await CachingExamples.savedOnly(catalog).map(\.id) == [1])
            #expect(try await CachingExamples.tenMinutesStale(catalog).map(\.id) == [1])
            let live = CachingExamples.LivePricesTarget(resource: catalog, path: "/books")
            await #expect(throws: NetLayerError.self) { try await live.makeExecutor().execute() }
            await CachingExamples.logOut(cache)
            #expect(await cache.usage().entries == 0)
            let storage = CachingExamples.makeCatalog().options.cache?.storage as? MemoryCacheStorage
            #expect(storage?.maximumBytes == 20 << 20)
        }
    }
}

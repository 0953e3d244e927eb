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

    static func makeDiskCatalog(cachesDirectory: URL) async throws -> Catalog {
        let folder = cachesDirectory.appendingPathComponent("catalog", isDirectory: true)
        let cache = try await HTTPCache(directory: folder, maximumBytes: 50 << 20)
        return Catalog(cache: cache)
    }

    /// Entries in a key-value service shared by several servers; a dictionary stands in for it here.
    actor KeyValueCacheStorage: HTTPCacheStorage {
        nonisolated let maximumEntryBytes = 1 << 20
        nonisolated let keySecret: [UInt8]  // the same secret on every server, from your secrets store
        private var values: [String: [Data]] = [:]  // key name → the variants' bytes, newest first

        init(keySecret: [UInt8]) { self.keySecret = keySecret }

        func entries(for key: HTTPCacheKey) -> [HTTPCacheEntry] {
            (values[key.name] ?? []).compactMap { try? HTTPCacheEntry(encoded: $0) }
        }

        func store(_ entry: HTTPCacheEntry, for key: HTTPCacheKey, replacing expected: HTTPCacheEntry?) {
            let stored = entries(for: key)
            if let expected, stored.first(where: { $0.selectsSameRequests(as: entry) }) != expected {
                return  // removed or replaced meanwhile: that stays
            }
            let others = stored.filter { !$0.selectsSameRequests(as: entry) }
            values[key.name] = [entry.encoded()] + others.map { $0.encoded() }
        }

        func removeEntries(forURIOf key: HTTPCacheKey) {
            values = values.filter { !$0.key.hasPrefix(key.uriName) }
        }

        func removeAll() { values = [:] }

        func usage() -> HTTPCacheUsage {
            HTTPCacheUsage(
                entries: values.values.reduce(0) { $0 + $1.count },
                bytes: values.values.joined().reduce(0) { $0 + $1.count })
        }
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

        /// The disk and the custom store recipes: each answers a second catalog (a restart, another
        /// server) from what the first stored.
        @Test func theStoresKeepEntriesForTheNextCatalog() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                TestResponse(
                    status: 200,
                    headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=600")],
                    body: Data(#"[{"id":7}]"#.utf8))
            }
            func books(_ catalog: CachingExamples.Catalog) async throws -> Response<[CachingExamples.Book]> {
                let catalog = CachingExamples.Catalog(
                    domain: server.hostAndPort, secure: false, cache: catalog.options.cache ?? HTTPCache())
                return try await CachingExamples.BooksTarget(resource: catalog, path: path).makeExecutor()
                    .response(model: [CachingExamples.Book].self)
            }
            try await CachingDiskStorageTests.withDirectory { caches in
                _ = try await books(CachingExamples.makeDiskCatalog(cachesDirectory: caches))
                let restarted = try await books(CachingExamples.makeDiskCatalog(cachesDirectory: caches))
                #expect(restarted.value.map(\.id) == [7] && restarted.cacheStatus?.isHit == true)
            }
            let shared = CachingExamples.KeyValueCacheStorage(keySecret: Array(repeating: 7, count: 32))
            let first = try await books(CachingExamples.Catalog(cache: HTTPCache(storage: shared)))
            let second = try await books(CachingExamples.Catalog(cache: HTTPCache(storage: shared)))
            #expect(first.cacheStatus?.isStored == true && second.cacheStatus?.isHit == true)
            #expect(await shared.usage().entries == 1)
            #expect(server.requests(path: path).count == 2)
        }
    }
}

import BookstoreServer
import Foundation
import NetLayer

extension Story {
    /// A resource with a private HTTP cache on disk (Docs/Caching.md): the bestsellers are stored,
    /// come back revalidated by a 304 (the body from the cache), still come back from the cache while
    /// the catalog answers 503 (`stale-if-error`), and after a restart (a new cache on the same
    /// directory) without a request.
    func caching() async throws {
        begin("A private HTTP cache: stored, revalidated by a 304, served stale while the catalog is down")
        Console.info(
            "(after a 1 s pause, so the server's 5-per-second window holds none of the requests above)")
        try await Task.sleep(for: .seconds(1))
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bookstore-cache-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cached = BookstoreAPI(
            port: server.port, token: token, rateLimits: [], transport: api.transport,
            cache: try await HTTPCache(directory: directory))
        let first = try await cached.bestsellers().list()
        try expect(
            first.cacheStatus?.description == "stored", "first: \(String(describing: first.cacheStatus))")
        Console.ok("\(first.value.count) bestseller(s) fetched and stored (Cache-Status: stored)")

        let second = try await cached.bestsellers().list()
        let afterSecond = await server.warehouseStats()
        try expect(
            second.cacheStatus?.description == "revalidated" && afterSecond.conditionalBestsellerRequests == 1
                && second.value.count == first.value.count,
            "second: \(String(describing: second.cacheStatus)), conditional \(afterSecond.conditionalBestsellerRequests)"
        )
        Console.ok("stale at once (max-age=0): If-None-Match sent, 304 received, the stored list served")

        let third = try await cached.bestsellers().list()
        let afterThird = await server.warehouseStats()
        try expect(
            third.cacheStatus?.description == "stale" && third.statusCode == 200
                && afterThird.bestsellerRequests == 3,
            "third: \(String(describing: third.cacheStatus)), status \(third.statusCode)")
        Console.ok("the catalog answered 503: stale-if-error served the stored list (Cache-Status: stale)")

        // The app restarts: a new resource and a new cache on the same directory.
        let restarted = BookstoreAPI(
            port: server.port, token: token, rateLimits: [], transport: api.transport,
            cache: try await HTTPCache(directory: directory))
        let saved = try await restarted.bestsellers().list(.onlyIfCached)
        let afterRestart = await server.warehouseStats()
        try expect(
            saved.statusCode == 200 && saved.value.count == first.value.count
                && afterRestart.bestsellerRequests == 3,
            "after the restart: status \(saved.statusCode), requests \(afterRestart.bestsellerRequests)")
        Console.ok("after a restart, only-if-cached: the list read from the disk cache, nothing sent")
        record(
            "the cache stored the bestsellers on disk, revalidated them with a 304, served them through a 503 and after a restart"
        )
    }
}

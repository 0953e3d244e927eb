import Foundation
import NetLayer
import NetLayerAsyncHTTPClient
import NetLayerTesting
import Testing

/// NetLayer's cache over AsyncHTTPClient, which caches nothing of its own: a fresh answer from
/// memory, a stale one revalidated (the 304 serves the stored body), an unknown content coding
/// stored and served (libcurl refuses it on Linux: cache-tests `headers-store-Content-Encoding`),
/// and a stored answer while the server is gone; in memory and on disk. Asserted on what the server
/// received.
@Suite struct HTTPCacheTests {
    @Test(arguments: [nil, Duration.seconds(30)], [false, true])
    func freshHitsRevalidationAndAStaleAnswerWhileTheServerIsGone(timeout: Duration?, onDisk: Bool)
        async throws
    {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("netlayer-ahc-cache-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = onDisk ? try await HTTPCache(directory: directory) : HTTPCache()
        let gone = LockedFlag()
        let server = try LoopbackServer.start(fallback: { request in
            if gone.isSet { return .drop() }
            switch request.path {
            case "/fresh":
                return LoopbackResponse(
                    headers: [("Cache-Control", "max-age=3600"), ("Content-Encoding", "unknown-coding")],
                    body: Data("fresh".utf8))
            default:
                if request.headerFields["If-None-Match"] == "\"v1\"" {
                    return LoopbackResponse(
                        status: 304, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=0")])
                }
                return LoopbackResponse(
                    headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=0")], body: Data("stale".utf8))
            }
        })
        defer { server.stop() }
        try await withTransport { transport in
            let api = LoopbackAPI(
                server: server, transport: transport,
                options: ResourceOptions {
                    $0.cache = cache
                    $0.timeout = timeout
                })
            for _ in 0..<3 {
                let fresh = try await api.target("/fresh").makeExecutor().response()
                #expect(fresh.data == Data("fresh".utf8))
            }
            _ = try await api.target("/stale").makeExecutor().execute()
            let revalidated = try await api.target("/stale").makeExecutor().response()
            #expect(revalidated.data == Data("stale".utf8))
            #expect(revalidated.cacheStatus?.description == "revalidated")
            gone.set()
            let offline = try await api.target("/stale").makeExecutor().response()
            #expect(offline.data == Data("stale".utf8) && offline.cacheStatus?.description == "stale")
        }
        let paths = server.requests.map(\.path)
        #expect(paths.filter { $0 == "/fresh" }.count == 1)
        // The first fetch, the revalidation, and the revalidation the gone server dropped.
        let validators = server.requests.filter { $0.path == "/stale" }.map {
            $0.headerFields["If-None-Match"]
        }
        #expect(validators == [nil, "\"v1\"", "\"v1\""])
    }

    /// A flag set once, read from the server's threads.
    final class LockedFlag: @unchecked Sendable {  // guarded by lock
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
    }
}

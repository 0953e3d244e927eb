import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

extension WireTests {
    /// Issue 28: the cache as a stage of the pipeline, checked by what the server received and
    /// what each call answered.
    @Suite("Caching: the cache stage over the wire")
    struct CacheStageWireTests {
        static let server = TestServerPool.make()

        func api(_ server: TestServer, cache: HTTPCache) -> TestAPI {
            TestAPI(server: server, options: ResourceOptions { $0.cache = cache })
        }

        /// Where a test's cache keeps its entries.
        enum Storage: String, CaseIterable, Sendable {
            case memory, disk
        }

        /// Runs `body` with a new cache of `storage`; a disk cache's directory is removed after.
        func withCache(_ storage: Storage, _ body: (HTTPCache) async throws -> Void) async throws {
            guard storage == .disk else { return try await body(HTTPCache()) }
            try await CachingDiskStorageTests.withDirectory { directory in
                try await body(HTTPCache(directory: directory))
            }
        }

        func answer(_ body: String, _ headers: (String, String)...) -> TestResponse {
            TestResponse(status: 200, headers: headers, body: Data(body.utf8))
        }

        @Test func aFreshResponseIsServedFromTheCacheWithItsAge() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in self.answer("one", ("Cache-Control", "max-age=3600")) }
            let api = api(server, cache: HTTPCache())
            let first = try await api.target(path).makeExecutor().response()
            let second = try await api.target(path).makeExecutor().response()
            #expect(server.requests(path: path).count == 1)
            #expect(first.data == Data("one".utf8) && second.data == Data("one".utf8))
            #expect(first.headerFields["Cache-Status"] == "NetLayer; fwd=uri-miss; fwd-status=200; stored")
            #expect(second.headerFields["Cache-Status"]?.hasPrefix("NetLayer; hit; ttl=") == true)
            #expect(second.headerFields["Age"] != nil && second.statusCode == 200)
        }

        @Test(arguments: Storage.allCases) func aStaleResponseIsRevalidatedAndA304ServesTheStoredBody(
            storage: Storage
        ) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { request in
                if request.header("If-None-Match") == "\"v1\"" {
                    return TestResponse(
                        status: 304,
                        headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=0"), ("X-Fresh", "yes")],
                        body: Data())
                }
                return self.answer("stored body", ("ETag", "\"v1\""), ("Cache-Control", "max-age=0"))
            }
            try await withCache(storage) { cache in
                let api = api(server, cache: cache)
                _ = try await api.target(path).makeExecutor().execute()
                let second = try await api.target(path).makeExecutor().response()
                let requests = server.requests(path: path)
                #expect(requests.count == 2)
                #expect(requests.first?.header("If-None-Match") == nil)
                #expect(requests.last?.header("If-None-Match") == "\"v1\"")
                #expect(second.statusCode == 200 && second.data == Data("stored body".utf8))
                #expect(second.headerFields["X-Fresh"] == "yes")
                #expect(second.headerFields["Cache-Status"] == "NetLayer; fwd=stale; fwd-status=304")
            }
        }

        @Test(arguments: Storage.allCases) func aResponseIsNeverServedToOtherCredentials(storage: Storage)
            async throws
        {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { request in
                self.answer(
                    request.header("Authorization") ?? "none", ("Cache-Control", "private, max-age=3600"))
            }
            try await withCache(storage) { cache in
                let api = api(server, cache: cache)
                let alice = try await api.target(path, headers: ["Authorization": "Bearer alice"])
                    .makeExecutor()
                    .execute()
                let bob = try await api.target(path, headers: ["Authorization": "Bearer bob"]).makeExecutor()
                    .execute()
                let nobody = try await api.target(path).makeExecutor().execute()
                let aliceAgain = try await api.target(path, headers: ["Authorization": "Bearer alice"])
                    .makeExecutor().execute()
                #expect(String(decoding: alice, as: UTF8.self) == "Bearer alice")
                #expect(String(decoding: bob, as: UTF8.self) == "Bearer bob")
                #expect(String(decoding: nobody, as: UTF8.self) == "none")
                #expect(String(decoding: aliceAgain, as: UTF8.self) == "Bearer alice")
                #expect(server.requests(path: path).count == 3)
            }
        }

        @Test func anUnsafeMethodInvalidatesTheStoredResponse() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { request in
                request.method == "POST"
                    ? TestResponse(status: 201, headers: [], body: Data())
                    : self.answer("list", ("Cache-Control", "max-age=3600"))
            }
            let api = api(server, cache: HTTPCache())
            _ = try await api.target(path).makeExecutor().execute()
            _ = try await api.target(path).makeExecutor().execute()
            _ = try await api.target(path).makeExecutor(method: .post).execute()
            _ = try await api.target(path).makeExecutor().execute()
            #expect(server.requests(path: path).map(\.method) == ["GET", "POST", "GET"])
        }

        @Test(arguments: Storage.allCases) func staleIfErrorServesTheStoredResponseWhenTheServerFails(
            storage: Storage
        ) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let calls = LockedValue(0)
            server.route(path) { _ in
                let count = calls.withLock { count in
                    count += 1
                    return count
                }
                return count == 1
                    ? self.answer("saved", ("Cache-Control", "max-age=0, stale-if-error=3600"))
                    : TestResponse(status: 503, headers: [], body: Data("down".utf8))
            }
            try await withCache(storage) { cache in
                let api = api(server, cache: cache)
                _ = try await api.target(path).makeExecutor().execute()
                let second = try await api.target(path).makeExecutor().response()
                #expect(server.requests(path: path).count == 2)
                #expect(second.statusCode == 200 && second.data == Data("saved".utf8))
                #expect(second.headerFields["Cache-Status"] == "NetLayer; fwd=stale; fwd-status=503")
            }
        }

        @Test func onlyIfCachedWithNothingStoredIs504AndNothingIsSent() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in self.answer("x") }
            let api = api(server, cache: HTTPCache())
            let error = await #expect(throws: NetLayerError.self) {
                try await api.target(path, headers: ["Cache-Control": "only-if-cached"]).makeExecutor()
                    .execute()
            }
            #expect(error?.statusCode == 504)
            #expect(server.requests(path: path).isEmpty)
        }

        @Test func noStoreAndStreamsPassByTheCache() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path + "/no-store") { _ in
                self.answer("n", ("Cache-Control", "no-store, max-age=3600"))
            }
            server.route(path + "/stream") { _ in self.answer("s", ("Cache-Control", "max-age=3600")) }
            let cache = HTTPCache()
            let api = api(server, cache: cache)
            for _ in 0..<2 { _ = try await api.target(path + "/no-store").makeExecutor().execute() }
            for _ in 0..<2 {
                var bytes = Data()
                for try await chunk in try await api.target(path + "/stream").makeExecutor().stream() {
                    bytes.append(chunk)
                }
                #expect(bytes == Data("s".utf8))
            }
            #expect(server.requests(path: path + "/no-store").count == 2)
            #expect(server.requests(path: path + "/stream").count == 2)
            #expect(await cache.usage().entries == 0)
        }

        /// `path` answers `body` with `ETag: tag` and `Cache-Control: control`, and a request with
        /// `If-None-Match: tag` gets a 304 fresh for an hour.
        func routeValidated(_ server: TestServer, _ path: String, tag: String, body: String, control: String)
        {
            server.route(path) { request in
                request.header("If-None-Match") == tag
                    ? TestResponse(status: 304, headers: [("ETag", tag), ("Cache-Control", "max-age=3600")])
                    : self.answer(body, ("ETag", tag), ("Cache-Control", control))
            }
        }

        /// `path` answers `kept` with `ETag: "a"`, stale at once but usable for an hour while it is
        /// revalidated.
        func routeStaleWhileRevalidate(_ server: TestServer, _ path: String) {
            routeValidated(
                server, path, tag: "\"a\"", body: "kept", control: "max-age=0, stale-while-revalidate=3600")
        }

        /// RFC 5861 §3: the stale answer returns at once and one conditional request freshens the
        /// entry in the background.
        @Test func staleWhileRevalidateAnswersAtOnceAndRevalidatesInTheBackground() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            routeStaleWhileRevalidate(server, path)
            let api = api(server, cache: HTTPCache())
            _ = try await api.target(path).makeExecutor().execute()
            let stale = try await api.target(path).makeExecutor().response()
            #expect(stale.data == Data("kept".utf8))
            #expect(stale.headerFields["Cache-Status"] == "NetLayer; hit; fwd=stale")
            #expect(await waitUntil { server.requests(path: path).count == 2 })
            #expect(server.requests(path: path).last?.header("If-None-Match") == "\"a\"")
            var fresh = try await api.target(path).makeExecutor().response()
            for _ in 0..<100
            where fresh.headerFields["Cache-Status"]?.hasPrefix("NetLayer; hit; ttl=") != true {
                try await Task.sleep(for: .milliseconds(20))
                fresh = try await api.target(path).makeExecutor().response()
            }
            #expect(fresh.headerFields["Cache-Status"]?.hasPrefix("NetLayer; hit; ttl=") == true)
            #expect(fresh.data == Data("kept".utf8))
            #expect(server.requests(path: path).count == 2)
        }

        /// A store that holds its next store back (``holdNextStore()``) until a lookup has read:
        /// that lookup then answers what it read after the held store has ended, as a lookup that
        /// raced a background revalidation and lost.
        final class LaggingStorage: HTTPCacheStorage {
            let inner = MemoryCacheStorage()
            let state = LockedValue((hold: false, held: false, released: false, stores: 0))
            var maximumEntryBytes: Int { inner.maximumEntryBytes }

            func holdNextStore() { state.withLock { $0.hold = true } }

            func entries(for key: HTTPCacheKey) async -> [HTTPCacheEntry] {
                let found = await inner.entries(for: key)
                let stores = state.withLock { state -> Int? in
                    guard state.held, !state.released else { return nil }
                    state.released = true
                    return state.stores
                }
                if let stores {
                    for _ in 0..<500 where state.withLock({ $0.stores }) == stores {
                        try? await Task.sleep(for: .milliseconds(10))
                    }
                    try? await Task.sleep(for: .milliseconds(100))
                }
                return found
            }

            func store(_ entry: HTTPCacheEntry, for key: HTTPCacheKey, replacing expected: HTTPCacheEntry?)
                async
            {
                let holds = state.withLock { state -> Bool in
                    guard state.hold else { return false }
                    state.hold = false
                    state.held = true
                    return true
                }
                if holds {
                    for _ in 0..<500 where !state.withLock({ $0.released }) {
                        try? await Task.sleep(for: .milliseconds(10))
                    }
                }
                await inner.store(entry, for: key, replacing: expected)
                state.withLock { $0.stores += 1 }
            }

            func removeEntries(forURIOf key: HTTPCacheKey) async { await inner.removeEntries(forURIOf: key) }
            func removeAll() async { await inner.removeAll() }
            func usage() async -> HTTPCacheUsage { await inner.usage() }
        }

        /// RFC 5861 §3, one revalidation per entry: a call that read the stale entry just before a
        /// background revalidation freshened it starts no second one (it did, under load).
        @Test func aLookupThatRacedARevalidationStartsNoSecondOne() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            routeStaleWhileRevalidate(server, path)
            let storage = LaggingStorage()
            let api = api(server, cache: HTTPCache(storage: storage))
            _ = try await api.target(path).makeExecutor().execute()
            storage.holdNextStore()  // the background revalidation's 304
            _ = try await api.target(path).makeExecutor().response()
            #expect(await waitUntil { server.requests(path: path).count == 2 })
            // The 304 arrived and its store is held: the next lookup is the one that races it.
            #expect(await waitUntil { storage.state.withLock { $0.held } })
            let raced = try await api.target(path).makeExecutor().response()
            #expect(raced.headerFields["Cache-Status"] == "NetLayer; hit; fwd=stale")
            try await Task.sleep(for: .milliseconds(300))
            let fresh = try await api.target(path).makeExecutor().response()
            #expect(fresh.headerFields["Cache-Status"]?.hasPrefix("NetLayer; hit; ttl=") == true)
            #expect(server.requests(path: path).count == 2)
        }

        /// §4.4 against §4.3.4: a POST that removes the entry while its revalidation waits for the
        /// 304 wins; the 304 freshens nothing it no longer finds (it brought the entry back, and
        /// the next GET was answered from it).
        @Test(arguments: Storage.allCases) func aRevalidationDoesNotBringBackAnInvalidatedEntry(
            storage: Storage
        )
            async throws
        {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { request in
                if request.method == "POST" { return TestResponse(status: 204, headers: []) }
                if request.header("If-None-Match") == "\"v1\"" {
                    return TestResponse(
                        status: 304, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=3600")]
                    )
                    .delayed(by: .seconds(1))
                }
                return self.answer("v1", ("ETag", "\"v1\""), ("Cache-Control", "max-age=0"))
            }
            try await withCache(storage) { cache in
                let api = api(server, cache: cache)
                _ = try await api.target(path).makeExecutor().execute()
                async let revalidated = api.target(path).makeExecutor().response()
                #expect(await waitUntil { server.requests(path: path).count == 2 })
                _ = try await api.target(path).makeExecutor(method: .post).response()
                #expect(try await revalidated.statusCode == 200)
                let after = try await api.target(path).makeExecutor().response()
                #expect(after.cacheStatus?.isHit == false)
                #expect(server.requests(path: path).map(\.method) == ["GET", "GET", "POST", "GET"])
                #expect(server.requests(path: path).last?.header("If-None-Match") == nil)
            }
        }

        /// A cache shared by two resources with jars of their own: the first stores the answer and
        /// its cookie; the second is answered from the cache, and its jar gets no cookie of the
        /// first's (the cookie came from the server once, to the first).
        @Test func anAnswerFromTheCacheNeverPlantsAnotherCallersCookies() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path + "/page") { _ in
                self.answer(
                    "page", ("Cache-Control", "max-age=3600"), ("Set-Cookie", "session=first; Path=/"))
            }
            server.route(path + "/me") { request in self.answer(request.header("Cookie") ?? "none") }
            let cache = HTTPCache()
            let (firstJar, secondJar) = (CookieJar(), CookieJar())
            let first = TestAPI(
                server: server,
                options: ResourceOptions {
                    $0.cache = cache
                    $0.cookieJar = firstJar
                })
            let second = TestAPI(
                server: server,
                options: ResourceOptions {
                    $0.cache = cache
                    $0.cookieJar = secondJar
                })
            _ = try await first.target(path + "/page").makeExecutor().execute()
            let hit = try await second.target(path + "/page").makeExecutor().response()
            #expect(
                hit.cacheStatus?.isHit == true && hit.headerFields["Set-Cookie"] == "session=first; Path=/")
            #expect(firstJar.all.map(\.name) == ["session"] && secondJar.all.isEmpty)
            let me = try await second.target(path + "/me").makeExecutor().execute()
            #expect(String(decoding: me, as: UTF8.self) == "none")
        }

        /// Over URLSession, whose head joins repeated `Set-Cookie` fields with `, `: a response the
        /// cache passes on (stored or not) still gives the jar each cookie (the cache's copy of the
        /// head had lost the split: one cookie with a broken `Expires`).
        @Test func cookiesOfAResponseThatPassesTheCacheReachTheJarEach() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path + "/login") { _ in
                TestResponse(
                    status: 200,
                    headers: [
                        ("Cache-Control", "max-age=60"),
                        ("Set-Cookie", "a=1; Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT"),
                        ("Set-Cookie", "b=2; Path=/"),
                    ], body: Data("ok".utf8))
            }
            server.route(path + "/me") { request in self.answer(request.header("Cookie") ?? "none") }
            let jar = CookieJar()
            let api = TestAPI(
                server: server,
                options: ResourceOptions {
                    $0.cache = HTTPCache()
                    $0.cookieJar = jar
                })
            _ = try await api.target(path + "/login").makeExecutor().execute()
            #expect(Set(jar.all.map(\.name)) == ["a", "b"])
            let me = try await api.target(path + "/me").makeExecutor().execute()
            #expect(String(decoding: me, as: UTF8.self) == "a=1; b=2")
        }

        /// §5.2.1.5: a request's `no-store` keeps its answers out of the cache, a 304 that
        /// validates a stored response too: it is served, merged, and nothing is freshened.
        @Test func aRequestsNoStoreFreshensNothing() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            routeValidated(server, path, tag: "\"v1\"", body: "v1", control: "max-age=0")
            let api = api(server, cache: HTTPCache())
            _ = try await api.target(path).makeExecutor().execute()
            let validated = try await api.target(path, headers: ["Cache-Control": "no-store"]).makeExecutor()
                .response()
            #expect(validated.data == Data("v1".utf8) && validated.cacheStatus?.description == "revalidated")
            let next = try await api.target(path).makeExecutor().response()
            #expect(next.cacheStatus?.description == "revalidated")
            #expect(server.requests(path: path).count == 3)
        }

        /// §4.3.5: a 200 answer to HEAD updates the stored GET it matches (its fields and
        /// freshness; the stored body stays), and makes one it does not match stale.
        @Test func aHeadAnswerUpdatesOrStalesTheStoredGet() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let tag = LockedValue("\"v1\"")
            server.route(path) { request in
                let current = tag.withLock { $0 }
                if request.method == "HEAD" {
                    return TestResponse(
                        status: 200,
                        headers: [
                            ("ETag", current), ("Cache-Control", "max-age=3600"), ("X-Version", "head"),
                        ],
                        body: Data("body".utf8))  // its length is sent, not its bytes
                }
                return self.answer(
                    "body", ("ETag", current), ("Cache-Control", "max-age=0"), ("X-Version", "get"))
            }
            let api = api(server, cache: HTTPCache())
            _ = try await api.target(path).makeExecutor().execute()
            // Stale: the HEAD goes to the server (conditional); its 200 matches "v1".
            let head = try await api.target(path).makeExecutor(method: .head).response()
            #expect(head.statusCode == 200 && head.data.isEmpty)
            let updated = try await api.target(path).makeExecutor().response()
            #expect(updated.cacheStatus?.isHit == true)
            #expect(updated.data == Data("body".utf8) && updated.headerFields["X-Version"] == "head")
            #expect(server.requests(path: path).map(\.method) == ["GET", "HEAD"])

            // The representation changed: a HEAD that must be validated gets "v2", and the stored
            // GET, fresh until then, is stale: the next GET goes to the server.
            tag.withLock { $0 = "\"v2\"" }
            _ = try await api.target(path, headers: ["Cache-Control": "no-cache"]).makeExecutor(method: .head)
                .response()
            let after = try await api.target(path).makeExecutor().response()
            #expect(after.cacheStatus?.isHit == false)
            #expect(server.requests(path: path).map(\.method) == ["GET", "HEAD", "HEAD", "GET"])
        }

        /// §4.2.4: while the server cannot be reached, a stale entry answers, unless it must not be
        /// served stale: then the cache answers 504 (§5.2.2.2) and says why.
        @Test(arguments: ["max-age=0", "max-age=0, must-revalidate"])
        func aServerThatCannotBeReachedGetsTheStaleAnswerOr504(_ control: String) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let calls = LockedValue(0)
            server.route(path) { _ in
                let count = calls.withLock { count in
                    count += 1
                    return count
                }
                return count == 1 ? self.answer("offline copy", ("Cache-Control", control)) : .drop()
            }
            let api = api(server, cache: HTTPCache())
            _ = try await api.target(path).makeExecutor().execute()
            if control.contains("must-revalidate") {
                let error = await #expect(throws: NetLayerError.self) {
                    try await api.target(path).makeExecutor().execute()
                }
                #expect(error?.statusCode == 504)
                #expect(
                    error.map { String(decoding: $0.body ?? Data(), as: UTF8.self) }?.hasPrefix(
                        "the server could not be reached") == true)
            } else {
                let stale = try await api.target(path).makeExecutor().response()
                #expect(stale.data == Data("offline copy".utf8))
                #expect(stale.headerFields["Cache-Status"] == "NetLayer; fwd=stale; detail=disconnected")
            }
            #expect(server.requests(path: path).count >= 2)
        }

        /// §3.4: one range of a fresh, complete stored response is answered from it.
        @Test func aRangeOfAFreshStoredResponseIsAnsweredFromIt() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in self.answer("0123456789", ("Cache-Control", "max-age=3600")) }
            let api = api(server, cache: HTTPCache())
            _ = try await api.target(path).makeExecutor().execute()
            let part = try await api.target(path, headers: ["Range": "bytes=2-4"]).makeExecutor().response()
            let suffix = try await api.target(path, headers: ["Range": "bytes=-3"]).makeExecutor().response()
            #expect(part.statusCode == 206 && part.data == Data("234".utf8))
            #expect(part.headerFields["Content-Range"] == "bytes 2-4/10")
            #expect(suffix.data == Data("789".utf8))
            #expect(server.requests(path: path).count == 1)
            #expect(
                ByteRange("bytes=0-1, 4-5", length: 10) == nil && ByteRange("bytes=10-", length: 10) == nil)
            #expect(ByteRange("items=0-1", length: 10) == nil && ByteRange("bytes=5-2", length: 10) == nil)
        }

        /// A call's or a target's policy: bypass, revalidate, only-if-cached; `Response.cacheStatus`
        /// says what happened in one word, and debug output prints it.
        @Test func aCallOrATargetChoosesHowItUsesTheCache() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            routeValidated(server, path, tag: "\"t\"", body: "stored", control: "max-age=3600")
            let lines = LineCollector()
            let api = TestAPI(
                server: server,
                options: ResourceOptions {
                    $0.cache = HTTPCache()
                    $0.debug = true
                    $0.log = lines.sink
                })
            let offline = await #expect(throws: NetLayerError.self) {
                try await api.target(path).makeExecutor().cachePolicy(.onlyIfCached).response()
            }
            #expect(offline?.statusCode == 504)
            #expect(server.requests(path: path).isEmpty)
            let first = try await api.target(path).makeExecutor().response()
            #expect(
                first.cacheStatus?.description == "stored" && first.cacheStatus?.forwardReason == "uri-miss")
            let hit = try await api.target(path).makeExecutor().response()
            #expect(hit.cacheStatus?.isHit == true && hit.cacheStatus?.description == "hit")
            #expect((hit.cacheStatus?.timeToLive ?? 0) > 3000)
            let bypassed = try await api.target(path).makeExecutor().cachePolicy(.bypass).response()
            #expect(bypassed.cacheStatus == nil && bypassed.data == Data("stored".utf8))
            let refreshed = try await api.target(path).makeExecutor().cachePolicy(.revalidate).response()
            #expect(refreshed.cacheStatus?.description == "revalidated")
            #expect(server.requests(path: path).last?.header("If-None-Match") == "\"t\"")
            #expect(server.requests(path: path).last?.header("Cache-Control") == nil)
            let target = AlwaysFreshTarget(resource: api, path: path)
            _ = try await target.makeExecutor().execute()
            #expect(server.requests(path: path).count == 4)
            #expect(lines.lines.contains { $0.contains("· cache hit") })
            #expect(lines.lines.contains { $0.contains("· cache revalidated") })
        }

        /// A target whose calls never use the cache.
        final class AlwaysFreshTarget: Target, @unchecked Sendable {
            override var cachePolicy: CachePolicy? { .bypass }
        }

        @Test func theCacheKeepsToItsByteBound() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let body = String(repeating: "x", count: 1000)
            for index in 0..<30 {
                server.route(path + "/\(index)") { _ in self.answer(body, ("Cache-Control", "max-age=3600")) }
            }
            let cache = HTTPCache(maximumBytes: 10_000)
            let api = api(server, cache: cache)
            for index in 0..<30 {
                _ = try await api.target(path + "/\(index)").makeExecutor().execute()
                #expect(await cache.usage().bytes <= 10_000)
            }
            let usage = await cache.usage()
            #expect(usage.entries > 0 && usage.entries < 10)
            await cache.removeAll()
            #expect(await cache.usage() == HTTPCacheUsage(entries: 0, bytes: 0))
        }

        @Test func aDiskCacheAnswersAfterARestart() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                self.answer("kept", ("Cache-Control", "max-age=3600"), ("ETag", "\"k\""))
            }
            try await CachingDiskStorageTests.withDirectory { directory in
                let before = api(server, cache: try await HTTPCache(directory: directory))
                _ = try await before.target(path).makeExecutor().execute()
                // A new process: a new cache and resource on the same directory.
                let after = api(server, cache: try await HTTPCache(directory: directory))
                let response = try await after.target(path).makeExecutor().response()
                #expect(server.requests(path: path).count == 1)
                #expect(response.data == Data("kept".utf8) && response.headerFields["ETag"] == "\"k\"")
                #expect(response.cacheStatus?.isHit == true)
            }
        }

        /// Two resources calling one API with different keys, their caches on one directory (as
        /// two processes would be): neither is ever answered with the other's response, and no key
        /// is written to the directory.
        @Test func resourcesWithOtherCredentialsShareADirectoryWithoutCrossing() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let users = ["key-one": "user 1", "key-two": "user 2"]
            server.route(path) { request in
                self.answer(
                    request.header("X-Api-Key").flatMap { users[$0] } ?? "anonymous",
                    ("Cache-Control", "max-age=3600"), ("Vary", "X-Api-Key"))
            }
            try await CachingDiskStorageTests.withDirectory { directory in
                func client(_ key: String?) async throws -> TestAPI {
                    let cache = try await HTTPCache(directory: directory)
                    return TestAPI(
                        server: server, headers: key.map { ["X-Api-Key": $0] } ?? [:],
                        options: ResourceOptions { $0.cache = cache })
                }
                let clients = [
                    (try await client("key-one"), "user 1"), (try await client("key-two"), "user 2"),
                    (try await client(nil), "anonymous"),
                ]
                for _ in 0..<2 {
                    for (api, expected) in clients {
                        let body = try await api.target(path).makeExecutor().execute()
                        #expect(String(decoding: body, as: UTF8.self) == expected)
                    }
                }
                #expect(server.requests(path: path).count == 3)
                let files = CachingDiskStorageTests.entryFiles(directory)
                #expect(files.count == 3)
                for file in files {
                    let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
                    #expect(!text.contains("key-one") && !text.contains("key-two"))
                }
            }
        }
    }
}

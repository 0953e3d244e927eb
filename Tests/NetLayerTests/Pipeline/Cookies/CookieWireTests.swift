import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

extension WireTests {
    /// Issue 27 point 4: the cookie jar as a pipeline stage, checked by what the server received.
    @Suite("Cookies over the wire")
    struct CookieWireTests {
        static let server = TestServerPool.make()

        /// Both send paths: `data(for:)` (no timeout) and the watched delegate task (a timeout).
        static let paths: [Duration?] = [nil, .seconds(10)]

        func api(_ server: TestServer, jar: CookieJar?, debug: LineCollector? = nil) -> TestAPI {
            TestAPI(
                server: server,
                options: ResourceOptions {
                    $0.maximumResponseSize = nil
                    $0.cookieJar = jar
                    if let debug {
                        $0.debug = true
                        $0.log = debug.sink
                    }
                })
        }

        func setting(_ cookies: String..., status: Int = 200) -> TestResponse {
            TestResponse(status: status, headers: cookies.map { ("Set-Cookie", $0) }, body: Data("ok".utf8))
        }

        @Test(arguments: paths)
        func aLoginSetsACookieAndTheNextCallSendsIt(_ timeout: Duration?) async throws {
            let server = try Self.server.get()
            let base = uniquePath()
            server.route(base + "/login") { _ in
                self.setting(
                    "sid=s3cr3t-session; Path=/; HttpOnly; Expires=Wed, 09 Jun 2100 10:18:14 GMT",
                    "theme=dark; Path=/")
            }
            let api = api(server, jar: CookieJar())
            try await api.target(base + "/login").makeExecutor(method: .post, timeout: timeout).execute()
            try await api.target(base + "/me").makeExecutor(timeout: timeout).execute()
            #expect(server.requests(path: base + "/login").first?.header("Cookie") == nil)
            let me = try #require(server.requests(path: base + "/me").first)
            // Two Set-Cookie fields (Foundation joins them; the jar splits them back, the date's
            // comma kept), sent in one field in the order they were set.
            #expect(me.headerValues("Cookie") == ["sid=s3cr3t-session; theme=dark"])
        }

        @Test(arguments: paths)
        func aRedirectHopSetsACookieAndTheNextHopSendsIt(_ timeout: Duration?) async throws {
            let server = try Self.server.get()
            let base = uniquePath()
            server.route(base + "/start") { _ in
                var response = self.setting("hop=1; Path=/", status: 302)
                response.setHeader("Location", base + "/landing")
                return response
            }
            let jar = CookieJar()
            let response = try await api(server, jar: jar).target(base + "/start")
                .makeExecutor(timeout: timeout).response()
            #expect(response.redirects.map(\.statusCode) == [302])
            #expect(server.requests(path: base + "/start").first?.header("Cookie") == nil)
            #expect(server.requests(path: base + "/landing").first?.header("Cookie") == "hop=1")
            #expect(jar.all.map(\.pair) == ["hop=1"])
        }

        @Test func eachHopGetsTheCookiesOfItsOwnURL() async throws {
            let server = try Self.server.get()
            let base = uniquePath()
            let jar = CookieJar()
            let origin = server.url(base + "/")
            jar.store(setCookieValues: ["a=only-a; Path=\(base)/a", "all=1; Path=/"], from: origin)
            server.route(base + "/a/go") { _ in
                var response = TestResponse(status: 307)
                response.setHeader("Location", base + "/b/end")
                return response
            }
            try await api(server, jar: jar).target(base + "/a/go").makeExecutor().execute()
            #expect(server.requests(path: base + "/a/go").first?.header("Cookie") == "a=only-a; all=1")
            #expect(server.requests(path: base + "/b/end").first?.header("Cookie") == "all=1")
        }

        @Test func aPathCookieIsNotSentToAnotherPath() async throws {
            let server = try Self.server.get()
            let base = uniquePath()
            server.route(base + "/a/set") { _ in self.setting("scoped=1; Path=\(base)/a") }
            let api = api(server, jar: CookieJar())
            try await api.target(base + "/a/set").makeExecutor().execute()
            try await api.target(base + "/a/next").makeExecutor().execute()
            try await api.target(base + "/b").makeExecutor().execute()
            #expect(server.requests(path: base + "/a/next").first?.header("Cookie") == "scoped=1")
            #expect(server.requests(path: base + "/b").first?.header("Cookie") == nil)
        }

        @Test func maxAgeZeroDeletes() async throws {
            let server = try Self.server.get()
            let base = uniquePath()
            server.route(base + "/login") { _ in self.setting("sid=1; Path=/", "keep=2; Path=/") }
            server.route(base + "/logout") { _ in self.setting("sid=gone; Path=/; Max-Age=0") }
            let api = api(server, jar: CookieJar())
            try await api.target(base + "/login").makeExecutor().execute()
            try await api.target(base + "/logout").makeExecutor().execute()
            try await api.target(base + "/after").makeExecutor().execute()
            #expect(server.requests(path: base + "/logout").first?.header("Cookie") == "sid=1; keep=2")
            #expect(server.requests(path: base + "/after").first?.header("Cookie") == "keep=2")
        }

        @Test func aSecureCookieIsNotSentOverHttp() async throws {
            let server = try Self.server.get()
            let base = uniquePath()
            server.route(base + "/set") { _ in self.setting("s=1; Secure; Path=/", "plain=2; Path=/") }
            let jar = CookieJar()
            // Set over https for the same host, as a TLS front would: kept, but never sent over http.
            let https = try #require(URL(string: "https://\(server.hostAndPort)/"))
            jar.store(setCookieValues: ["tls=1; Secure; Path=/"], from: https)
            let api = api(server, jar: jar)
            try await api.target(base + "/set").makeExecutor().execute()
            try await api.target(base + "/next").makeExecutor().execute()
            #expect(server.requests(path: base + "/next").first?.header("Cookie") == "plain=2")
            #expect(jar.all.map(\.name) == ["tls", "plain"], "a Secure cookie from http is ignored")
        }

        @Test func resourcesWithTheirOwnJarsDoNotShare() async throws {
            let server = try Self.server.get()
            let base = uniquePath()
            server.route(base + "/login") { request in
                self.setting("user=\(request.rawQuery ?? "")")
            }
            let shared = CookieJar()
            let alice = api(server, jar: CookieJar())
            let bob = api(server, jar: CookieJar())
            let carol = api(server, jar: shared)
            let dave = api(server, jar: shared)
            try await alice.target(base + "/login", params: ["alice": 1]).makeExecutor().execute()
            try await bob.target(base + "/login", params: ["bob": 1]).makeExecutor().execute()
            try await carol.target(base + "/login", params: ["carol": 1]).makeExecutor().execute()
            for (name, resource) in [("alice", alice), ("bob", bob), ("dave", dave)] {
                try await resource.target(base + "/who", headers: ["X-Name": name]).makeExecutor().execute()
            }
            let who = Dictionary(
                server.requests(path: base + "/who").map { ($0.header("X-Name") ?? "", $0.header("Cookie")) },
                uniquingKeysWith: { first, _ in first })
            #expect(who["alice"] == "user=alice=1")
            #expect(who["bob"] == "user=bob=1")
            #expect(who["dave"] == "user=carol=1", "resources given one jar share it")
        }

        @Test func withoutAJarNoCookieIsSentAndSetCookieIsIgnored() async throws {
            let server = try Self.server.get()
            let base = uniquePath()
            server.route(base + "/login") { _ in self.setting("sid=1; Path=/") }
            let api = api(server, jar: nil)
            #expect(!api.pipeline.stages.contains { $0 is CookieStage }, "no jar, no stage")
            try await api.target(base + "/login").makeExecutor().execute()
            try await api.target(base + "/next").makeExecutor().execute()
            try await api.target(base + "/mine", headers: ["Cookie": "own=1"]).makeExecutor().execute()
            #expect(server.requests(path: base + "/next").first?.header("Cookie") == nil)
            #expect(server.requests(path: base + "/mine").first?.header("Cookie") == "own=1")
        }

        @Test func theStageIsInsideTheRedirectsAndOnlyWithAJar() {
            let jar = CookieJar()
            #expect(Pipeline(resource: ResourceOptions { $0.redirects = .doNotFollow }).stages.isEmpty)
            let alone = Pipeline(
                resource: ResourceOptions {
                    $0.redirects = .doNotFollow
                    $0.cookieJar = jar
                })
            #expect(alone.stages.count == 1 && alone.stages.first is CookieStage)
            let full = Pipeline(
                resource: ResourceOptions {
                    $0.cookieJar = jar
                    $0.retryPolicy = .exponential(statusCodes: [503])
                    $0.authentication = .bearer(token: "t")
                })
            #expect(full.stages.last is CookieStage)
            #expect(full.stages.dropLast().last is RedirectStage)
            #expect(full.changesHeaders)
            #expect(!Pipeline(resource: ResourceOptions()).changesHeaders)
        }

        @Test func aCallWithAPipelineOfItsOwnKeepsTheJar() async throws {
            let server = try Self.server.get()
            let base = uniquePath()
            let jar = CookieJar()
            jar.store(setCookieValues: ["a=1; Path=/"], from: server.url("/"))
            let api = api(server, jar: jar)
            try await api.target(base + "/x").makeExecutor(redirects: .doNotFollow).execute()
            try await api.target(base + "/y").makeExecutor().retry(.exponential(statusCodes: [503])).execute()
            #expect(server.requests(path: base + "/x").first?.header("Cookie") == "a=1")
            #expect(server.requests(path: base + "/y").first?.header("Cookie") == "a=1")
        }

        @Test func nonASCIICookiesRoundTrip() async throws {
            let server = try Self.server.get()
            let base = uniquePath()
            server.route(base + "/set") { _ in self.setting("name=värde-名前; Path=/") }
            let jar = CookieJar()
            let api = api(server, jar: jar)
            try await api.target(base + "/set").makeExecutor().execute()
            try await api.target(base + "/next").makeExecutor().execute()
            #expect(jar.all.map(\.value) == ["värde-名前"])
            #expect(server.requests(path: base + "/next").first?.header("Cookie") == "name=värde-名前")
        }

        @Test func theCallersCookiePairsComeFirstInOneField() async throws {
            let server = try Self.server.get()
            let base = uniquePath()
            let jar = CookieJar()
            jar.store(setCookieValues: ["jar=1; Path=/"], from: server.url("/"))
            try await api(server, jar: jar).target(base + "/x", headers: ["Cookie": "own=1"]).makeExecutor()
                .execute()
            #expect(server.requests(path: base + "/x").first?.headerValues("Cookie") == ["own=1; jar=1"])
        }

        @Test func theCookieValueIsNeverPrinted() async throws {
            let server = try Self.server.get()
            let base = uniquePath()
            let secret = "ck-9f8e7d6c5b4a"
            // Sent on the redirect's second hop only: a hop's cookies are secrets of the call too.
            server.route(base + "/login") { _ in self.setting("sid=\(secret); Path=\(base)/fail") }
            // The server echoes the cookie it got, in an error.
            server.route(base + "/fail") { request in
                .text("bad session \(request.header("Cookie") ?? "")", status: 500)
            }
            server.route(base + "/hop") { _ in
                var response = TestResponse(status: 302)
                response.setHeader("Location", base + "/fail")
                return response
            }
            let lines = LineCollector()
            let api = api(server, jar: CookieJar(), debug: lines)
            try await api.target(base + "/login").makeExecutor().execute()
            var failure: NetLayerError?
            do {
                try await api.target(base + "/hop").makeExecutor().execute()
            } catch let error as NetLayerError {
                failure = error
            }
            let error = try #require(failure)
            #expect(server.requests(path: base + "/hop").first?.header("Cookie") == nil)
            #expect(server.requests(path: base + "/fail").first?.header("Cookie") == "sid=\(secret)")
            for text in lines.lines + [error.description, error.debugDescription, error.bodyPreview() ?? ""] {
                #expect(leakedSecret(in: text, of: [secret]) == nil, "\(text)")
            }
            #expect(
                lines.lines.contains {
                    $0.contains("Cookie: <redacted>") || $0.contains("cookie: <redacted>")
                })
        }

        @Test func refusedLimitsFailEveryCallBeforeItIsSent() async throws {
            let server = try Self.server.get()
            let base = uniquePath()
            let jar = CookieJar(limits: CookieJar.Limits(cookiesPerDomain: 0))
            await #expect(throws: NetLayerError.self) {
                try await api(server, jar: jar).target(base + "/x").makeExecutor().execute()
            }
            do {
                try await api(server, jar: jar).target(base + "/x").makeExecutor().execute()
            } catch let error as NetLayerError {
                #expect(error.code == .invalidValue)
                #expect(error.message.contains("cookiesPerDomain"))
            }
            #expect(server.requests(path: base + "/x").isEmpty)
        }
    }
}

import Foundation
import Testing

@testable import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension WireTests {
    /// Issue 5 defect 4: NetLayer decides every redirect (RFC 9110 §15.4), on both send paths.
    @Suite("Redirects")
    struct RedirectWireTests {
        static let server = TestServerPool.make()

        /// Both send paths: `data(for:)` (no timeout) and the watched delegate task (a timeout).
        static let paths: [Duration?] = [nil, .seconds(10)]

        private func redirectPath(to target: String, status: Int) -> String {
            "/redirect?to=\(target)&status=\(status)"
        }

        @Test(arguments: [307, 308], paths)
        func temporaryAndPermanentRedirectsKeepMethodAndExactBody(_ status: Int, _ timeout: Duration?)
            async throws
        {
            // A POST answered with 307/308 was re-sent with an empty body, still labelled JSON.
            let server = try Self.server.get()
            let target = uniquePath()
            let api = TestAPI(server: server)
            let response = try await EchoTarget(resource: api, path: redirectPath(to: target, status: status))
                .makeExecutor(
                    method: .post, body: .json(NewBook(title: "Dune", tags: ["a"])), timeout: timeout
                )
                .response()
            let received = try #require(server.requests(path: target).first)
            #expect(received.method == "POST")
            #expect(received.bodyString == #"{"tags":["a"],"title":"Dune"}"#)
            #expect(received.header("Content-Type") == "application/json")
            #expect(received.header("Content-Length") == "\(received.body.count)")
            #expect(response.redirects.count == 1)
            #expect(response.redirects.first?.statusCode == status)
            #expect(response.redirects.first?.method == .post)
            #expect(response.url?.path == target)
            #expect(response.request.url?.path == target)
        }

        @Test(arguments: [301, 302, 303], paths)
        func postBecomesGetWithoutBodyOrItsHeaders(_ status: Int, _ timeout: Duration?) async throws {
            // A 301/302/303 that turned POST into GET kept the stale Content-Type.
            let server = try Self.server.get()
            let target = uniquePath()
            let api = TestAPI(server: server, headers: ["Content-Type": "application/json"])
            try await EchoTarget(resource: api, path: redirectPath(to: target, status: status))
                .makeExecutor(method: .post, params: ["a": 1], timeout: timeout).execute()
            let received = try #require(server.requests(path: target).first)
            #expect(received.method == "GET")
            #expect(received.body.isEmpty)
            #expect(received.header("Content-Type") == nil)
            #expect(received.header("Content-Length") == nil || received.header("Content-Length") == "0")
        }

        @Test func seeOtherTurnsPutIntoGetButKeepsHead() async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server)
            let putTarget = uniquePath()
            try await EchoTarget(resource: api, path: redirectPath(to: putTarget, status: 303))
                .makeExecutor(method: .put, body: .data(Data("x".utf8))).execute()
            #expect(server.requests(path: putTarget).first?.method == "GET")
            let headTarget = uniquePath()
            try await EchoTarget(resource: api, path: redirectPath(to: headTarget, status: 303))
                .makeExecutor(method: .head).execute()
            #expect(server.requests(path: headTarget).first?.method == "HEAD")
            // 302 keeps a PUT a PUT (only POST changes).
            let put302 = uniquePath()
            try await EchoTarget(resource: api, path: redirectPath(to: put302, status: 302))
                .makeExecutor(method: .put, body: .data(Data("x".utf8))).execute()
            #expect(server.requests(path: put302).first?.method == "PUT")
            #expect(server.requests(path: put302).first?.bodyString == "x")
        }

        @Test(arguments: paths)
        func credentialsAreDroppedWhenTheOriginChanges(_ timeout: Duration?) async throws {
            // A 302 to another host forwarded Authorization and Cookie.
            let server = try Self.server.get()
            let other = try TestServer.start()
            defer { other.stop() }
            let start = uniquePath()
            let landing = uniquePath()
            server.route(start) { _ in
                var response = TestResponse.text("moved", status: 302)
                response.addHeader("Location", "http://\(other.hostAndPort)\(landing)")
                return response
            }
            let api = TestAPI(
                server: server,
                headers: ["Authorization": "Bearer s3cret", "Cookie": "session=abc", "X-Trace": "1"])
            try await api.target(start).makeExecutor(
                headers: ["Proxy-Authorization": "Basic eA=="], timeout: timeout
            )
            .execute()
            let received = try #require(other.requests(path: landing).first)
            #expect(received.header("Authorization") == nil)
            #expect(received.header("Proxy-Authorization") == nil)
            #expect(received.header("Cookie") == nil)
            #expect(received.header("X-Trace") == "1")
        }

        @Test func credentialsAreKeptWithinTheOrigin() async throws {
            let server = try Self.server.get()
            let target = uniquePath()
            let api = TestAPI(server: server, headers: ["Authorization": "Bearer s3cret"])
            try await EchoTarget(resource: api, path: redirectPath(to: target, status: 302)).makeExecutor()
                .execute()
            #expect(server.requests(path: target).first?.header("Authorization") == "Bearer s3cret")
        }

        @Test(arguments: paths)
        func aRedirectLoopStopsAtTheLimit(_ timeout: Duration?) async throws {
            let server = try Self.server.get()
            let loop = uniquePath()
            server.route(loop) { _ in
                var response = TestResponse.text("again", status: 302)
                response.addHeader("Location", loop)
                return response
            }
            let api = TestAPI(server: server, options: ResourceOptions(redirects: RedirectPolicy(maximum: 3)))
            do {
                try await api.target(loop).makeExecutor(timeout: timeout).execute()
                Issue.record("expected tooManyRedirects")
            } catch let error as NetLayerError {
                #expect(error.code == .tooManyRedirects, "\(error)")
                #expect(error.redirects.count == 4)
            }
            #expect(server.requests(path: loop).count == 4)
            // The default limit is 20.
            server.reset()
            do {
                try await TestAPI(server: server).target(loop).makeExecutor().execute()
            } catch let error as NetLayerError {
                #expect(error.code == .tooManyRedirects)
            }
            #expect(server.requests(path: loop).count == 21)
        }

        @Test func notFollowingReturnsTheRedirectItself() async throws {
            let server = try Self.server.get()
            let target = uniquePath()
            let api = TestAPI(server: server, options: ResourceOptions(validation: .none))
            let response = try await EchoTarget(resource: api, path: redirectPath(to: target, status: 302))
                .makeExecutor(redirects: RedirectPolicy.doNotFollow).response()
            #expect(response.statusCode == 302)
            #expect(response.headerFields["location"] == target)
            #expect(response.redirects.isEmpty)
            #expect(server.requests(path: target).isEmpty)
        }

        @Test func chainOfRedirectsIsReported() async throws {
            let server = try Self.server.get()
            let final = uniquePath()
            let middle = redirectPath(to: final, status: 307)
            let first =
                "/redirect?to=" + middle.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                + "&status=301"
            let response = try await EchoTarget(resource: TestAPI(server: server), path: first).makeExecutor()
                .response()
            #expect(response.redirects.map(\.statusCode) == [301, 307])
            #expect(response.redirects.last?.to.path == final)
            #expect(response.url?.path == final)
        }

        @Test func guideRecipeForRedirects() async throws {
            let server = try Self.server.get()
            let final = uniquePath()
            // The lines of Docs/Guide.md "Redirects", so the recipe cannot rot.
            let options = ResourceOptions(redirects: RedirectPolicy(maximum: 5))
            let target = EchoTarget(
                resource: TestAPI(server: server, options: options),
                path: redirectPath(to: final, status: 302))
            let executor = target.makeExecutor(redirects: .doNotFollow)  // the 3xx itself is the result
            let response = try await target.makeExecutor().response()
            print(response.url as Any, response.redirects.map(\.statusCode))
            #expect(response.redirects.map(\.statusCode) == [302])
            await #expect(throws: NetLayerError.self) { try await executor.execute() }
        }

        @Test func redirectRuleRefusesDowngradeAndOtherSchemes() throws {
            func next(_ from: String, _ location: String, policy: RedirectPolicy = .default) throws
                -> TransportRequest?
            {
                let request = TransportRequest(method: .get, url: URL(string: from)!)
                let response = ResponseHead(
                    statusCode: 302, headerFields: HeaderFields(received: [("Location", location)]),
                    url: URL(string: from)!)
                return try RedirectRule.next(after: request, response: response, policy: policy)?.request
            }
            #expect(throws: NetLayerError.self) { try next("https://a.example/x", "http://a.example/y") }
            #expect(throws: NetLayerError.self) { try next("http://a.example/x", "ftp://a.example/y") }
            #expect(throws: NetLayerError.self) { try next("http://a.example/x", "file:///etc/passwd") }
            let allowed = try next(
                "https://a.example/x", "http://a.example/y",
                policy: RedirectPolicy(allowsInsecureRedirects: true))
            #expect(allowed?.url.absoluteString == "http://a.example/y")
            let relative = try next("http://a.example/dir/x?q=1", "../y#frag")
            #expect(relative?.url.absoluteString == "http://a.example/y")
        }
    }
}

extension WireTests.RedirectWireTests {
    @Test(.tags(.hardening)) func aRedirectWhoseLocationCarriesCredentialsIsRefused() async throws {
        let server = try Self.server.get()
        let from = uniquePath()
        let to = uniquePath() + "-landing"
        server.route(from) { _ in
            var response = TestResponse.text("moved", status: 302)
            response.addHeader("Location", "http://user:s3cretpass@\(server.hostAndPort)\(to)")
            return response
        }
        let lines = LineCollector()
        let api = TestAPI(server: server, options: ResourceOptions(debug: true, log: lines.sink))
        let error = await #expect(throws: NetLayerError.self) {
            try await api.target(from).makeExecutor().execute()
        }
        #expect(error?.code == .redirectRefused)
        #expect(server.requests(path: to).isEmpty)
        #expect(error.map { !"\($0)".contains("s3cretpass") } == true)
        #expect(!lines.lines.contains { $0.contains("s3cretpass") })
    }

    @Test(.tags(.hardening)) func headersTheRedactionTreatsAsSecretDoNotFollowACrossOriginRedirect()
        async throws
    {
        let server = try Self.server.get()
        let other = try TestServer.start()
        defer { other.stop() }
        let from = uniquePath()
        let to = uniquePath() + "-landing"
        server.route(from) { _ in
            var response = TestResponse.text("moved", status: 302)
            response.addHeader("Location", "http://\(other.hostAndPort)\(to)")
            return response
        }
        let api = TestAPI(
            server: server, headers: ["X-Api-Key": "k-very-secret-1234", "X-Plain": "kept"])
        try await api.target(from).makeExecutor().execute()
        let landing = try #require(other.requests(path: to).first)
        #expect(landing.header("X-Api-Key") == nil)
        #expect(landing.header("X-Plain") == "kept")
    }

    @Test(.tags(.hardening)) func headersTheRedactionTreatsAsSecretFollowASameOriginRedirect() async throws {
        let server = try Self.server.get()
        let from = uniquePath()
        let to = uniquePath() + "-landing"
        server.route(from) { _ in
            var response = TestResponse.text("moved", status: 302)
            response.addHeader("Location", to)
            return response
        }
        let api = TestAPI(server: server, headers: ["X-Api-Key": "k-very-secret-1234"])
        try await api.target(from).makeExecutor().execute()
        #expect(server.requests(path: to).first?.header("X-Api-Key") == "k-very-secret-1234")
    }
}

extension WireTests.RedirectWireTests {
    @Test func redirectsAreFollowed() async throws {
        let server = try Self.server.get()
        let path = uniquePath()
        let response = try await EchoTarget(resource: TestAPI(server: server), path: "/redirect")
            .makeExecutor(params: ["to": path]).response()
        #expect(response.httpResponse?.url?.path == path)
        #expect(server.requests(path: path).count == 1)
    }

    @Test func aRedirectChainIsFollowedToTheEnd() async throws {
        try await withDeadline {
            let server = try Self.server.get()
            let path = uniquePath()
            @Sendable func redirect(_ status: Int, to location: String) -> TestResponse {
                var response = TestResponse.text("see \(location)", status: status)
                response.addHeader("Location", location)
                return response
            }
            server.route(path + "/a") { _ in redirect(301, to: path + "/b") }
            server.route(path + "/b") { _ in redirect(302, to: path + "/c") }
            server.route(path + "/c") { _ in redirect(307, to: path + "/d") }
            server.route(path + "/d") { _ in .json(#"{"id":4,"title":"End"}"#) }
            let response = try await ResilientAPI(server: server).target(path + "/a").makeExecutor()
                .response(model: Book.self)
            #expect(response.value == Book(id: 4, title: "End"))
            #expect(response.redirects.map(\.statusCode) == [301, 302, 307])
            #expect(response.url?.path == path + "/d")
            for hop in ["a", "b", "c", "d"] {
                #expect(server.requests(path: path + "/" + hop).count == 1)
            }
        }
    }

    @Test func aRedirectLoopEndsWithTooManyRedirects() async throws {
        try await withDeadline {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                var response = TestResponse.text("again", status: 302)
                response.addHeader("Location", path)
                return response
            }
            let api = ResilientAPI(
                server: server, options: ResourceOptions(redirects: RedirectPolicy(maximum: 5)))
            let error = await failure { try await api.target(path).makeExecutor().execute() }
            #expect(error?.code == .tooManyRedirects)
            #expect(error?.redirects.count == 6)
            #expect(server.requests(path: path).count == 6)
            // With the default limit of 20, too.
            let defaults = await failure {
                try await ResilientAPI(server: server).target(path).makeExecutor(params: ["d": 1])
                    .execute()
            }
            #expect(defaults?.code == .tooManyRedirects)
            #expect(server.requests(path: path).count == 6 + 21)
        }
    }

    @Test func aRedirectLoopIsNotRetried() async throws {
        try await withDeadline {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                var response = TestResponse.text("again", status: 308)
                response.addHeader("Location", path)
                return response
            }
            let api = ResilientAPI(
                server: server,
                options: ResourceOptions(
                    redirects: RedirectPolicy(maximum: 2), retryPolicy: .fixed(delay: .milliseconds(5))))
            let error = await failure { try await api.target(path).makeExecutor().execute() }
            #expect(error?.code == .tooManyRedirects && error?.attempts == 1)
            #expect(server.requests(path: path).count == 3)
        }
    }

    @Test func onlyTheFiveRedirectStatusesAreFollowed() throws {
        let request = TransportRequest(
            method: .get, url: try #require(URL(string: "https://h.example.com/a")))
        for status in [300, 301, 302, 303, 304, 305, 306, 307, 308, 309, 200] {
            let head = ResponseHead(
                statusCode: status, headerFields: HeaderFields(received: [("Location", "/b")]),
                url: request.url)
            let next = try RedirectRule.next(after: request, response: head, policy: RedirectPolicy())
            #expect((next != nil) == [301, 302, 303, 307, 308].contains(status), "\(status)")
        }
    }
}

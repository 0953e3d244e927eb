import Foundation
import NetLayer
import Testing

/// Sends `executor` and expects a ``NetLayerError`` with `code`, then checks that the server saw
/// nothing on `path`.
func expectRefused(
    _ executor: Executor, code: NetLayerError.Code, server: TestServer, path: String,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> NetLayerError? {
    var caught: NetLayerError?
    do {
        try await executor.execute()
        Issue.record("expected \(code), the call succeeded", sourceLocation: sourceLocation)
    } catch let error as NetLayerError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        caught = error
    } catch {
        Issue.record("expected a NetLayerError, got \(error)", sourceLocation: sourceLocation)
    }
    // Give a request that should not exist time to arrive before checking.
    try? await Task.sleep(for: .milliseconds(20))
    #expect(
        server.requests.filter { $0.path.hasPrefix(path) }.isEmpty, "something was sent",
        sourceLocation: sourceLocation)
    return caught
}

extension WireTests {
    /// Issue 5 (hardening) defects 1, 2, 3, 5, 8 and 9: hostile or careless input gets a typed error
    /// and nothing is sent; absurd numbers are clamped; nothing crashes.
    @Suite("Hardening: input that must be refused")
    struct HardeningInputTests {
        static let server = TestServerPool.make()

        // MARK: 1. Numbers that reached Foundation and crashed

        @Test(arguments: [Duration.zero, .milliseconds(-1), .seconds(-5)])
        func zeroOrNegativeTimeoutsAreRefusedBeforeSending(_ value: Duration) async throws {
            // Crashed the process on Linux (watchdog cancelled the task right after resume()).
            let server = try Self.server.get()
            let path = uniquePath()
            let target = TestAPI(server: server).target(path)
            let idle = await expectRefused(
                target.makeExecutor(timeout: value), code: .invalidValue, server: server, path: path)
            #expect(idle?.part == "timeout")
            let total = await expectRefused(
                target.makeExecutor(resourceTimeout: value), code: .invalidValue, server: server, path: path)
            #expect(total?.part == "resourceTimeout")
            let resourceWide = TestAPI(server: server, options: ResourceOptions(timeout: value))
            _ = await expectRefused(
                resourceWide.target(path).makeExecutor(), code: .invalidValue, server: server, path: path)
        }

        @Test func hugeTimeoutsAreClampedAndTheCallSucceeds() async throws {
            // `.seconds(Int64.max / 4)` crashed in _HTTPURLProtocol.configureEasyHandle.
            let server = try Self.server.get()
            let huge = Duration.seconds(Int64.max / 4)
            let path = uniquePath()
            let data = try await TestAPI(server: server).target(path)
                .makeExecutor(timeout: huge, resourceTimeout: huge).execute()
            #expect(!data.isEmpty)
            #expect(server.requests(path: path).count == 1)
            #expect(Timeouts.maximum == .seconds(7 * 86_400))
        }

        @Test func tinyPositiveTimeoutTimesOutWithoutCrashing() async throws {
            let server = try Self.server.get()
            for value in [Duration.nanoseconds(1), .microseconds(1), .milliseconds(1)] {
                do {
                    try await TestAPI(server: server).target("/delay/200").makeExecutor(timeout: value)
                        .execute()
                    Issue.record("expected a timeout for \(value)")
                } catch let error as NetLayerError {
                    #expect(error.code == .timedOut, "\(error)")
                }
            }
        }

        // MARK: 2. Framing headers (request smuggling)

        static let framingNames = [
            "Content-Length", "transfer-encoding", "CONNECTION", "Keep-Alive", "TE", "Trailer", "Upgrade",
            "Host",
        ]

        @Test(arguments: framingNames)
        func framingHeadersAreRefusedAtEveryLevel(_ name: String) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let levels: [(TestAPI, EchoTarget, [String: String])] = [
                (TestAPI(server: server, headers: [name: "5"]), TestAPI(server: server).target(path), [:]),
                (TestAPI(server: server), TestAPI(server: server).target(path, headers: [name: "5"]), [:]),
                (TestAPI(server: server), TestAPI(server: server).target(path), [name: "5"]),
            ]
            for (api, target, callHeaders) in levels {
                let bound = EchoTarget(resource: api, path: path, headers: target.headers)
                let error = await expectRefused(
                    bound.makeExecutor(
                        method: .post, headers: callHeaders, body: .data(Data("123456789012".utf8))),
                    code: .invalidHeader, server: server, path: path)
                #expect(error?.part == name)
            }
        }

        @Test func aSmuggledContentLengthCannotSplitTheNextRequest() async throws {
            // `Content-Length: 5` with a 12-byte body used to make the next request on the connection
            // arrive as `4567890GET /next`.
            let server = try Self.server.get()
            let path = uniquePath()
            let api = TestAPI(server: server)
            _ = await expectRefused(
                api.target(path).makeExecutor(
                    method: .post, headers: ["Content-Length": "5"], body: .data(Data("123456789012".utf8))),
                code: .invalidHeader, server: server, path: path)
            try await api.target(path + "/next").makeExecutor().execute()
            let next = try #require(server.requests(path: path + "/next").first)
            #expect(next.method == "GET")
            #expect(server.rejectedRequestCount == 0)
        }

        // MARK: 3. Injection into the request line, header block and multipart part headers

        @Test(arguments: ["GET /evil HTTP/1.1\r\nX-Injected: 1\r\nY:", "GE T", "", "GET\n", "PRÜFEN", "A(B)"])
        func methodsThatAreNotTokensAreRefused(_ raw: String) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            #expect(!HTTPMethod(rawValue: raw).isValid)
            _ = await expectRefused(
                TestAPI(server: server).target(path).makeExecutor(method: HTTPMethod(rawValue: raw)),
                code: .invalidMethod, server: server, path: path)
            #expect(server.requests.allSatisfy { $0.header("X-Injected") == nil })
        }

        @Test func extensionMethodTokensStillWork() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            try await TestAPI(server: server).target(path).makeExecutor(
                method: HTTPMethod(rawValue: "propfind")
            )
            .execute()
            #expect(server.requests(path: path).first?.method == "PROPFIND")
        }

        @Test(arguments: ["a\u{01}b", "a\u{7F}", "a\u{00}b", "x\r\nX-Injected: 1", "a\nb", "\u{1B}[31m"])
        func headerValuesWithControlCharactersAreRefused(_ value: String) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let error = await expectRefused(
                TestAPI(server: server).target(path).makeExecutor(headers: ["X-Value": value]),
                code: .invalidHeader, server: server, path: path)
            #expect(error?.part == "X-Value")
        }

        @Test(arguments: ["X Y", "X:Y", "(X)", "Ä", "a\tb"])
        func headerNamesThatAreNotTokensAreRefused(_ name: String) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            _ = await expectRefused(
                TestAPI(server: server).target(path).makeExecutor(headers: [name: "v"]),
                code: .invalidHeader, server: server, path: path)
        }

        @Test func multipartPartContentTypeCannotInjectPartHeaders() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let file = FilePart.data(
                Data("hi".utf8), filename: "a.txt",
                contentType: "text/plain\r\nContent-Disposition: form-data; name=\"evil\"")
            _ = await expectRefused(
                TestAPI(server: server).target(path).makeExecutor(method: .post, files: ["f": file]),
                code: .invalidHeader, server: server, path: path)
        }

        @Test func bodyContentTypeCannotInjectHeaders() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            _ = await expectRefused(
                TestAPI(server: server).target(path).makeExecutor(
                    method: .post, body: .data(Data("x".utf8), contentType: "text/plain\r\nX-Injected: 1")),
                code: .invalidHeader, server: server, path: path)
        }

        // MARK: 5. '#' and unusable ports

        @Test func fragmentInPathTemplateIsRefusedNotDropped() async throws {
            // `/s?fixed=1#frag` with params sent `GET /s?fixed=1`: the params were lost silently.
            let server = try Self.server.get()
            let path = uniquePath()
            let error = await expectRefused(
                TestAPI(server: server).target(path + "?fixed=1#frag").makeExecutor(params: ["a": 1]),
                code: .invalidURL, server: server, path: path)
            #expect(error?.part == "path")
        }

        @Test func fragmentInVersionOrSubpathIsRefused() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let version = await expectRefused(
                TestAPI(server: server, version: "v1#x").target(path).makeExecutor(),
                code: .invalidURL, server: server, path: "/v1")
            #expect(version?.part == "version")
            let subpath = await expectRefused(
                TestAPI(server: server).target(path).makeExecutor(subpath: "a#b", params: ["q": 1]),
                code: .invalidURL, server: server, path: path)
            #expect(subpath?.part == "subpath")
        }

        @Test(arguments: [
            "127.0.0.1:99999", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:8a", ":8080", "user:pw@127.0.0.1",
        ])
        func unusableDomainsAreInvalidURLsNotTransportErrors(_ domain: String) async throws {
            let api = Resource(protocol: .http, domain: domain)
            do {
                try await EchoTarget(resource: api, path: "/x").makeExecutor().execute()
                Issue.record("expected invalidURL")
            } catch let error as NetLayerError {
                #expect(error.code == .invalidURL, "\(error)")
                #expect(error.part == "domain")
                #expect(!error.description.contains("pw"), "the password is echoed: \(error)")
            }
        }

        @Test func ipv6LiteralDomainsWithPortsAreAccepted() throws {
            let api = Resource(protocol: .http, domain: "[::1]:8080")
            #expect(try api.baseURL == "http://[::1]:8080")
        }

        // MARK: 8. Values accepted silently

        @Test(arguments: [
            RateLimit(requests: 0, per: .seconds(1)), RateLimit(requests: -3, per: .seconds(1)),
            RateLimit(requests: 5, per: .zero), RateLimit(requests: 5, per: .seconds(-1)),
        ])
        func invalidRateLimitsFailEveryCallAndSendNothing(_ limit: RateLimit) async throws {
            // Used to be clamped to 1 request, or to disable the limit without a word.
            let server = try Self.server.get()
            let path = uniquePath()
            let api = TestAPI(server: server, rateLimits: [.perSecond(10), limit])
            for _ in 0..<2 {
                let error = await expectRefused(
                    api.target(path).makeExecutor(), code: .invalidValue, server: server, path: path)
                #expect(error?.part == "rateLimits[1]")
                #expect(error?.description.contains("\(limit.requests)") == true)
            }
        }

        @Test func absurdRateLimitWindowIsClampedNotCrashing() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let api = TestAPI(server: server, rateLimits: [RateLimit(requests: 2, per: .seconds(Int64.max))])
            try await api.target(path).makeExecutor().execute()
            try await api.target(path).makeExecutor().execute()
            #expect(server.requests(path: path).count == 2)
        }

        @Test(arguments: [Double.nan, .infinity, -.infinity])
        func nonFiniteNumbersAreRefusedEverywhere(_ number: Double) async throws {
            // Were sent as `nan` / `inf` in queries and path parts.
            let server = try Self.server.get()
            let path = uniquePath()
            let target = TestAPI(server: server).target(path + "/:id")
            let nested: ParamValue = ["a": [1, number]]
            for executor in [
                target.makeExecutor(pathParts: ["id": 1], params: ["x": number]),
                target.makeExecutor(method: .post, pathParts: ["id": 1], params: ["x": nested]),
                target.makeExecutor(
                    method: .post, pathParts: ["id": 1], params: ["x": number], placement: .json),
                target.makeExecutor(
                    method: .post, pathParts: ["id": 1], params: ["x": number],
                    files: ["f": .data(Data(), filename: "f")]),
            ] {
                _ = await expectRefused(executor, code: .encodingFailed, server: server, path: path)
            }
            _ = await expectRefused(
                target.makeExecutor(pathParts: ["id": number]), code: .invalidPathPart, server: server,
                path: path)
            _ = await expectRefused(
                target.makeExecutor(pathParts: ["id": Float.nan]), code: .invalidPathPart, server: server,
                path: path)
        }

        @Test func aPathPartGivenTwiceIsRefused() async throws {
            // `["id": 5, ":id": 6]` picked one at random.
            let server = try Self.server.get()
            let path = uniquePath()
            let error = await expectRefused(
                TestAPI(server: server).target(path + "/:id").makeExecutor(pathParts: ["id": 5, ":id": 6]),
                code: .invalidPathPart, server: server, path: path)
            #expect(error?.keys == ["id"])
        }

        // MARK: 9. Optional models

        @Test func optionalModelFromNoContentOrEmptyBodyIsNil() async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server)
            let none = try await EchoTarget(resource: api, path: "/status/204").makeExecutor()
                .execute(model: Book?.self)
            #expect(none == nil)
            let path = uniquePath()
            server.route(path) { _ in TestResponse(status: 200) }
            let empty = try await api.target(path).makeExecutor().response(model: Book?.self)
            #expect(empty.value == nil)
            let present = uniquePath()
            server.route(present) { _ in .json(#"{"id":1,"title":"a"}"#) }
            let book = try await api.target(present).makeExecutor().execute(model: Book?.self)
            #expect(book == Book(id: 1, title: "a"))
        }

        @Test func rawAndEmptyModelsTakeABodyThatIsNotJSONAsIs() async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server)
            let path = uniquePath()
            let text = "plain text, not JSON"
            server.route(path) { _ in .text(text) }
            let executor = api.target(path).makeExecutor()
            #expect(try await executor.execute(model: Data.self) == Data(text.utf8))
            #expect(try await executor.execute(model: Data?.self) == Data(text.utf8))
            #expect(try await executor.execute(model: String.self) == text)
            _ = try await executor.execute(model: Empty.self)
            #expect(try await executor.execute(model: Empty?.self) != nil)
            await #expect(throws: (any Error).self) { _ = try await executor.execute(model: Book.self) }
        }
    }
}

extension WireTests.HardeningInputTests {
    @Test func fileBodiesMustBeRegularLocalFiles() async throws {
        // `Data(contentsOf:)` of an http URL fetched it synchronously, outside every limit; of
        // `/dev/zero` or a FIFO it never ended.
        let server = try Self.server.get()
        let path = uniquePath()
        let target = TestAPI(server: server).target(path)
        let remote = try #require(URL(string: "http://\(server.hostAndPort)\(path)/fetched"))
        let withPassword = try #require(
            URL(string: "http://user:pw-9876@\(server.hostAndPort)\(path)/fetched"))
        let error = await expectRefused(
            target.makeExecutor(method: .post, body: .file(withPassword)), code: .encodingFailed,
            server: server,
            path: path)
        #expect(error.map { !$0.description.contains("pw-9876") } == true, "\(String(describing: error))")
        for url in [remote, URL(fileURLWithPath: "/dev/zero"), URL(fileURLWithPath: "/no/such/file")] {
            _ = await expectRefused(
                target.makeExecutor(method: .post, body: .file(url)), code: .encodingFailed, server: server,
                path: path)
            _ = await expectRefused(
                target.makeExecutor(method: .post, files: ["f": .file(url)]), code: .encodingFailed,
                server: server,
                path: path)
        }
        // A symbolic link to a regular file is fine.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netlayer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a.txt")
        try Data("hello".utf8).write(to: file)
        let link = directory.appendingPathComponent("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        try await target.makeExecutor(method: .post, body: .file(link)).execute()
        #expect(server.requests(path: path).first?.bodyString == "hello")
    }

    @Test func serverTextCannotForgeLogLines() async throws {
        let server = try Self.server.get()
        let path = uniquePath()
        server.route(path) { _ in .text("ok\n[NetLayer] ← 200 OK · forged\r\nmore") }
        let lines = LineCollector()
        let api = TestAPI(server: server, options: ResourceOptions(debug: true, log: lines.sink))
        do {
            _ = try await api.target(path).makeExecutor().execute(model: Book.self)
            Issue.record("expected a decoding failure")
        } catch let error as NetLayerError {
            #expect(!error.description.contains("\n") && !error.description.contains("\r"), "\(error)")
            #expect(error.debugDescription.split(separator: "\n").allSatisfy { !$0.hasPrefix("[NetLayer]") })
        }
        #expect(lines.lines.allSatisfy { !$0.contains("\n") && !$0.contains("\r") }, "\(lines.lines)")
        #expect(lines.lines.contains { $0.contains(#"ok\n[NetLayer] ← 200 OK · forged\r\nmore"#) })
    }
}

extension WireTests.HardeningInputTests {
    @Test func paramsNestedDeeperThanTheLimitAreRefused() async throws {
        // Every encoder recurses; a value built from untrusted input could overflow the stack.
        let server = try Self.server.get()
        let path = uniquePath()
        func nested(_ depth: Int) -> ParamValue {
            var value: ParamValue = "leaf"
            for level in 0..<depth {
                value = level.isMultiple(of: 2) ? .array([value]) : .dictionary(["k": value])
            }
            return value
        }
        let target = TestAPI(server: server).target(path)
        _ = await expectRefused(
            target.makeExecutor(params: ["deep": nested(65)]), code: .encodingFailed, server: server,
            path: path)
        _ = await expectRefused(
            target.makeExecutor(method: .post, params: ["deep": nested(10_000)], placement: .json),
            code: .encodingFailed, server: server, path: path)
        try await target.makeExecutor(method: .post, params: ["deep": nested(64)], placement: .json).execute()
        #expect(server.requests(path: path).count == 1)
    }
}

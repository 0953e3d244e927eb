import Foundation
import NetLayer
import Testing

extension WireTests {
    /// Debug printing (§12) and `curlDescription`, against the test server.
    @Suite("Debug output and curl")
    struct DebugOutputTests {
        static let server = TestServerPool.make()

        @Test func debugOutputMatchesTheDesignWithSecretsRedacted() async throws {
            // swift-net-layer omitted the query, printed JSON as base64, printed secrets and no response.
            let server = try Self.server.get()
            let lines = LineCollector()
            let api = TestAPI(
                server: server, version: "v1",
                headers: ["Authorization": "Bearer s3cr3t-token", "Accept": "application/json"],
                params: ["locale": "en"], options: ResourceOptions(log: lines.sink))
            let path = uniquePath()
            server.route("/v1" + path) { _ in .json(#"{"id":7,"title":"Dune"}"#, status: 201) }
            let book = try await api.target(path).makeExecutor(
                method: .post, params: ["api_key": "hunter2"], body: .json(NewBook(title: "Dune", tags: []))
            ).execute(model: Book.self, debug: true)
            #expect(book.id == 7)
            let printed = lines.lines
            let url = "http://\(server.hostAndPort)/v1\(path)"
            // The compact block: no params or multipart lines (params are in the URL or the body), and
            // the response's own headers.
            try #require(printed.count == 6, "\(printed)")
            #expect(printed[0] == "[NetLayer] → POST \(url)?api_key=<redacted>&locale=en")
            #expect(
                printed[1]
                    == "[NetLayer]   headers: Accept: application/json · Authorization: <redacted> · Content-Type: application/json"
            )
            #expect(printed[2] == #"[NetLayer]   body: {"tags":[],"title":"Dune"} (26 bytes)"#)
            #expect(
                printed[3].range(
                    of: #"^\[NetLayer\] ← 201 Created · \d+\.\d ms · 23 bytes$"#, options: .regularExpression)
                    != nil, "\(printed[3])")
            // Sorted by name, as the request's (Linux adds `Connection: close` to a POST's exchange).
            #expect(printed[4].hasPrefix("[NetLayer]   headers: "))
            #expect(printed[4].hasSuffix("Content-Length: 23 · Content-Type: application/json"))
            #expect(printed[5] == #"[NetLayer]   {"id":7,"title":"Dune"}"#)
            #expect(!printed.contains { $0.contains("(none)") })
            let all = printed.joined(separator: "\n")
            #expect(!all.contains("s3cr3t") && !all.contains("hunter2"))
            // The secrets did reach the server.
            let received = try #require(server.requests(path: "/v1" + path).last)
            #expect(received.header("Authorization") == "Bearer s3cr3t-token")
            #expect(received.rawQuery == "api_key=hunter2&locale=en")
        }

        @Test func nothingIsPrintedWhenDebugIsOff() async throws {
            let lines = LineCollector()
            let api = TestAPI(server: try Self.server.get(), options: ResourceOptions(log: lines.sink))
            try await api.target(uniquePath()).makeExecutor().execute()
            #expect(lines.lines.isEmpty)
        }

        @Test func resourceWideDebugPrintsFormBodiesRedactedAndFailures() async throws {
            let lines = LineCollector()
            let server = try Self.server.get()
            let api = TestAPI(server: server, options: ResourceOptions(debug: true, log: lines.sink))
            let path = uniquePath()
            server.route(path) { _ in .json(#"{"ok":true,"session_token":"tk9"}"#) }
            try await api.target(path).makeExecutor(
                method: .post, params: ["user": ["password": "pw1"], "name": "a b"]
            ).execute()
            #expect(lines.lines.contains(#"[NetLayer]   {"ok":true,"session_token":"<redacted>"}"#))
            #expect(!lines.lines.joined().contains("tk9"))
            #expect(
                lines.lines.contains("[NetLayer]   body: name=a%20b&user%5Bpassword%5D=<redacted> (33 bytes)")
            )
            #expect(!lines.lines.joined().contains("pw1"))
            _ = try? await EchoTarget(resource: api, path: "/status/500").makeExecutor().execute()
            #expect(lines.lines.contains { $0.hasPrefix("[NetLayer] ← 500 Internal Server Error · ") })
            _ = try? await EchoTarget(resource: api, path: "/delay/2000").makeExecutor(
                timeout: .milliseconds(100)
            ).execute()
            #expect(lines.lines.contains { $0.hasPrefix("[NetLayer] ✕ GET ") && $0.contains("timed out") })
        }

        @Test func multipartIsSummarisedNotDumped() async throws {
            let lines = LineCollector()
            let api = TestAPI(
                server: try Self.server.get(), options: ResourceOptions(debug: true, log: lines.sink))
            try await api.target(uniquePath()).makeExecutor(
                method: .post, params: ["caption": "c", "token": "t0k3n-value"],
                files: ["cover": .data(Data([0, 1, 2]), filename: "c.png")]
            ).execute()
            let body = try #require(lines.lines.first { $0.hasPrefix("[NetLayer]   body: ") })
            #expect(
                body.range(
                    of:
                        #"^\[NetLayer\]   body: multipart \(\d+ bytes\) · caption: c · token: <redacted> · cover: file c\.png \(image/png\)$"#,
                    options: .regularExpression) != nil, "\(body)")
            // Never as a query string, and the secret field's value appears nowhere.
            #expect(!lines.lines.contains { $0.contains("caption=c") || $0.contains("multipart: ") })
            #expect(!lines.lines.joined().contains("t0k3n-value"))
        }

        @Test func aGetWithoutHeadersPrintsOnlyTheLinesItHas() async throws {
            let lines = LineCollector()
            let server = try Self.server.get()
            let api = TestAPI(server: server, options: ResourceOptions(debug: true, log: lines.sink))
            let path = uniquePath()
            server.route(path) { _ in
                TestResponse(
                    status: 200, headers: [("X-Api-Key", "abc123"), ("X-Request-Id", "r-1")],
                    body: Data())
            }
            try await api.target(path).makeExecutor(params: ["q": "1"]).execute()
            let printed = lines.lines
            try #require(printed.count == 3, "\(printed)")
            #expect(printed[0] == "[NetLayer] → GET http://\(server.hostAndPort)\(path)?q=1")
            #expect(printed[1].hasPrefix("[NetLayer] ← 200 OK · ") && printed[1].hasSuffix(" · 0 bytes"))
            // Response headers are shown, redacted as request headers are. (Not `Set-Cookie`: the
            // shared session would store it and send it with other suites' requests.)
            #expect(
                printed[2]
                    == "[NetLayer]   headers: Content-Length: 0 · X-Api-Key: <redacted> · X-Request-Id: r-1")
            #expect(!printed.joined().contains("abc123"))
        }

        @Test func curlDescriptionRedactsSecrets() throws {
            let api = TestAPI(server: try Self.server.get(), headers: ["Authorization": "Bearer abc"])
            let curl = try api.target("/x").makeExecutor(method: .post, params: ["token": "t0k"])
                .curlDescription
            #expect(curl.contains("'Authorization: <redacted>'"))
            #expect(!curl.contains("abc") && !curl.contains("t0k"))
        }

        #if os(macOS) || os(Linux)  // child processes (bash, curl)
            @Test(arguments: ["form", "json", "binary", "get"])
            func curlDescriptionRunThroughCurlSendsTheSameRequest(_ kind: String) async throws {
                let server = try Self.server.get()
                let api = TestAPI(server: server, headers: ["X-Client": "netlayer it's"])
                let path = uniquePath() + "-" + kind
                let executor: Executor
                switch kind {
                case "form":
                    executor = api.target(path).makeExecutor(
                        method: .post, params: ["q": "a b'c", "n": [1, 2]])
                case "json":
                    executor = api.target(path).makeExecutor(
                        method: .put, params: ["p": 1], body: .json(NewBook(title: "O'Neil", tags: ["x"])))
                case "binary":
                    executor = api.target(path).makeExecutor(
                        method: .post,
                        body: .data(Data([0, 1, 2, 255, 39]), contentType: "application/octet-stream"))
                default: executor = api.target(path).makeExecutor(params: ["s": "é &"])
                }
                try await executor.execute()
                let viaCurl = try executor.curlDescription
                let status = try await runBash(viaCurl + " --silent --show-error --output /dev/null")
                #expect(status == 0, "\(viaCurl)")
                let requests = server.requests(path: path)
                try #require(requests.count == 2, "\(viaCurl)")
                let (ours, theirs) = (requests[0], requests[1])
                #expect(theirs.method == ours.method)
                #expect(theirs.target == ours.target)
                #expect(theirs.body == ours.body)
                #expect(theirs.header("Content-Type") == ours.header("Content-Type"))
                #expect(theirs.header("X-Client") == "netlayer it's")
            }
        #endif
    }
}

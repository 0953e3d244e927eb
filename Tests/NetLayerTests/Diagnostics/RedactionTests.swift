import Foundation
import Testing

@testable import NetLayer

extension WireTests {
    /// Issue 5 defect 6: every text NetLayer prints (debug lines for success and failure, curl,
    /// error descriptions) is redacted the same way, and known secret values are masked wherever
    /// they appear, including in bodies that echo them.
    @Suite("Redaction of every printed text")
    struct RedactionTests {
        static let server = TestServerPool.make()

        #if os(macOS) || os(Linux)  // child processes (bash, curl)
            @Test func curlOfMultipartRedactsSecretFieldsAndStillRuns() async throws {
                // Printed `password` and `api_key` multipart fields in clear.
                let server = try Self.server.get()
                let path = uniquePath()
                let executor = TestAPI(server: server).target(path).makeExecutor(
                    method: .post,
                    params: ["password": "hunter2-pw", "api_key": "sk-live-1234", "name": "ann"],
                    files: ["doc": .data(Data("hello".utf8), filename: "a b.txt")])
                let curl = try executor.curlDescription
                #expect(!curl.contains("hunter2-pw") && !curl.contains("sk-live-1234"), "\(curl)")
                #expect(curl.contains("--form-string 'password=<redacted>'"))
                #expect(curl.contains("--form-string 'name=ann'"))
                let status = try await runBash(curl + " --silent --show-error --output /dev/null")
                #expect(status == 0, "\(curl)")
                let received = try #require(server.requests(path: path).first)
                #expect(received.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
                #expect(received.bodyString.contains("name=\"doc\"; filename=\"a b.txt\""))
                #expect(received.bodyString.contains("hello"))
            }
        #endif

        @Test func failureLineAndErrorDescriptionsRedactTheURL() async throws {
            // The debug ✕ line and NetLayerError.description printed `api_key=` values.
            let server = try Self.server.get()
            let lines = LineCollector()
            let api = TestAPI(server: server, options: ResourceOptions(debug: true, log: lines.sink))
            do {
                try await EchoTarget(resource: api, path: "/drop").makeExecutor(params: [
                    "api_key": "sk-drop-9876"
                ])
                .execute()
                Issue.record("expected a transport error")
            } catch let error as NetLayerError {
                #expect(!error.description.contains("sk-drop-9876"), "\(error)")
                #expect(!error.debugDescription.contains("sk-drop-9876"))
            }
            let failure = try #require(lines.lines.first { $0.contains("✕") })
            #expect(failure.contains("api_key=<redacted>"), "\(failure)")
            #expect(!lines.lines.joined().contains("sk-drop-9876"))

            do {
                try await EchoTarget(resource: api, path: "/status/404").makeExecutor(params: [
                    "token": "tok-404-abc"
                ])
                .execute()
            } catch let error as NetLayerError {
                #expect(error.code == .unacceptableStatus)
                #expect(error.description.contains("token=<redacted>"), "\(error)")
                #expect(!error.description.contains("tok-404-abc"))
            }
        }

        @Test func timeoutErrorsNameTheRequestRedacted() async throws {
            let server = try Self.server.get()
            do {
                try await EchoTarget(resource: TestAPI(server: server), path: "/delay/1000")
                    .makeExecutor(params: ["api_key": "abc"], timeout: .milliseconds(100)).execute()
                Issue.record("expected a timeout")
            } catch let error as NetLayerError {
                #expect(error.code == .timedOut)
                #expect(
                    error.description.contains(
                        "(GET http://\(server.hostAndPort)/delay/1000?api_key=<redacted>)"), "\(error)")
            }
        }

        @Test func echoedSecretsAreMaskedInBodiesErrorsAndDebugLines() async throws {
            // APIs answer "Incorrect API key provided: sk-…".
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { request in
                let key =
                    request.header("Authorization")?.replacingOccurrences(of: "Bearer ", with: "") ?? "?"
                return .json(#"{"error":"Incorrect API key provided: \#(key)"}"#, status: 401)
            }
            let lines = LineCollector()
            let api = TestAPI(
                server: server, headers: ["Authorization": "Bearer sk-proj-SECRET42"],
                options: ResourceOptions(debug: true, log: lines.sink))
            do {
                try await api.target(path).makeExecutor().execute()
                Issue.record("expected 401")
            } catch let error as NetLayerError {
                #expect(error.statusCode == 401)
                // The raw body is the caller's to read; every text NetLayer makes of it is masked.
                #expect(
                    error.body.map { String(decoding: $0, as: UTF8.self) }?.contains("sk-proj-SECRET42")
                        == true)
                #expect(error.bodyPreview()?.contains("sk-proj-SECRET42") == false)
                #expect(error.bodyPreview()?.contains("Incorrect API key provided: <redacted>") == true)
                #expect(!error.debugDescription.contains("sk-proj-SECRET42"), "\(error.debugDescription)")
            }
            #expect(!lines.lines.joined(separator: "\n").contains("sk-proj-SECRET42"), "\(lines.lines)")
        }

        @Test func aSecretStraddlingACutIsNeverHalfShown() async throws {
            // Previews were cut first and masked after: the first characters of an echoed secret
            // showed at the end of a cut preview.
            let server = try Self.server.get()
            let path = uniquePath()
            let secret = "sk-straddle-1234567"
            server.route(path) { _ in
                .text(
                    String(repeating: "a", count: 506) + secret + String(repeating: "b", count: 600),
                    status: 401)
            }
            let lines = LineCollector()
            let api = TestAPI(
                server: server, headers: ["Authorization": "Bearer \(secret)"],
                options: ResourceOptions(debug: true, log: lines.sink))
            do {
                try await api.target(path).makeExecutor().execute()
            } catch let error as NetLayerError {
                let texts = [
                    error.debugDescription, error.bodyPreview(limit: 512) ?? "",
                    error.bodyPreview(limit: 510) ?? "",
                ]
                for text in texts + lines.lines { #expect(!text.contains("sk-str"), "\(text.suffix(80))") }
                #expect(error.bodyPreview(limit: 2000)?.contains("<redacted>") == true)
            }
            let decoding = uniquePath()
            server.route(decoding) { _ in .text(String(repeating: "a", count: 190) + secret + "zzz") }
            do {
                _ = try await api.target(decoding).makeExecutor().execute(model: Book.self)
            } catch let error as NetLayerError {
                #expect(error.code == .decodingFailed)
                #expect(!error.description.contains("sk-str"), "\(error.description.suffix(80))")
            }
        }

        @Test func decodingErrorPreviewMasksEchoedSecrets() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { request in .json(#"{"echo":"\#(request.rawQuery ?? "")"}"#) }
            do {
                _ = try await TestAPI(server: server).target(path).makeExecutor(params: [
                    "password": "pw-echo-77"
                ])
                .execute(model: Book.self)
            } catch let error as NetLayerError {
                #expect(error.code == .decodingFailed)
                #expect(!error.description.contains("pw-echo-77"), "\(error)")
            }
        }

        @Test func formBodyGivenAsDataIsRedactedByField() async throws {
            let server = try Self.server.get()
            let lines = LineCollector()
            let api = TestAPI(server: server, options: ResourceOptions(debug: true, log: lines.sink))
            let executor = api.target(uniquePath()).makeExecutor(
                method: .post,
                body: .data(
                    Data("user=ann&password=pw-form-55".utf8),
                    contentType: "application/x-www-form-urlencoded"))
            try await executor.execute()
            let curl = try executor.curlDescription
            #expect(curl.contains("--data-binary 'user=ann&password=<redacted>'"), "\(curl)")
            #expect(
                lines.lines.contains { $0.contains("body: user=ann&password=<redacted>") }, "\(lines.lines)")
            #expect(!(lines.lines.joined() + curl).contains("pw-form-55"))
        }

        @Test func secretPathPartsAreRedacted() async throws {
            let server = try Self.server.get()
            let lines = LineCollector()
            let api = TestAPI(server: server, options: ResourceOptions(debug: true, log: lines.sink))
            let base = uniquePath()
            let executor = api.target(base + "/reset/:token").makeExecutor(pathParts: ["token": "rst-abc-123"]
            )
            try await executor.execute()
            #expect(server.requests(path: base + "/reset/rst-abc-123").count == 1)
            let curl = try executor.curlDescription
            #expect(curl.contains("/reset/<redacted>"), "\(curl)")
            #expect(lines.lines.contains { $0.contains("/reset/<redacted>") })
            let short = api.target(base + "/:token/x").makeExecutor(pathParts: ["token": "ab"])
            #expect(try short.curlDescription.contains("\(base)/<redacted>/x"))
            do {
                try await EchoTarget(resource: api, path: "/status/403/:token").makeExecutor(pathParts: [
                    "token": "rst-xyz-999"
                ]).execute()
            } catch let error as NetLayerError {
                #expect(!error.description.contains("rst-xyz-999"), "\(error)")
            }
            #expect(!(lines.lines.joined() + curl).contains("rst-abc-123"))
        }

        @Test func redactionNoneShowsEverything() throws {
            let api = TestAPI(
                server: try Self.server.get(), headers: ["Authorization": "Bearer visible"],
                options: ResourceOptions(redaction: .none))
            let curl = try api.target("/x").makeExecutor(params: ["token": "t0k"]).curlDescription
            #expect(curl.contains("Bearer visible") && curl.contains("token=t0k"))
        }
    }
}

extension WireTests.RedactionTests {
    @Test(.tags(.hardening)) func publicValuesPrintNoSecretAndNoRawControl() throws {
        let url = try #require(URL(string: "http://u:pw-SECRET1@127.0.0.1:9/x?api_key=sk-SECRET2&q=1"))
        let request = TransportRequest(
            method: .get, url: url,
            headerFields: HeaderFields(received: [
                (name: "Authorization", value: "Bearer sk-SECRET3"),
                (name: "X-Evil", value: "a\u{1B}[2Jb"),
            ]))
        let redirect = Redirect(
            statusCode: 302, from: url,
            to: try #require(URL(string: "http://127.0.0.1:9/b?token=sk-SECRET4")),
            method: .get)
        let head = ResponseHead(
            statusCode: 200,
            headerFields: HeaderFields(received: [(name: "Set-Cookie", value: "session=sk-SECRET5")]),
            url: url)
        let response = Response(
            value: "ok", data: Data("ok".utf8), head: head, sentRequest: request,
            duration: .milliseconds(5),
            redirects: [redirect])
        var dumped = ""
        dump(response, to: &dumped)
        let texts = [
            "\(request)", String(reflecting: request), "\(redirect)", "\(head)",
            "\(request.headerFields)",
            "\(response)", String(reflecting: response), dumped, "\(HTTPMethod(rawValue: "GE\u{1B}T"))",
        ]
        for text in texts {
            #expect(!text.contains("SECRET"), "\(text)")
            #expect(!text.unicodeScalars.contains { $0.value == 0x1B }, "\(text)")
        }
        #expect("\(request)".contains("GET http://127.0.0.1:9/x?api_key=<redacted>&q=1"))
        #expect("\(request)".contains("X-Evil: a\\u{1B}[2Jb"))
        #expect(
            "\(redirect)"
                == "302 http://127.0.0.1:9/x?api_key=<redacted>&q=1 → GET http://127.0.0.1:9/b?token=<redacted>"
        )
    }
}

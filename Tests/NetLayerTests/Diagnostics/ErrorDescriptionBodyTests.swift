import Foundation
import NetLayer
import Testing

extension WireTests {
    /// `NetLayerError.description` — the one line Swift Testing prints for a caught error — carries
    /// a short, redacted, one-line text of the response body, so a failing test says why.
    @Suite("Error descriptions show the body", .tags(.hardening))
    struct ErrorDescriptionBodyTests {
        static let server = TestServerPool.make()

        @Test func aTextBodyFollowsTheStatusLine() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .text("no route for GET /repos/a/b", status: 404) }
            let error = await #expect(throws: NetLayerError.self) {
                try await TestAPI(server: server).target(path).makeExecutor().execute()
            }
            #expect(
                error?.description
                    == "NetLayer.unacceptableStatus: GET http://\(server.hostAndPort)\(path) answered 404 Not Found (27 bytes) · body: no route for GET /repos/a/b"
            )
            // The message itself is unchanged: the body is only added to the description.
            #expect(error?.message.hasSuffix("answered 404 Not Found (27 bytes)") == true)
        }

        @Test func secretJSONKeysAndEchoedSecretsAreRedacted() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { request in
                .json(
                    #"{"error":"bad login for \#(request.queryValue("token") ?? "")","password":"hunter2-pw","user":"ann"}"#,
                    status: 401)
            }
            let error = await #expect(throws: NetLayerError.self) {
                try await TestAPI(server: server).target(path).makeExecutor(params: ["token": "tok-echo-771"])
                    .execute()
            }
            let description = try #require(error?.description)
            #expect(!description.contains("hunter2-pw"), "\(description)")
            #expect(!description.contains("tok-echo-771"), "\(description)")
            #expect(
                description.hasSuffix(
                    #" · body: {"error":"bad login for <redacted>","password":"<redacted>","user":"ann"}"#),
                "\(description)")
            // The debug description's preview redacts the key the same way.
            #expect(error?.debugDescription.contains("hunter2-pw") == false)
        }

        @Test func aFormBodyIsRedactedByFieldEvenForAShortValue() async throws {
            // A value shorter than 4 characters is hidden by name only; a form body has names.
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                TestResponse(
                    status: 400, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                    body: Data("error=bad_verification_code&access_token=ab1".utf8))
            }
            let error = await #expect(throws: NetLayerError.self) {
                try await TestAPI(server: server).target(path).makeExecutor().execute()
            }
            let description = try #require(error?.description)
            #expect(
                description.hasSuffix(" · body: error=bad_verification_code&access_token=<redacted>"),
                "\(description)")
        }

        @Test func aLongMultiLineBodyIsCutToOneLine() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let start = "first line\r\nsecond\tline\u{202E}[2J"
            let body = start + String(repeating: "x", count: 400)
            server.route(path) { _ in .text(body, status: 500) }
            let error = await #expect(throws: NetLayerError.self) {
                try await TestAPI(server: server).target(path).makeExecutor().execute()
            }
            let description = try #require(error?.description)
            #expect(
                !description.contains("\n") && !description.contains("\r")
                    && !description.contains("\u{202E}"))
            let summary = try #require(description.components(separatedBy: " · body: ").last)
            // The first 200 characters, line breaks and a bidi override shown escaped (a tab kept),
            // then an ellipsis. (A body with other C0 controls counts as binary, as in previews.)
            let escapedStart = "first line\\r\\nsecond\tline\\u{202E}[2J"
            #expect(summary == escapedStart + String(repeating: "x", count: 200 - start.count) + "…")
        }

        @Test func aBinaryBodyIsNotPrinted() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .data(Data([0x00, 0x01, 0xFF, 0xFE, 0x42]), status: 502) }
            let error = await #expect(throws: NetLayerError.self) {
                try await TestAPI(server: server).target(path).makeExecutor().execute()
            }
            #expect(
                error?.description
                    == "NetLayer.unacceptableStatus: GET http://\(server.hostAndPort)\(path) answered 502 Bad Gateway (5 bytes)"
            )
        }

        @Test func anUnexpectedContentTypeShowsTheBodyToo() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .text("upstream is down, try later") }
            let error = await #expect(throws: NetLayerError.self) {
                for try await _ in try await TestAPI(server: server).target(path).makeExecutor().events() {}
            }
            #expect(error?.code == .unacceptableContentType)
            #expect(
                error?.description.hasSuffix(" · body: upstream is down, try later") == true,
                "\(String(describing: error))")
        }

        @Test func aDecodingFailureRedactsSecretKeysInItsPreview() async throws {
            // The body a model failed to decode is in the message already (not repeated); its secret
            // keys are redacted by name as debug output redacts them.
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .json(#"{"id":"seven","title":"Dune","token":"tk-9"}"#) }
            let error = await #expect(throws: NetLayerError.self) {
                try await TestAPI(server: server).target(path).makeExecutor().execute(model: Book.self)
            }
            let description = try #require(error?.description)
            #expect(error?.code == .decodingFailed)
            #expect(!description.contains("tk-9"), "\(description)")
            #expect(description.contains(#""token":"<redacted>""#), "\(description)")
            #expect(!description.contains(" · body: "), "\(description)")
        }
    }
}

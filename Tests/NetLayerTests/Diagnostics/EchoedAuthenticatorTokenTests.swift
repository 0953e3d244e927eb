import Foundation
import NetLayer
import NetLayerTesting
import Testing

extension WireTests {
    /// A bearer token the authenticator adds (not a default header) is a secret of the call: a
    /// server echoing it — as a header value, as a header name, upper-cased in a 400 body — never
    /// gets it printed, and neither does a token refreshed after a 401 and replayed.
    @Suite("Echoed secrets: authenticator tokens are masked", .tags(.hardening))
    struct EchoedAuthenticatorTokenTests {
        static let server = TestServerPool.make()

        @Test func anEchoedAuthenticatorTokenIsMaskedInDebugLinesAndErrors() async throws {
            let server = try Self.server.get()
            let token = "tok-abcdef123456"
            let path = uniquePath()
            server.route(path) { _ in
                LoopbackResponse(
                    status: 400, headers: [("X-Echo", "you sent \(token)"), (token, "1")],
                    body: Data("bad token \(token.uppercased())".utf8))
            }
            let lines = LineCollector()
            let auth = Authentication.bearer(token: token) { _ in token }
            let api = TestAPI(
                server: server, options: ResourceOptions(debug: true, log: lines.sink, authentication: auth))
            var texts: [String] = []
            do {
                try await api.target(path).makeExecutor().execute()
                Issue.record("a 400 must throw")
            } catch let error as NetLayerError {
                texts += [error.description, error.debugDescription, error.bodyPreview() ?? ""]
                #expect(error.header("X-Echo") != nil)
            }
            texts += lines.lines
            let all = texts.joined(separator: "\n")
            #expect(leakedSecret(in: all, of: [token]) == nil, "\(all)")
            #expect(all.contains("X-Echo: you sent <redacted>"), "\(all)")
            #expect(all.contains("bad token <redacted>"), "\(all)")
            #expect(server.requests(path: path).last?.header("Authorization") == "Bearer \(token)")
        }

        /// A token that is never refreshed (`Authentication.bearer(token:)`) is as secret: a 401
        /// echoing it shows `<redacted>` in debug lines and in the error.
        @Test func aStaticBearerTokenIsMaskedInDebugLinesAndErrors() async throws {
            let server = try Self.server.get()
            let token = "pat-9f8e7d6c5b4a"
            let path = uniquePath()
            server.route(path) { _ in
                LoopbackResponse(
                    status: 401, headers: [("X-Echo", "revoked: \(token)"), (token, "1")],
                    body: Data("token \(token.uppercased()) was revoked".utf8))
            }
            let lines = LineCollector()
            let api = TestAPI(
                server: server,
                options: ResourceOptions {
                    $0.authentication = .bearer(token: token)
                    $0.debug = true
                    $0.log = lines.sink
                })
            var texts: [String] = []
            do {
                try await api.target(path).makeExecutor().execute()
                Issue.record("a 401 must throw")
            } catch let error as NetLayerError {
                texts += [error.description, error.debugDescription, error.bodyPreview() ?? ""]
                #expect(error.statusCode == 401 && error.attempts == 1)
            }
            texts += lines.lines
            let all = texts.joined(separator: "\n")
            #expect(leakedSecret(in: all, of: [token]) == nil, "\(all)")
            #expect(all.contains("X-Echo: revoked: <redacted>"), "\(all)")
            #expect(all.contains("token <redacted> was revoked"), "\(all)")
            #expect(server.requests(path: path).map { $0.header("Authorization") } == ["Bearer \(token)"])
        }

        @Test func aTokenRefreshedAfterA401IsMaskedToo() async throws {
            let server = try Self.server.get()
            let old = "old-token-1111"
            let new = "new-token-2222"
            let path = uniquePath()
            server.route(path) { request in
                if request.header("Authorization") == "Bearer \(old)" {
                    return LoopbackResponse(status: 401, headers: [("X-Was", old)])
                }
                return LoopbackResponse(
                    status: 500, headers: [("X-Now", new), ("X-Was", old)],
                    body: Data("first \(old), then \(new)".utf8))
            }
            let lines = LineCollector()
            let auth = Authentication.bearer(token: old) { _ in new }
            let api = TestAPI(
                server: server, options: ResourceOptions(debug: true, log: lines.sink, authentication: auth))
            var texts: [String] = []
            do {
                try await api.target(path).makeExecutor().execute()
                Issue.record("a 500 must throw")
            } catch let error as NetLayerError {
                texts += [error.description, error.debugDescription, error.bodyPreview() ?? ""]
                #expect(error.attempts == 2)
            }
            texts += lines.lines
            let all = texts.joined(separator: "\n")
            #expect(leakedSecret(in: all, of: [old, new]) == nil, "\(all)")
            #expect(auth.refreshCount == 1)
            #expect(server.requests(path: path).last?.header("Authorization") == "Bearer \(new)")
        }
    }
}

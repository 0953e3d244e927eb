import Foundation
import NetLayer
import NetLayerTesting
import Testing

extension WireTests {
    /// A server that redirects to a URL holding the token the authenticator sent (under a name
    /// that is not secret) does not get it printed in the redirect's debug line or description.
    @Suite("Echoed secrets: a token in a Location is masked", .tags(.hardening))
    struct EchoedRedirectLocationTests {
        static let server = TestServerPool.make()

        @Test func aTokenEchoedInALocationIsMasked() async throws {
            let server = try Self.server.get()
            let token = "loc-token-98765"
            let path = uniquePath()
            server.route(path) { _ in
                LoopbackResponse(status: 302, headers: [("Location", "\(path)/next?echo=\(token)")])
            }
            server.route(path + "/next") { _ in .json(#"{"id":1,"title":"t"}"#) }
            let lines = LineCollector()
            let auth = Authentication.bearer(token: token) { _ in token }
            let api = TestAPI(
                server: server, options: ResourceOptions(debug: true, log: lines.sink, authentication: auth))
            let response = try await api.target(path).makeExecutor().response(model: Book.self)
            let redirect = try #require(response.redirects.first)
            let texts =
                lines.lines + [
                    "\(redirect)", String(reflecting: redirect), "\(response)", String(reflecting: response),
                    "\(response.head)",
                ]
            let all = texts.joined(separator: "\n")
            #expect(leakedSecret(in: all, of: [token]) == nil, "\(all)")
            #expect(all.contains("next?echo=<redacted>"), "\(all)")
            #expect(redirect.to.query == "echo=\(token)")
        }
    }
}

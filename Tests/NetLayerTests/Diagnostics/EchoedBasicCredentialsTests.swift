import Foundation
import NetLayer
import NetLayerTesting
import Testing

extension WireTests {
    /// Basic credentials from the authenticator: a server echoing the base64 blob (in any case),
    /// the decoded `user:password` or the password alone never gets them printed.
    @Suite("Echoed secrets: Basic credentials are masked", .tags(.hardening))
    struct EchoedBasicCredentialsTests {
        static let server = TestServerPool.make()

        @Test func echoedBasicCredentialsAreMaskedInEveryForm() async throws {
            let server = try Self.server.get()
            let (user, password) = ("alice", "correct-horse")
            let blob = Data("\(user):\(password)".utf8).base64EncodedString()
            let path = uniquePath()
            server.route(path) { _ in
                LoopbackResponse(
                    status: 403,
                    headers: [
                        ("X-Blob", blob.lowercased()), ("X-User", "\(user):\(password)"), (password, "1"),
                    ],
                    body: Data("user \(user) with password \(password.uppercased()) may not".utf8))
            }
            let lines = LineCollector()
            let api = TestAPI(
                server: server,
                options: ResourceOptions(
                    debug: true, log: lines.sink, authentication: .basic(username: user, password: password)))
            var texts: [String] = []
            do {
                try await api.target(path).makeExecutor().execute()
                Issue.record("a 403 must throw")
            } catch let error as NetLayerError {
                texts += [error.description, error.debugDescription, error.bodyPreview() ?? ""]
            }
            texts += lines.lines
            let all = texts.joined(separator: "\n")
            #expect(leakedSecret(in: all, of: [blob, password]) == nil, "\(all)")
            // The user name alone is not a secret: the text around the masks stays readable.
            #expect(all.contains("user alice with password <redacted> may not"), "\(all)")
            #expect(server.requests(path: path).last?.header("Authorization") == "Basic \(blob)")
        }
    }
}

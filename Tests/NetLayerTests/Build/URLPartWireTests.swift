import Foundation
import NetLayer
import Testing

extension WireTests {
    /// A '#' in a path, version or subpath, and a domain with an unusable port or credentials, are
    /// refused as `invalidURL` before sending, never dropped or left to the transport.
    @Suite("URL parts: refused, never dropped", .tags(.hardening))
    struct URLPartWireTests {
        static let server = TestServerPool.make()

        @Test(.tags(.hardening)) func fragmentInPathTemplateIsRefusedNotDropped() async throws {
            // `/s?fixed=1#frag` with params sent `GET /s?fixed=1`: the params were lost silently.
            let server = try Self.server.get()
            let path = uniquePath()
            let error = await expectRefused(
                TestAPI(server: server).target(path + "?fixed=1#frag").makeExecutor(params: ["a": 1]),
                code: .invalidURL, server: server, path: path)
            #expect(error?.part == "path")
        }

        @Test(.tags(.hardening)) func fragmentInVersionOrSubpathIsRefused() async throws {
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

        @Test(
            .tags(.hardening),
            arguments: [
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

        @Test(.tags(.hardening)) func ipv6LiteralDomainsWithPortsAreAccepted() throws {
            let api = Resource(protocol: .http, domain: "[::1]:8080")
            #expect(try api.baseURL == "http://[::1]:8080")
        }
    }
}

import Foundation
import NetLayerTesting
import Testing

@testable import NetLayer

extension WireTests.Resilience {
    /// A refresh that calls a token endpoint of the same service, through the same resource: its
    /// calls skip the authenticator instead of waiting for the refresh they belong to.
    @Suite("Resilience: a refresh through the same service", .timeLimit(.minutes(1)))
    struct RefreshThroughTheSameServiceWireTests {
        static let server = TestServerPool.make()

        /// The resource, set once it exists (the refresh closure needs it).
        final class Late: Sendable {
            let api = LockedValue<ResilientAPI?>(nil)
            let token = LockedValue("old")
        }

        static func service(
            _ server: TestServer, tokenPath: String, late: Late
        ) -> (ResilientAPI, Authentication) {
            let auth = Authentication.bearer(
                currentToken: { late.token.withLock { $0 } },
                refresh: { rejected in
                    guard let api = late.api.withLock({ $0 }) else { return }
                    let fresh = try await api.target(tokenPath).makeExecutor(
                        method: .post, params: ["rejected": rejected]
                    ).execute(model: String.self)
                    late.token.withLock { $0 = fresh }
                })
            let api = ResilientAPI(server: server, options: ResourceOptions(authentication: auth))
            late.api.withLock { $0 = api }
            return (api, auth)
        }

        @Test func aRefreshCallingTheSameResourceNeitherWaitsForItselfNorCarriesTheOldToken() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let tokenPath = uniquePath()
                server.route(path, TestRoutes.acceptingBearer("new", rejection: "expired"))
                server.route(tokenPath) { _ in .text("new") }
                let (api, auth) = Self.service(server, tokenPath: tokenPath, late: Late())
                let response = try await api.target(path).makeExecutor().response()
                #expect(response.statusCode == 200)
                #expect(response.attempts == 2)
                #expect(auth.refreshCount == 1)
                let tokenCalls = server.requests(path: tokenPath)
                #expect(tokenCalls.count == 1)
                #expect(tokenCalls.first?.header("Authorization") == nil)
                #expect(
                    server.requests(path: path).map { $0.header("Authorization") } == [
                        "Bearer old", "Bearer new",
                    ])
            }
        }

        @Test func aTokenEndpointAnswering401FailsTheRefreshOnceWithoutRecursing() async throws {
            try await withDeadline {
                let server = try Self.server.get()
                let path = uniquePath()
                let tokenPath = uniquePath()
                server.route(path) { _ in .text("expired", status: 401) }
                server.route(tokenPath) { _ in .text("refresh token revoked", status: 401) }
                let (api, auth) = Self.service(server, tokenPath: tokenPath, late: Late())
                let error = await failure { try await api.target(path).makeExecutor().execute() }
                #expect(error?.code == .authenticationFailed, "\(String(describing: error))")
                #expect((error?.underlying as? NetLayerError)?.statusCode == 401)
                #expect(auth.refreshCount == 1)
                #expect(server.requests(path: tokenPath).count == 1)
                #expect(server.requests(path: path).count == 1)
            }
        }
    }
}

import Foundation
import NetLayer
import NetLayerAsyncHTTPClient
import NetLayerTesting

/// A resource on a loopback server, calling through a given transport.
final class LoopbackAPI: Resource, @unchecked Sendable {
    init(server: LoopbackServer, transport: any Transport, options: ResourceOptions = ResourceOptions()) {
        super.init(
            protocol: .http, domain: server.hostAndPort, transport: transport, options: options)
    }

    func target(_ path: String) -> Target { Target(resource: self, path: path) }
}

/// A transport with a client of its own, shut down when `body` ends.
func withTransport<T>(
    _ configuration: AsyncHTTPClientTransport.Configuration = .init(),
    _ body: (AsyncHTTPClientTransport) async throws -> T
) async throws -> T {
    let transport = AsyncHTTPClientTransport(configuration: configuration)
    do {
        let result = try await body(transport)
        try await transport.shutdown()
        return result
    } catch {
        try? await transport.shutdown()
        throw error
    }
}

import AsyncHTTPClient
import Foundation
import NetLayer
import NetLayerAsyncHTTPClient

// The code of Docs/Transports.md, line for line (the docs test checks that; Story+Transports.swift
// runs it against the service).
enum TransportRecipes {
    struct Book: Codable, Sendable {
        let id: Int
        let title: String
    }

    // MARK: A transport of its own

    final class CatalogAPI: Resource, @unchecked Sendable {
        init(host: String, token: String, transport: AsyncHTTPClientTransport) {
            super.init(
                protocol: .http,  // .https for anything but a local service
                domain: host,
                version: "v1",
                defaultHeaders: ["Authorization": "Bearer \(token)"],
                transport: transport,
                options: ResourceOptions { $0.timeout = .seconds(10) }
            )
        }

        func book(id: Int) async throws -> Book {
            try await Target(resource: self, path: "/books/:id").makeExecutor(pathParts: ["id": id])
                .execute(model: Book.self)
        }
    }

    static func ownTransport(host: String, token: String) async throws -> Book {
        let transport = AsyncHTTPClientTransport()  // owns its HTTPClient
        let api = CatalogAPI(host: host, token: token, transport: transport)
        let book = try await api.book(id: 1)
        try await transport.shutdown()  // once, when the app stops using it
        return book
    }

    // MARK: Sharing the app's HTTPClient

    static func sharedClient(host: String, token: String) async throws -> Book {
        // The app's client (a Vapor or Hummingbird app has one): redirects off, so NetLayer
        // decides them; decompression on, with a ratio limit.
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                decompression: .enabled(limit: .ratio(100))))
        let transport = AsyncHTTPClientTransport(client: client)  // borrows it
        let api = CatalogAPI(host: host, token: token, transport: transport)
        let book = try await api.book(id: 1)
        try await client.shutdown()  // the app's job, not the transport's
        return book
    }

    // MARK: Trust roots and pinned keys

    static func pinnedConfiguration(privateRootPEM: String) throws -> AsyncHTTPClientTransport.Configuration {
        try AsyncHTTPClientTransport.Configuration {
            try $0.trustingCertificates(pem: privateRootPEM)  // instead of the system's roots
            $0.pinnedKeys["api.example.com"] = [
                "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",  // the current key
                "n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=",  // the backup key
            ]
        }
    }
}

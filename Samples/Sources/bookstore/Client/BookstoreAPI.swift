import Foundation
import NetLayer

/// The bookstore service: one resource whose targets share its headers, decoder, session and rate
/// limiter.
final class BookstoreAPI: Resource, @unchecked Sendable {
    /// - Parameters:
    ///   - port: Where the service listens on 127.0.0.1.
    ///   - token: The bearer token sent with every request.
    ///   - rateLimits: The service allows 5 requests per second; keeping to that on the client side
    ///     means no request is ever refused with 429. Pass `[]` to switch the limiter off.
    ///   - transport: Default: NetLayer's `URLSessionTransport`.
    ///   - debug: Print every request and response of this resource.
    ///   - cache: A private HTTP cache for the resource's calls (see Story+Caching.swift). Default none.
    init(
        port: Int, token: String,
        rateLimits: [RateLimit] = [RateLimit(requests: 5, per: .seconds(1))],
        transport: (any Transport)? = nil,
        debug: Bool = false,
        cache: HTTPCache? = nil
    ) {
        super.init(
            protocol: .http,
            domain: "127.0.0.1:\(port)",
            version: "v1",
            defaultHeaders: ["Authorization": "Bearer \(token)", "Accept": "application/json"],
            rateLimits: rateLimits,
            transport: transport,
            options: ResourceOptions {
                $0.decoder = BookstoreAPI.makeDecoder()
                $0.debug = debug
                $0.cache = cache
            }
        )
    }

    /// `/books` and `/books/:id`.
    func books() -> BooksTarget { BooksTarget(resource: self, path: "/books") }

    /// `/books/:id/cover`.
    func covers() -> CoversTarget { CoversTarget(resource: self, path: "/books/:id/cover") }

    /// `/uploads/:upload/parts/:part`.
    func uploads() -> UploadsTarget { UploadsTarget(resource: self, path: "/uploads/:upload/parts/:part") }

    /// `/export`: the inventory as CSV.
    func export() -> ExportTarget { ExportTarget(resource: self, path: "/export") }

    /// `/feed`: every book as NDJSON.
    func feed() -> FeedTarget { FeedTarget(resource: self, path: "/feed") }

    /// `/chat`: the assistant, streaming its answers as Server-Sent Events.
    func chat() -> ChatTarget { ChatTarget(resource: self, path: "/chat") }

    /// `/live`: sales and restocks as Server-Sent Events, with ids and reconnection.
    func live() -> LiveFeedTarget { LiveFeedTarget(resource: self, path: "/live") }

    /// `/bestsellers`: a list the service lets clients cache (an `ETag`, `stale-if-error`).
    func bestsellers() -> BestsellersTarget { BestsellersTarget(resource: self, path: "/bestsellers") }

    /// The service writes snake_case keys.
    private static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}

/// `/bestsellers`.
final class BestsellersTarget: Target, @unchecked Sendable {
    /// One bestseller: a book and how many the warehouse holds.
    struct Bestseller: Decodable, Sendable {
        var bookId: Int
        var inStock: Int
    }

    /// The list, with the response (its `cacheStatus` says where it came from).
    /// - Parameter policy: How the call uses the cache. Default: `.standard`.
    func list(_ policy: CachePolicy = .standard) async throws -> Response<[Bestseller]> {
        try await makeExecutor().cachePolicy(policy).response(model: [Bestseller].self)
    }
}

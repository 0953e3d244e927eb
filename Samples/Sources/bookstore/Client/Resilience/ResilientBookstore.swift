import Foundation
import NetLayer

// The client Docs/Resilience.md describes: retries, token refresh, a shared limit, a logging
// interceptor and validation hooks. Its Swift blocks are found here line for line (the story's
// docs step checks that); Story+Resilience.swift runs this code against the bookstore service.
//
// Everything is nested in `Resilience` so the document can use plain names (`BookstoreAPI`,
// `BooksTarget`) without clashing with the rest of the sample.
enum Resilience {
    final class BookstoreAPI: Resource, @unchecked Sendable {
        init(host: String, authentication: Authentication, limiter: RequestLimiter, accessLog: AccessLog) {
            super.init(
                protocol: .http, domain: host, version: "v1",
                defaultHeaders: ["Accept": "application/json"],
                limiter: limiter,  // shared with the token endpoint (see AuthAPI)
                options: ResourceOptions {
                    $0.encoder = Resilience.encoder
                    $0.decoder = Resilience.decoder
                    // Every answer must be JSON, unless a target or a call says otherwise.
                    $0.validation = .successfulStatusCodes.acceptingContentTypes(["application/json"])
                    $0.timeout = .seconds(10)
                    $0.resourceTimeout = .seconds(30)
                    $0.interceptors = [accessLog]
                    // Up to 4 attempts, waits of at most 100 ms, 200 ms, 400 ms (full jitter),
                    // or what Retry-After asks, up to 5 s.
                    $0.retryPolicy = .exponential(base: .milliseconds(100), maximumDelay: .seconds(5))
                    $0.retryBudget = RetryBudget(capacity: 20, refillPerSuccess: 0.2)
                    $0.authentication = authentication
                })
        }

        func books() -> BooksTarget { BooksTarget(resource: self, path: "/books/:id") }
        func stock() -> StockTarget { StockTarget(resource: self, path: "/books/:id/stock") }
        func orders() -> OrdersTarget { OrdersTarget(resource: self, path: "/orders") }
        func feed() -> FeedTarget { FeedTarget(resource: self, path: "/feed") }
        func promotions() -> PromotionsTarget { PromotionsTarget(resource: self, path: "/promotions") }
    }

    final class BooksTarget: Target, @unchecked Sendable {
        func get(id: Int) async throws -> Response<Book> {
            try await makeExecutor(pathParts: ["id": id]).response(model: Book.self)
        }

        /// Whether the book exists: here a 404 is an answer, not an error.
        func exists(id: Int) async throws -> Bool {
            let response = try await makeExecutor(pathParts: ["id": id])
                .validate(Validation(acceptableStatusCodes: [200, 404], contentTypes: ["application/json"]))
                .response()
            return response.statusCode == 200
        }
    }

    struct Stock: Decodable, Sendable {
        let bookId: Int
        let inStock: Int
    }

    final class StockTarget: Target, @unchecked Sendable {
        /// The warehouse answers 503 while it restarts and 500 when a shelf scan fails; both pass
        /// quickly, so this target retries them up to 5 attempts (timeouts too).
        override var retryPolicy: RetryPolicy? {
            let backoff = RetryPolicy.exponential(
                base: .milliseconds(100), maximumDelay: .seconds(5), maximumAttempts: 5)
            return .predicate(backoff: backoff) { failure in
                if let status = failure.response?.statusCode { return status == 500 || status == 503 }
                return failure.error?.code == .timedOut
            }
        }

        func get(bookID: Int) async throws -> Response<Stock> {
            try await makeExecutor(pathParts: ["id": bookID]).response(model: Stock.self)
        }

        /// For a screen that would rather show "unknown" at once than wait: never retried.
        func getOnce(bookID: Int) async throws -> Response<Stock> {
            try await makeExecutor(pathParts: ["id": bookID]).retry(.none).response(model: Stock.self)
        }
    }

    struct NewOrder: Encodable, Sendable {
        let bookId: Int
        let quantity: Int
    }

    struct Order: Decodable, Sendable {
        let id: Int
        let bookId: Int
        let quantity: Int
    }

    final class OrdersTarget: Target, @unchecked Sendable {
        /// Places an order. The server stores one order per `Idempotency-Key` and answers a repeat
        /// with the stored order, so sending this POST twice is safe: `.idempotent()` lets the
        /// retry policy repeat it. Keep the key for the order, not per attempt.
        func place(_ order: NewOrder, key: String = UUID().uuidString) async throws -> Response<Order> {
            try await makeExecutor(method: .post, headers: ["Idempotency-Key": key], body: .json(order))
                .idempotent()
                .response(model: Order.self)
        }

        /// The same POST without `.idempotent()`: never retried, whatever the policy.
        func placeUnmarked(_ order: NewOrder) async throws -> Response<Order> {
            try await makeExecutor(
                method: .post, headers: ["Idempotency-Key": UUID().uuidString], body: .json(order)
            )
            .response(model: Order.self)
        }
    }

    final class FeedTarget: Target, @unchecked Sendable {
        /// NDJSON, not JSON: this target accepts its own type instead of the resource's.
        override var validation: Validation? {
            Validation.successfulStatusCodes.acceptingContentTypes(["application/x-ndjson"])
        }

        func books() async throws -> [Book] {
            var books: [Book] = []
            let lines = try await makeExecutor(headers: ["Accept": "application/x-ndjson"])
                .lines(decoding: Book.self)
            for try await book in lines { books.append(book) }
            return books
        }
    }

    struct Promotion: Decodable, Sendable {
        let title: String
    }

    final class PromotionsTarget: Target, @unchecked Sendable {
        func current() async throws -> [Promotion] {
            try await makeExecutor().execute(model: [Promotion].self)
        }
    }

    /// The service writes and reads snake_case keys.
    static var encoder: JSONEncoder {
        let encoder = ResourceOptions.defaultEncoder
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}

// Outside `StockTarget` so that the document's block of the class stays whole.
extension Resilience.StockTarget {
    typealias Stock = Resilience.Stock

    /// Retries only 502 and 503 (a gateway or a restart, which pass); anything else, a 500
    /// included, is returned at once.
    func getRetryingOnlyUnavailable(bookID: Int) async throws -> Response<Stock> {
        let policy = RetryPolicy.exponential(
            base: .milliseconds(100), maximumDelay: .seconds(5), statusCodes: [502, 503])
        return try await makeExecutor(pathParts: ["id": bookID]).retry(policy).response(model: Stock.self)
    }
}

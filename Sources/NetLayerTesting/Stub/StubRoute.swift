import Foundation
import NetLayer

/// One row of a ``StubTransport``'s table: the response for requests with a method and path (and,
/// optionally, query items).
public struct StubRoute: Sendable {
    /// The method to match; `nil` matches any.
    public var method: HTTPMethod?
    /// The path to match exactly, without the query: either as sent (percent-encoded,
    /// `/books/a%20b`) or decoded (`/books/a b`).
    public var path: String
    /// Query items that must be present with these (decoded) values; other items are allowed.
    /// `nil` (the default) ignores the query.
    public var query: [String: String]?
    /// The answer.
    public var response: StubResponse

    /// Creates a route.
    /// - Parameters:
    ///   - method: `nil` matches any method.
    ///   - path: The full path as the server would see it, version included: `/v1/books`.
    ///   - query: Default `nil`: any query.
    ///   - response: The answer.
    public init(
        _ method: HTTPMethod?, _ path: String, query: [String: String]? = nil, _ response: StubResponse
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.response = response
    }

    /// Whether this route answers `request`.
    public func matches(_ request: RecordedRequest) -> Bool {
        if let method, method.rawValue != request.method { return false }
        guard request.path == path || QueryString.decode(request.path) == path else { return false }
        guard let query else { return true }
        return query.allSatisfy { name, value in request.queryValues(name).contains(value) }
    }
}

/// What ``StubTransport`` does with a request that no route matches.
public enum UnmatchedRequests: Sendable, Hashable {
    /// Answer 404 with a `text/plain` body naming the method and target: NetLayer's validation turns
    /// it into ``NetLayerError/Code/unacceptableStatus`` whose body says which request had no stub.
    case notFound
    /// Throw ``UnmatchedRequestError``: NetLayer reports ``NetLayerError/Code/transport`` with it as
    /// the underlying error, so even a call that accepts 404 fails.
    case fail
}

/// Thrown by a ``StubTransport`` whose table has no route for a request (with
/// ``UnmatchedRequests/fail``).
public struct UnmatchedRequestError: Error, Sendable, CustomStringConvertible {
    /// The request that matched no route.
    public let request: RecordedRequest

    /// `no stub for GET /v1/books?page=2`.
    public var description: String { "no stub for \(request.method) \(request.target)" }
}

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

/// What ``StubTransport`` does with a request that no route matches. Either way the text names
/// the method and the target, with the values of secret query items (the stub's ``Redaction``)
/// shown as the placeholder: `no stub for GET /v1/books?page=2&token=<redacted>`.
public enum UnmatchedRequests: Sendable, Hashable {
    /// Answer 404 with a `text/plain` body naming the request: NetLayer's validation turns it into
    /// ``NetLayerError/Code/unacceptableStatus``, whose `description` ends with that body
    /// (`… answered 404 Not Found (29 bytes) · body: no stub for GET /v1/repos/a/b`).
    case notFound
    /// Throw ``UnmatchedRequestError``: NetLayer reports ``NetLayerError/Code/transport`` with it as
    /// the underlying error and its text in the message (`GET https://… failed: no stub for GET
    /// /v1/repos/a/b`), so even a call that accepts 404 fails.
    case fail
}

/// Thrown by a ``StubTransport`` whose table has no route for a request (with
/// ``UnmatchedRequests/fail``).
public struct UnmatchedRequestError: Error, Sendable, CustomStringConvertible {
    /// The request that matched no route, as it was sent (secrets included, for the test to read).
    public let request: RecordedRequest
    /// Hides secret query values in ``description``.
    let redaction: Redaction

    /// `no stub for GET /v1/books?page=2&token=<redacted>`: the method and the target, the values of
    /// secret query items (by the stub's ``Redaction``) replaced by its placeholder.
    public var description: String { Self.text(for: request, redaction: redaction) }

    /// The text naming a request no route matched, its secret query values redacted.
    static func text(for request: RecordedRequest, redaction: Redaction) -> String {
        "no stub for \(request.method) \(redactedTarget(request, redaction: redaction))"
    }

    /// The target with the value of each query item whose (percent-decoded) name is secret replaced
    /// by the placeholder; everything else as sent.
    static func redactedTarget(_ request: RecordedRequest, redaction: Redaction) -> String {
        guard let query = request.rawQuery else { return request.path }
        let items = query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            guard let equals = item.firstIndex(of: "=") else { return String(item) }
            let name = String(item[..<equals])
            let decoded = QueryString.decode(name.replacingOccurrences(of: "+", with: " "))
            return redaction.isSecret(decoded) || redaction.isSecret(name)
                ? "\(name)=\(redaction.placeholder)" : String(item)
        }
        return request.path + "?" + items.joined(separator: "&")
    }
}

import Foundation

/// One header field, name spelled as sent. Used for requests and responses.
struct TestHeader: Sendable, Equatable, CustomStringConvertible {
    let name: String
    let value: String

    init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    init(name: String, value: String) {
        self.init(name, value)
    }

    var description: String { "\(name): \(value)" }
}

/// A request exactly as the test server received it.
struct RecordedRequest: Sendable {
    let method: String
    /// The raw request-target exactly as received, e.g. `/v1/books/a%2Fb?x=1&y=%20`.
    let target: String
    /// `target` before the first `?`, still percent-encoded as received.
    let path: String
    /// Everything after the first `?`, exactly as received; nil when the target has no `?`.
    let rawQuery: String?
    /// `HTTP/1.1` or `HTTP/1.0`.
    let version: String
    /// Header fields in arrival order, names with their case preserved.
    let headers: [TestHeader]
    /// Exact body bytes; de-chunked when the client used `Transfer-Encoding: chunked`.
    let body: Data
    /// Trailer fields of a chunked body (usually empty).
    let trailers: [TestHeader]
    /// When the request head finished arriving.
    let receivedAt: ContinuousClock.Instant
    /// Identifies the TCP connection; equal for requests that shared a keep-alive connection.
    let connectionID: Int
    /// 1 for the first request on its connection, 2 for the second, ...
    let sequenceOnConnection: Int

    /// First value of the header named `name` (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Every value of the header named `name` (case-insensitive), in arrival order.
    func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// The body as UTF-8 text, nil when it is not valid UTF-8.
    var bodyText: String? { String(data: body, encoding: .utf8) }

    /// Query items split on `&` and the first `=`, percent-decoded (`+` is left as is).
    var queryItems: [TestHeader] { TestQuery.parse(rawQuery) }

    /// First decoded value of query parameter `name`.
    func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// Every decoded value of query parameter `name`, in order.
    func queryValues(_ name: String) -> [String] {
        queryItems.filter { $0.name == name }.map(\.value)
    }
}

/// Query-string helpers shared by `RecordedRequest` and the built-in routes.
enum TestQuery {
    static func parse(_ rawQuery: String?) -> [TestHeader] {
        guard let rawQuery, !rawQuery.isEmpty else { return [] }
        return rawQuery.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(String(parts[0]))
            let value = parts.count > 1 ? decode(String(parts[1])) : ""
            return TestHeader(name, value)
        }
    }

    /// Percent-decodes, keeping the input unchanged when it is not valid percent-encoding.
    static func decode(_ text: String) -> String {
        text.removingPercentEncoding ?? text
    }
}
